// Python's arithmetic on template values: + - * / // % ** with Python's types and rounding
// (int stays int, / gives a float, // and % floor, str * n repeats, str % args formats), and
// Jinja's ~ (concatenate as strings). Using an undefined value fails, as Jinja's Undefined does.
#pragma once
#include <string>

#include "runtime/jinja/value.h"

namespace runner::jinja {

Value binary_op(const std::string& op, const Value& a, const Value& b);
Value unary_op(const std::string& op, const Value& a);  // "-" or "+"

}  // namespace runner::jinja
