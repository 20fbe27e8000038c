// The error taxonomy of DESIGN.md: each kind maps to one exit code and prints as one line,
// "<where>: <message>", where `where` is a recipe file:line, a data file, a checkpoint
// folder or "command line:N" when known.
#pragma once
#include <stdexcept>
#include <string>

namespace runner {

enum class ErrorKind { kRecipe, kArgument, kHook, kData, kCheckpoint, kDist, kInternal };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, std::string where = "");
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  const std::string& where() const { return where_; }
  // 2 for everything the user can fix (recipe, arguments, data, checkpoints), 1 otherwise.
  int exit_code() const;
  // A copy of this error located at `where` (only if it had no location yet).
  Error located(const std::string& where) const;

 private:
  ErrorKind kind_;
  std::string message_;
  std::string where_;
};

#define RUNNER_ERROR_KIND(Name, Kind)                                      \
  struct Name : Error {                                                    \
    explicit Name(std::string message, std::string where = "")             \
        : Error(ErrorKind::Kind, std::move(message), std::move(where)) {} \
  };
RUNNER_ERROR_KIND(RecipeError, kRecipe)
RUNNER_ERROR_KIND(ArgumentError, kArgument)
RUNNER_ERROR_KIND(HookError, kHook)
RUNNER_ERROR_KIND(DataError, kData)
RUNNER_ERROR_KIND(CheckpointError, kCheckpoint)
RUNNER_ERROR_KIND(DistError, kDist)
#undef RUNNER_ERROR_KIND

// Throws the class of `kind` (RecipeError for kRecipe, ...), so callers catch it by type.
[[noreturn]] void throw_error(ErrorKind kind, std::string message, std::string where = "");

}  // namespace runner
