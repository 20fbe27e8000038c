#pragma once
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace runner::cli {

// `runner check` prints the arguments as JSON on stdout and `runner generate` the text, for
// tools to parse: while they load the recipe and the model, everything else written to stdout
// (log lines, the recipe's print) goes to stderr instead.
class StdoutToStderr {
 public:
  explicit StdoutToStderr(bool on) {
    if (!on) return;
    std::fflush(stdout);
    saved_ = ::dup(1);
    if (saved_ >= 0) ::dup2(2, 1);
  }
  ~StdoutToStderr() { restore(); }
  void restore() {
    if (saved_ < 0) return;
    std::cout.flush();
    std::fflush(stdout);
    ::dup2(saved_, 1);
    ::close(saved_);
    saved_ = -1;
  }
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace runner::cli
