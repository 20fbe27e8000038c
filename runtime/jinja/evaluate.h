// Runs a parsed template. Scoping follows Jinja: each loop iteration and each macro call has
// its own scope (a `set` inside a loop is gone after it, hence namespace()), `if` has none.
// Globals are what transformers gives chat templates: raise_exception(msg), strftime_now(fmt),
// namespace(...), dict(...) and range(...).
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "runtime/jinja/ast.h"

namespace runner::jinja {

struct Rendered {
  std::string text;
  // Byte ranges of `text` written inside {% generation %} ... {% endgeneration %}.
  std::vector<std::pair<size_t, size_t>> generation;
};

// `context` is a dict of the template's variables. TemplateError carries the line that failed.
Rendered render(const Program& program, const Value& context);

}  // namespace runner::jinja
