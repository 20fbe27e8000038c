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

void throw_error(ErrorKind kind, std::string message, std::string where) {
  switch (kind) {
    case ErrorKind::kRecipe: throw RecipeError(std::move(message), std::move(where));
    case ErrorKind::kArgument: throw ArgumentError(std::move(message), std::move(where));
    case ErrorKind::kHook: throw HookError(std::move(message), std::move(where));
    case ErrorKind::kData: throw DataError(std::move(message), std::move(where));
    case ErrorKind::kCheckpoint: throw CheckpointError(std::move(message), std::move(where));
    case ErrorKind::kDist: throw DistError(std::move(message), std::move(where));
    case ErrorKind::kInternal: break;
  }
  throw Error(kind, std::move(message), std::move(where));
}

}  // namespace runner
