#include "runtime/jinja/is_tests.h"

#include <algorithm>
#include <iterator>

#include "runtime/jinja/text.h"

namespace runner::jinja {

bool is_test(const std::string& name) {
  static const char* const kNames[] = {"defined", "undefined", "none", "boolean", "true", "false", "integer",
                                       "float", "number", "string", "mapping", "iterable", "sequence", "callable",
                                       "sameas", "odd", "even", "divisibleby", "eq", "equalto", "==", "ne", "!=",
                                       "lt", "lessthan", "<", "le", "<=", "gt", "greaterthan", ">", "ge", ">=", "in",
                                       "lower", "upper", "escaped"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool apply_test(const std::string& name, const Value& v, const Args& args) {
  using K = Value::Kind;
  const Value other = args.get(0, "other");
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.is_none();
  if (name == "boolean") return v.kind() == K::kBool;
  if (name == "true") return v.kind() == K::kBool && v.as_bool();
  if (name == "false") return v.kind() == K::kBool && !v.as_bool();
  if (name == "integer") return v.kind() == K::kInt;
  if (name == "float") return v.kind() == K::kFloat;
  if (name == "number") return v.is_number();
  if (name == "string") return v.is_string();
  if (name == "mapping") return v.is_dict() && !v.is_namespace();
  // Jinja's Undefined can be iterated (as nothing) and has a length, so it passes both.
  if (name == "iterable") return v.is_undefined() || v.is_string() || v.is_list() || (v.is_dict() && !v.is_namespace());
  if (name == "sequence") return v.is_undefined() || v.is_string() || v.is_list() || (v.is_dict() && !v.is_namespace());
  if (name == "callable") return v.is_callable();
  if (name == "sameas") {
    if (v.kind() != other.kind()) return false;
    if (v.is_list()) return &v.items() == &other.items();
    if (v.is_dict()) return &v.entries() == &other.entries();
    return equal(v, other);  // None, booleans, small ints and interned strings are the same object in CPython
  }
  if (name == "odd" || name == "even") {
    if (!v.is_int()) throw TemplateError("the '" + name + "' test needs an integer, not " + v.defined().type_name());
    return (((v.as_int() % 2) + 2) % 2 == 1) == (name == "odd");
  }
  if (name == "divisibleby") {
    const Value n = args.get(0, "num");
    if (!v.is_int() || !n.is_int()) throw TemplateError("the 'divisibleby' test needs integers");
    if (n.as_int() == 0) throw TemplateError("integer division or modulo by zero");
    return v.as_int() % n.as_int() == 0;
  }
  if (name == "eq" || name == "equalto" || name == "==") return equal(v, other);
  if (name == "ne" || name == "!=") return !equal(v, other);
  if (name == "lt" || name == "lessthan" || name == "<") return less(v, other, "<");
  if (name == "le" || name == "<=") return !less(other, v, "<=");
  if (name == "gt" || name == "greaterthan" || name == ">") return less(other, v, ">");
  if (name == "ge" || name == ">=") return !less(v, other, ">=");
  if (name == "in") return contains(args.get(0, "seq"), v);
  if (name == "lower") return text::is_lower(v.to_str());
  if (name == "upper") return text::is_upper(v.to_str());
  if (name == "escaped") return false;
  throw TemplateError("no test named '" + name + "'");
}

}  // namespace runner::jinja
