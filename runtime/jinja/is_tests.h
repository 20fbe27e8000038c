// Jinja's tests, the right side of `x is defined`, `x is not none`, `n is divisibleby 3`, and
// what select/reject and selectattr/rejectattr apply: defined, undefined, none, boolean,
// true, false, integer, float, number, string, mapping, iterable, sequence, callable, sameas,
// odd, even, divisibleby, eq/equalto/==, ne/!=, lt/<, le/<=, gt/>, ge/>=, in, lower, upper.
#pragma once
#include <string>

#include "runtime/jinja/value.h"

namespace runner::jinja {

// TemplateError naming an unknown test.
bool apply_test(const std::string& name, const Value& value, const Args& args);
bool is_test(const std::string& name);  // the parser refuses unknown tests, as Jinja does when compiling

}  // namespace runner::jinja
