#include "runtime/data/sources/idx.h"

#include <cstdio>

#include "runtime/core/errors.h"
#include "runtime/data/sources/file_bytes.h"

namespace runner::data {

namespace {

uint32_t big_endian_u32(const std::string& bytes, size_t at) {
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + k])); };
  return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

// Checks the header of an unsigned-byte IDX file with `ndims` dimensions and returns them;
// the payload starts at 4 + 4·ndims.
std::vector<int64_t> idx_dims(const std::string& bytes, int ndims, const std::string& what, const std::string& path) {
  const uint32_t expected = 0x00000800u | static_cast<uint32_t>(ndims);
  const size_t header = 4 + 4 * static_cast<size_t>(ndims);
  if (bytes.empty()) throw DataError("empty file", path);
  if (bytes.size() < 4) throw DataError("truncated: " + std::to_string(bytes.size()) + " bytes, too short for an IDX header", path);
  const uint32_t magic = big_endian_u32(bytes, 0);
  if (magic != expected) {
    std::string hint;
    if (magic == 0x00000801u || magic == 0x00000803u) hint = magic == 0x00000801u ? " (this is a labels file)" : " (this is an images file)";
    throw DataError("wrong magic number " + hex(magic) + ", expected " + hex(expected) + " for IDX " + what + hint, path);
  }
  if (bytes.size() < header) throw DataError("truncated: the IDX header is cut short", path);
  std::vector<int64_t> dims;
  unsigned __int128 total = 1;  // three 32-bit sizes can overflow 64 bits
  for (int d = 0; d < ndims; ++d) {
    dims.push_back(big_endian_u32(bytes, 4 + 4 * static_cast<size_t>(d)));
    total *= static_cast<uint64_t>(dims.back());
  }
  const size_t payload = bytes.size() - header;
  if (payload < total) {
    std::string promised = total > UINT64_MAX ? "more than 2^64" : std::to_string(static_cast<uint64_t>(total));
    throw DataError("truncated: the header promises " + promised + " bytes of " + what + " data, the file has " +
                        std::to_string(payload), path);
  }
  if (payload > total)
    throw DataError(std::to_string(payload - static_cast<size_t>(total)) + " unexpected bytes after the " + what + " data", path);
  return dims;
}

at::Tensor bytes_tensor(const std::string& bytes, size_t offset, std::vector<int64_t> shape) {
  at::Tensor t = at::empty(shape, at::kByte);
  std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(offset), bytes.end(), t.data_ptr<uint8_t>());
  return t;
}

}  // namespace

DatasetPtr load_idx(const std::string& images_path, const std::string& labels_path, const IdxOptions& o) {
  const std::string& n = o.normalize;
  if (n != "unit" && n != "standardize" && n != "none")
    throw DataError("normalize must be \"unit\", \"standardize\" or \"none\", got \"" + n + "\"", images_path);
  if ((o.mean || o.std) && n != "standardize") throw DataError("mean and std apply only with normalize = \"standardize\"", images_path);
  if (o.std && !(*o.std > 0)) throw DataError("std must be > 0", images_path);

  const std::string img = read_maybe_gzip(images_path);
  const auto dims = idx_dims(img, 3, "images", images_path);
  const int64_t count = dims[0], rows = dims[1], cols = dims[2];
  if (count == 0) throw DataError("no images (the header says 0)", images_path);
  at::Tensor pixels = bytes_tensor(img, 16, {count, 1, rows, cols}).to(at::kFloat);
  if (n != "none") pixels.div_(255.0);
  if (n == "standardize") {
    const double mean = o.mean ? *o.mean : pixels.mean().item<double>();
    const double sd = o.std ? *o.std : pixels.std().item<double>();
    if (!(sd > 0)) throw DataError("every pixel has the same value: cannot standardize (std is 0)", images_path);
    pixels.sub_(mean).div_(sd);
  }
  if (o.flatten) pixels = pixels.reshape({count, rows * cols});

  Batch columns{{"pixel_values", pixels}};
  std::string origin = "data.idx(" + images_path;
  if (!labels_path.empty()) {
    const std::string lab = read_maybe_gzip(labels_path);
    const auto ldims = idx_dims(lab, 1, "labels", labels_path);
    if (ldims[0] != count)
      throw DataError(std::to_string(ldims[0]) + " labels but " + std::to_string(count) + " images in " + images_path, labels_path);
    columns["labels"] = bytes_tensor(lab, 8, {count}).to(at::kLong);
    origin += ", " + labels_path;
  }
  return std::make_shared<TensorDataset>(std::move(columns), origin + ")");
}

}  // namespace runner::data
