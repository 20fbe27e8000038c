// Shared by the model tests: temporary folders, running the Python references with the
// build's Python (RUNNER_PYTHON: .venv's, with the PyTorch whose LibTorch runner links), and
// the error measure the golden tests report.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <ATen/ATen.h>

namespace runner::models::test {

constexpr const char* kPython = RUNNER_PYTHON;

// A fresh folder under the system temp dir, unique per process and tag.
inline std::string temp_dir(const std::string& tag) {
  auto dir = std::filesystem::temp_directory_path() / ("runner_models_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Whether the build's Python can import torch; checked once.
inline bool python_torch_available() {
  static const bool ok = std::system((std::string(kPython) + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0;
  return ok;
}

// Runs a script from tests/models with arguments; returns the exit status (0 = success).
inline int run_python(const std::string& script, const std::string& args) {
  // -B: no __pycache__ in the source tree.
  const std::string cmd = std::string(kPython) + " -B " + RUNNER_SOURCE_DIR + "/tests/models/" + script + " " + args;
  return std::system(cmd.c_str());
}

inline void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// max |a - b| / max |b|: relative to the tensor's scale, so entries near zero do not blow
// the measure up.
inline double rel_error(const at::Tensor& a, const at::Tensor& b) {
  const double scale = b.abs().max().item<double>();
  const double diff = (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
  return scale > 0 ? diff / scale : diff;
}

}  // namespace runner::models::test
