// runner prepare-data --tokenizer tokenizer.json --input FILE... --output train.bin: a corpus
// tokenized once into a nanoGPT-style token file (raw little-endian uint16, or uint32 when the
// vocabulary needs it) plus its JSON header (token_bin.h), the way nanoGPT's prepare.py
// does it: each document's ids, then the end-of-text token when there is one. A .txt input is
// one document; a .jsonl (or .json) input is one document per line (its "text" field,
// --text_field); a .parquet or .arrow input (HF Hub datasets, `datasets`' save_to_disk) one
// document per row of that string column, read a row group / record batch at a time.
// Documents are tokenized on --num_proc threads (default: every core) and written in order.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <sched.h>

#include <nlohmann/json.hpp>

#include "runtime/cli/commands.h"
#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"
#include "runtime/data/sources/token_bin.h"
#include "runtime/data/stream/records.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"
#include "runtime/data/tokenizers/parallel_encoder.h"
#include "runtime/io/atomic_file.h"
#include "runtime/log/log.h"

namespace runner::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The cores this process may run on (its affinity mask: a container's or taskset's limit),
// as the `tokenizers` package's thread pool counts them.
int usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

struct PrepareArgs {
  std::string tokenizer, output, text_field = "text", eos_token, dtype = "auto";
  std::vector<std::string> inputs;
  bool add_special_tokens = false, no_eos = false;
  int num_proc = usable_cores();
};

PrepareArgs parse(const std::vector<std::string>& a) {
  static const std::vector<std::string> kNames = {"tokenizer", "input", "output", "text_field", "eos_token", "dtype",
                                                  "add_special_tokens", "no_eos", "num_proc"};
  PrepareArgs p;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string position = "command line:" + std::to_string(i + 2);
    if (a[i].rfind("--", 0) != 0) throw ArgumentError("expected --name value, got \"" + a[i] + "\"", position);
    const std::string name = a[i].substr(2);
    if (std::find(kNames.begin(), kNames.end(), name) == kNames.end())
      throw ArgumentError("unknown argument --" + name + " for runner prepare-data" + did_you_mean(name, kNames), position);
    if (name == "add_special_tokens" || name == "no_eos") {
      (name == "no_eos" ? p.no_eos : p.add_special_tokens) = true;
      continue;
    }
    if (i + 1 >= a.size() || a[i + 1].rfind("--", 0) == 0) throw ArgumentError("--" + name + " needs a value", position);
    const std::string value = a[++i];
    if (name == "tokenizer") p.tokenizer = value;
    else if (name == "input") p.inputs.push_back(value);
    else if (name == "output") p.output = value;
    else if (name == "text_field") p.text_field = value;
    else if (name == "eos_token") p.eos_token = value;
    else if (name == "dtype") p.dtype = value;
    else if (name == "num_proc") {
      size_t end = 0;
      int n = 0;
      try {
        n = std::stoi(value, &end);
      } catch (const std::exception&) {
      }
      if (end != value.size() || n < 1) throw ArgumentError("--num_proc must be a positive whole number, got \"" + value + "\"", position);
      p.num_proc = n;
    }
  }
  if (p.tokenizer.empty() || p.inputs.empty() || p.output.empty())
    throw ArgumentError("usage: runner prepare-data --tokenizer tokenizer.json --input FILE [--input FILE ...] --output train.bin", "command line");
  if (p.dtype != "auto" && p.dtype != "uint16" && p.dtype != "uint32")
    throw ArgumentError("--dtype must be auto, uint16 or uint32, got \"" + p.dtype + "\"", "command line");
  return p;
}

// The end-of-text token: --eos_token, else tokenizer_config.json's eos_token next to the
// tokenizer (HF's convention), else none.
std::string eos_token_text(const PrepareArgs& p) {
  if (!p.eos_token.empty() || p.no_eos) return p.eos_token;
  return data::tokenizer_config_eos(p.tokenizer);
}

class TokenWriter {
 public:
  TokenWriter(const std::string& path, int width) : path_(path), width_(width), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw DataError("cannot write", path);
  }
  void append(const std::vector<int64_t>& ids) {
    buffer_.clear();
    buffer_.reserve(ids.size() * static_cast<size_t>(width_));
    for (int64_t id : ids)
      for (int b = 0; b < width_; ++b) buffer_.push_back(static_cast<char>((static_cast<uint64_t>(id) >> (8 * b)) & 0xFF));
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    if (!out_) throw DataError("write failed (disk full?)", path_);
    count_ += static_cast<int64_t>(ids.size());
  }
  void close() {
    out_.flush();
    out_.close();
    if (out_.fail()) throw DataError("write failed (disk full?)", path_);
  }
  int64_t count() const { return count_; }

 private:
  std::string path_;
  int width_;
  std::ofstream out_;
  std::string buffer_;
  int64_t count_ = 0;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("cannot read (missing?)", path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Each row's string `column` of a Parquet or Arrow file, a row group / record batch at a time.
template <class Add>
void add_column(const std::string& path, const std::string& format, const std::string& column, Add&& add) {
  // The reader is data.stream's; its messages say so, which is not what the user ran.
  auto reworded = [](const DataError& e) {
    std::string message = e.message();
    if (message.rfind("data.stream: ", 0) == 0) message = message.substr(13);
    if (message.find("no column") != std::string::npos) message += "; choose it with --text_field";
    return DataError(message, e.where());
  };
  std::unique_ptr<data::RecordReader> records;
  try {
    records = data::open_records({format, column}, path, {});
  } catch (const DataError& e) {
    throw reworded(e);
  }
  for (std::string record;;) {
    try {
      if (!records->next(record)) break;
    } catch (const DataError& e) {
      throw reworded(e);
    }
    add(std::move(record));
  }
}

}  // namespace

int prepare_data(const CommandLine& cl) {
  const PrepareArgs p = parse(cl.command_args);
  const auto tok = data::HfTokenizer::load(p.tokenizer);
  const int64_t vocab = tok->vocab_size();
  std::string dtype = p.dtype;
  if (dtype == "auto") dtype = vocab <= 65536 ? "uint16" : "uint32";
  if (dtype == "uint16" && vocab > 65536)
    throw ArgumentError("--dtype uint16 cannot hold this tokenizer's " + std::to_string(vocab) + " ids (use uint32)", "command line");
  int64_t eos_id = -1;
  if (const std::string eos = eos_token_text(p); !eos.empty()) {
    eos_id = tok->token_to_id(eos);
    if (eos_id < 0) throw DataError("the end-of-text token \"" + eos + "\" is not in the tokenizer's vocabulary", p.tokenizer);
  }
  for (const auto& in : p.inputs)
    if (!fs::is_regular_file(in)) throw DataError("no such input file", in);

  // Written under a temporary name and renamed: an interrupted run leaves no half file
  // that looks complete.
  const std::string tmp = p.output + ".tmp-prepare";
  struct RemoveUnlessDone {
    std::string path;
    bool done = false;
    ~RemoveUnlessDone() {
      std::error_code ec;
      if (!done) fs::remove(path, ec);
    }
  } cleanup{tmp};
  TokenWriter writer(tmp, dtype == "uint16" ? 2 : 4);
  int64_t documents = 0, bytes = 0;
  // Written as each batch is done, in input order; a line now and then for a long corpus.
  auto last_report = std::chrono::steady_clock::now();
  data::ParallelEncoder encoder(*tok, p.add_special_tokens, eos_id, p.num_proc, [&](const std::vector<int64_t>& ids, int64_t n) {
    writer.append(ids);
    documents += n;
    if (std::chrono::steady_clock::now() - last_report > std::chrono::seconds(30)) {
      last_report = std::chrono::steady_clock::now();
      log::info("prepare-data: " + std::to_string(documents) + " documents, " + std::to_string(writer.count()) + " tokens so far");
    }
  });
  auto add_document = [&](std::string text) {
    bytes += static_cast<int64_t>(text.size());
    encoder.add(std::move(text));
  };
  for (const auto& in : p.inputs) {
    const std::string ext = fs::path(in).extension().string();
    if (ext == ".jsonl" || ext == ".json") {  // JSON Lines, as data.stream and HF's json loader read .json
      std::ifstream file(in);
      std::string line;
      for (int64_t n = 1; std::getline(file, line); ++n) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const json j = json::parse(line, nullptr, false);
        const std::string where = in + ":" + std::to_string(n);
        if (j.is_discarded() || !j.is_object()) throw DataError("not a JSON object", where);
        if (!j.contains(p.text_field) || !j[p.text_field].is_string())
          throw DataError("no string field \"" + p.text_field + "\" (choose it with --text_field)", where);
        add_document(j[p.text_field].get<std::string>());
      }
    } else if (ext == ".parquet" || ext == ".arrow" || ext == ".feather") {
      add_column(in, ext == ".parquet" ? "parquet" : "arrow", p.text_field, add_document);
    } else {
      add_document(read_file(in));
    }
  }
  encoder.finish();
  writer.close();
  const json header = {{"format", "runner token file"}, {"version", 1},           {"dtype", dtype},
                       {"num_tokens", writer.count()},  {"num_documents", documents}, {"vocab_size", vocab},
                       {"eos_token_id", eos_id >= 0 ? json(eos_id) : json(nullptr)},
                       {"add_special_tokens", p.add_special_tokens},
                       {"tokenizer", fs::absolute(p.tokenizer).string()},   {"inputs", p.inputs}};
  // Header first: a crash before the rename leaves a header whose num_tokens an older file
  // at the same path does not match, which data.token_bin reports.
  io::write_json_atomic(data::token_header_path(p.output), header);
  fs::rename(tmp, p.output);
  cleanup.done = true;
  log::info("prepare-data: " + std::to_string(documents) + " documents, " + std::to_string(bytes) + " bytes → " +
            std::to_string(writer.count()) + " " + dtype + " tokens in " + p.output);
  return 0;
}

}  // namespace runner::cli
