// Attribute and item access as Jinja's sandbox does it (x.y tries the Python attribute, then
// the item; x[y] the item, then the attribute; what is missing is undefined), and the Python
// methods chat templates call: str's (strip, split, startswith, format, ...), dict's (get,
// items, keys, values) and list's (index, count). Methods that would change a list or dict are
// absent, as in transformers' ImmutableSandboxedEnvironment.
#pragma once
#include <string>

#include "runtime/jinja/value.h"

namespace runner::jinja {

Value get_attr(const Value& obj, const std::string& name);
Value get_item(const Value& obj, const Value& key);
// obj[start:stop:step] (absent parts undefined), on lists, tuples and strings.
Value get_slice(const Value& obj, const Value& start, const Value& stop, const Value& step);
// obj.name(args): a method, or a callable attribute (loop.cycle, a namespace's function).
Value call_method(const Value& obj, const std::string& name, const Args& args);

}  // namespace runner::jinja
