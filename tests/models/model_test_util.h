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
#include <gtest/gtest.h>

#include "runtime/models/module.h"

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

// The tensor called `name` in a reference's output, undefined when absent.
inline at::Tensor find_named(const std::vector<std::pair<std::string, at::Tensor>>& tensors, const std::string& name) {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  return {};
}

// Every parameter's .grad against the reference's "grad.<name>", within `tolerance`
// (rel_error); a failure names the parameter. Returns the worst error and how many matched.
struct GradientReport {
  double worst = 0;
  std::string worst_name;
  size_t compared = 0;
};
inline GradientReport expect_gradients_match(const Module& model, const std::vector<std::pair<std::string, at::Tensor>>& reference,
                                             double tolerance) {
  GradientReport r;
  for (const auto& [name, p] : model.named_parameters()) {
    const at::Tensor expected = find_named(reference, "grad." + name);
    if (!expected.defined() || !p.grad().defined() || !p.grad().sizes().equals(expected.sizes())) {
      ADD_FAILURE() << name << ": " << (!expected.defined() ? "the reference has no gradient" : !p.grad().defined() ? "no gradient here" : "shape differs");
      continue;
    }
    const double err = rel_error(p.grad(), expected);
    EXPECT_LT(err, tolerance) << name;
    if (err > r.worst) r.worst = err, r.worst_name = name;
    ++r.compared;
  }
  return r;
}

}  // namespace runner::models::test
