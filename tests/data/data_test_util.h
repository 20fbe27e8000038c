// Test helpers for the data layer: files in a per-process temp folder, and the message of
// the DataError a call raises ("" if it raises none).
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/core/errors.h"

namespace runner::testing {

inline std::string temp_file(const std::string& name, const std::string& bytes) {
  const auto dir = std::filesystem::temp_directory_path() / ("runner_data_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

template <class F>
std::string data_error(F f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace runner::testing
