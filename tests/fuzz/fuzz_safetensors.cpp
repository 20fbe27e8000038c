// Fuzz target: the safetensors reader (runtime/io/safetensors.h) on arbitrary file bytes.
// A forged or truncated file must be a CheckpointError, never a crash or a huge allocation
// (the reader bounds-checks the header against the file size).
#include <algorithm>
#include <cstdint>
#include <string>

#include "runtime/io/safetensors.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = runner::fuzz::scratch_dir("safetensors") + "/model.safetensors";
  runner::fuzz::write_bytes(path, data, size);
  runner::fuzz::expect_errors([&] {
    runner::io::SafetensorsFile file(path);
    (void)file.metadata();
    for (const auto& name : file.names()) {
      const auto shape = file.shape(name);
      const at::ScalarType dtype = file.dtype(name);
      const at::Tensor t = file.load(name);
      if (t.sizes().vec() != shape || t.scalar_type() != dtype) std::abort();  // load must honour the header
      const int64_t n = t.numel();
      // A part read alone equals the same part of the whole tensor.
      const int64_t begin = n / 3, count = std::min<int64_t>(n - begin, 5);
      const at::Tensor part = file.load_elements(name, begin, count);
      if (count > 0 && !at::equal(part.view(at::kByte), t.reshape({-1}).narrow(0, begin, count).contiguous().view(at::kByte))) std::abort();
    }
  });
  runner::fuzz::expect_errors([&] { runner::io::load_safetensors(path); });
  return 0;
}
