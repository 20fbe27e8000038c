// Fuzz target: the file readers of runtime/data — JSONL, CSV, IDX (images, labels; raw or
// gzip), text (chars / bytes) and token_bin — on arbitrary file bytes.
//
// Input layout: byte 0 picks the reader, byte 1 holds its options (tokenizer, block_size,
// stride, ... from a small fixed set: options come from recipes, not files), the rest is
// the file. Every loaded dataset is read back: a few examples one by one and as a batch.
// Property checked besides "no crash": text's encode(decode(ids)) gives the ids back.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/data/sources/sources.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using runner::data::DatasetPtr;

enum Reader : uint8_t { kJsonl, kCsv, kIdxImages, kIdxLabels, kText, kTokenBin, kReaders };

void read_back(const DatasetPtr& ds) {
  const int64_t n = ds->size();
  (void)ds->fields();
  (void)ds->describe();
  std::vector<int64_t> some;
  for (int64_t i : {int64_t{0}, n / 2, n - 1})
    if (i >= 0 && i < n) {
      (void)ds->get(i);
      some.push_back(i);
    }
  runner::data::Batch batch;
  ds->gather(some, batch);
  runner::fuzz::expect_errors([&] { ds->get(n); });  // out of range: an error, not a read past the end
}

runner::data::WindowOptions windows(uint8_t opt) {
  runner::data::WindowOptions w;
  w.block_size = 1 + ((opt >> 1) & 3);
  w.stride = (opt >> 3) & 3;
  w.random_windows = (opt >> 5) & 1;
  w.num_samples = (opt >> 6) & 3;
  w.seed = 7;
  return w;
}

// A valid 3-image 2x2 IDX file, for the labels reader (its count must match).
const std::string& idx_images() {
  static const std::string path = [] {
    const std::string p = runner::fuzz::scratch_dir("data") + "/images-idx3-ubyte";
    const uint8_t bytes[] = {0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 50, 100, 150, 200, 250, 1, 2, 3, 4, 5, 6};
    runner::fuzz::write_bytes(p, bytes, sizeof bytes);
    return p;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const Reader reader = static_cast<Reader>(data[0] % kReaders);
  const uint8_t opt = data[1];
  static const char* const names[] = {"data.jsonl", "data.csv", "images-idx3-ubyte", "labels-idx1-ubyte", "input.txt", "train.bin"};
  const std::string path = runner::fuzz::scratch_dir("data") + "/" + names[reader];
  runner::fuzz::write_bytes(path, data + 2, size - 2);
  runner::fuzz::expect_errors([&] {
    switch (reader) {
      case kJsonl: read_back(runner::data::load_jsonl(path)); break;
      case kCsv: read_back(runner::data::load_csv(path)); break;
      case kIdxImages: {
        runner::data::IdxOptions o;
        o.normalize = opt % 3 == 0 ? "unit" : opt % 3 == 1 ? "standardize" : "none";
        o.flatten = (opt >> 2) & 1;
        read_back(runner::data::load_idx(path, "", o));
        break;
      }
      case kIdxLabels: read_back(runner::data::load_idx(idx_images(), path)); break;
      case kText: {
        runner::data::TextOptions o;
        o.path = path;
        o.tokenizer = opt & 1 ? "bytes" : "chars";
        o.windows = windows(opt);
        const auto ds = runner::data::load_text(o);
        read_back(ds);
        const at::Tensor ids = ds->get(0).at("input_ids");
        const std::vector<int64_t> v(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
        if (ds->encode(ds->decode(v)) != v) std::abort();
        break;
      }
      case kTokenBin: {
        runner::data::TokenBinOptions o;
        o.path = path;
        o.dtype = opt & 1 ? "uint32" : "uint16";
        o.windows = windows(opt);
        read_back(runner::data::load_token_bin(o));
        break;
      }
      default: std::abort();
    }
  });
  return 0;
}
