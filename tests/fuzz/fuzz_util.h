// Shared by the fuzz targets (tests/fuzz/fuzz_*.cpp): a per-process scratch folder the
// readers get their input from (they all take paths), and the rule for what is a finding.
//
// Expected: the errors runner reports to the user as one line — runner::Error and its
// kinds, c10::Error from ATen, and nlohmann::json::exception (which the readers' callers
// turn into errors). Anything else escaping a reader (another exception type, a crash, an
// ASan/UBSan report, a hang) is a finding. RUNNER_FUZZ_STRICT=1 in the environment turns
// escaping nlohmann exceptions into findings too, for readers documented to name the file.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <c10/util/Exception.h>
#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"

namespace runner::fuzz {

// <tmp>/runner-fuzz-<name>-<pid>/, created on first use and removed at exit. <tmp> is
// $TMPDIR if set, else /dev/shm where it is writable (a tmpfs: each input is a file write,
// and on a disk-backed /tmp that write is most of an execution's time), else /tmp.
inline const std::string& scratch_dir(const char* name) {
  static const std::string dir = [name] {
    const char* env = std::getenv("TMPDIR");
    const std::string tmp = env && *env ? env : ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string d = tmp + "/runner-fuzz-" + name + "-" + std::to_string(::getpid());
    std::filesystem::create_directories(d);
    static const std::string keep = d;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(keep, ec);
    });
    return d;
  }();
  return dir;
}

inline void write_bytes(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();  // the scratch folder is ours: failing to write it is a harness bug
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

// RUNNER_FUZZ_VERBOSE=1: print each expected error (to see what a corpus file exercises).
inline void note(const char* kind, const char* what) {
  static const bool verbose = std::getenv("RUNNER_FUZZ_VERBOSE") && *std::getenv("RUNNER_FUZZ_VERBOSE") == '1';
  if (verbose) std::fprintf(stderr, "expected %s: %s\n", kind, what);
}

inline bool strict_json() {
  static const bool strict = std::getenv("RUNNER_FUZZ_STRICT") && *std::getenv("RUNNER_FUZZ_STRICT") == '1';
  return strict;
}

// Runs `f`; expected errors return normally, anything else propagates to the fuzzer.
template <class F>
void expect_errors(F&& f) {
  try {
    f();
  } catch (const runner::Error& e) {
    note("runner::Error", e.what());
  } catch (const c10::Error& e) {
    note("c10::Error", e.what_without_backtrace());
  } catch (const nlohmann::json::exception& e) {
    note("nlohmann::json::exception", e.what());
    if (strict_json()) throw;
  }
}

}  // namespace runner::fuzz
