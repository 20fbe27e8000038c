// safetensors: 8-byte little-endian header length N, N bytes of JSON header
// {"name": {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {...}},
// then the raw little-endian tensor bytes (offsets relative to the end of the header).
// Files load in PyTorch/numpy/HF unchanged. Reads are bounds-checked: a truncated or forged
// file is a CheckpointError naming the file, never a crash.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

namespace runner::io {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;
using Metadata = std::map<std::string, std::string>;

// Writes atomically (temporary file, fsync, rename). Tensors are saved as contiguous CPU
// data in their own dtype, in the given order.
void save_safetensors(const std::string& path, const NamedTensors& tensors, const Metadata& metadata = {});

class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::string& path);
  const std::string& path() const { return path_; }
  std::vector<std::string> names() const;  // in file-offset order
  bool contains(const std::string& name) const { return entries_.count(name) != 0; }
  std::vector<int64_t> shape(const std::string& name) const;
  at::ScalarType dtype(const std::string& name) const;
  at::Tensor load(const std::string& name) const;  // a fresh CPU tensor
  // Elements [begin, begin + count) of the flattened tensor, read alone (1-D): a rank takes
  // its part of a large tensor without reading the rest.
  at::Tensor load_elements(const std::string& name, int64_t begin, int64_t count) const;
  const Metadata& metadata() const { return metadata_; }

 private:
  struct Entry {
    at::ScalarType dtype;
    std::vector<int64_t> shape;
    uint64_t begin, end;  // absolute file offsets
  };
  const Entry& entry(const std::string& name) const;
  std::string path_;
  std::map<std::string, Entry> entries_;
  Metadata metadata_;
};

// Every tensor of a file, in file-offset order.
NamedTensors load_safetensors(const std::string& path);

const char* safetensors_dtype(at::ScalarType t);  // "F32", ...

}  // namespace runner::io
