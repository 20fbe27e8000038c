// Jinja's grammar (operator precedence, filters and tests binding tighter than arithmetic,
// chained comparisons, `x if c else y`) over the lexer's tokens, into ast.h's nodes. Tags:
// if/elif/else, for (with `if`, `else`, tuple targets), set (names, tuples, namespace
// attributes, blocks), macro, break/continue (loopcontrols) and generation (transformers'
// assistant-mask extension). Others (include, extends, call, filter blocks, ...) are refused
// by name with the line.
#pragma once
#include <string_view>

#include "runtime/jinja/ast.h"

namespace runner::jinja {

// TemplateError (with its line) for a syntax error or an unsupported tag.
Program parse(std::string_view source);

}  // namespace runner::jinja
