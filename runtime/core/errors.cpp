#include "runtime/core/errors.h"

namespace runner {

namespace {
std::string join(const std::string& where, const std::string& message) {
  return where.empty() ? message : where + ": " + message;
}
}  // namespace

Error::Error(ErrorKind kind, std::string message, std::string where)
    : std::runtime_error(join(where, message)),
      kind_(kind),
      message_(std::move(message)),
      where_(std::move(where)) {}

int Error::exit_code() const { return kind_ == ErrorKind::kInternal ? 1 : 2; }

Error Error::located(const std::string& where) const {
  return where_.empty() ? Error(kind_, message_, where) : *this;
}

}  // namespace runner
