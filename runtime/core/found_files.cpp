#include "runtime/core/found_files.h"

#include <utility>

namespace runner {

namespace {
FoundFileCheck& found_file_check() {
  static FoundFileCheck check;
  return check;
}
}  // namespace

void set_found_file_check(FoundFileCheck check) { found_file_check() = std::move(check); }

void check_found_file(const std::string& path) {
  if (const FoundFileCheck& check = found_file_check()) check(path);
}

}  // namespace runner
