// The values a Jinja template computes with, modelled on the Python objects Jinja gives chat
// templates: undefined (Jinja's default Undefined: prints as "", is falsy, fails when used),
// None, bool, int, float, str, list/tuple, dict (insertion-ordered, string keys) and callables
// (macros, bound methods, globals). Lists and dicts are shared like Python references, so a
// namespace changed inside a loop is changed outside it too.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::jinja {

// What Python would raise (TypeError, UndefinedError, ...): the interpreter adds the template
// line and turns it into a DataError.
struct TemplateError : std::runtime_error {
  explicit TemplateError(const std::string& message, int line = 0) : std::runtime_error(message), line(line) {}
  int line;  // 0: not known where it was raised; the interpreter fills in the line it was running
};

class Value;
using List = std::vector<Value>;
struct Dict;
struct Args;
using Function = std::function<Value(const Args&)>;

class Value {
 public:
  enum class Kind { kUndefined, kNone, kBool, kInt, kFloat, kString, kList, kDict, kCallable };

  Value() = default;  // undefined
  Value(bool b) : kind_(Kind::kBool), b_(b) {}
  Value(int i) : kind_(Kind::kInt), i_(i) {}
  Value(int64_t i) : kind_(Kind::kInt), i_(i) {}
  Value(double d) : kind_(Kind::kFloat), f_(d) {}
  Value(std::string s) : kind_(Kind::kString), s_(std::move(s)) {}
  Value(const char* s) : kind_(Kind::kString), s_(s) {}
  static Value undefined(std::string hint);  // hint: the error text when it is used ("'x' is undefined")
  static Value none();
  static Value list(List items, bool tuple = false);
  static Value dict(Dict entries, bool is_namespace = false);
  static Value function(std::string name, Function fn);
  static Value from_json(const nlohmann::ordered_json& j);

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::kUndefined; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_list() const { return kind_ == Kind::kList; }
  bool is_dict() const { return kind_ == Kind::kDict; }
  bool is_callable() const { return kind_ == Kind::kCallable; }
  bool is_int() const { return kind_ == Kind::kInt || kind_ == Kind::kBool; }  // Python: bool is an int
  bool is_number() const { return is_int() || kind_ == Kind::kFloat; }
  bool is_tuple() const { return kind_ == Kind::kList && tuple_; }
  bool is_namespace() const { return kind_ == Kind::kDict && namespace_; }

  bool as_bool() const { return b_; }
  int64_t as_int() const { return kind_ == Kind::kBool ? (b_ ? 1 : 0) : i_; }
  double as_float() const { return kind_ == Kind::kFloat ? f_ : static_cast<double>(as_int()); }
  const std::string& str() const { return s_; }
  const std::string& hint() const { return s_; }
  List& items() const { return *list_; }
  Dict& entries() const { return *dict_; }
  Value call(const Args& args) const;
  const std::string& function_name() const;

  bool truthy() const;
  std::string type_name() const;  // Python's: 'str', 'int', 'dict', ...
  std::string to_str() const;     // str(): what {{ }} prints
  std::string to_repr() const;    // repr(): how values print inside lists and dicts
  // json.dumps(value, ensure_ascii=False, indent=..., separators=..., sort_keys=...), as
  // transformers' tojson filter calls it. indent < 0: on one line.
  std::string to_json(int indent = -1, const std::string* item_sep = nullptr, const std::string* key_sep = nullptr,
                      bool sort_keys = false) const;
  // Fails with Jinja's UndefinedError text when this is undefined.
  const Value& defined() const;

 private:
  void write_json(std::string& out, int indent, int level, const std::string& item_sep, const std::string& key_sep,
                  bool sort_keys) const;
  Kind kind_ = Kind::kUndefined;
  bool b_ = false, tuple_ = false, namespace_ = false;
  int64_t i_ = 0;
  double f_ = 0;
  std::string s_;  // the string, or the undefined value's hint
  std::shared_ptr<List> list_;
  std::shared_ptr<Dict> dict_;
  std::shared_ptr<std::pair<std::string, Function>> fn_;
};

struct Dict {
  std::vector<std::pair<std::string, Value>> entries;  // insertion order, as Python dicts keep it
  const Value* find(std::string_view key) const;
  void set(const std::string& key, Value v);
};

// Positional and keyword arguments of a call.
struct Args {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
  // The argument at `index` or named `name` (undefined when absent).
  Value get(size_t index, std::string_view name) const;
  bool has(size_t index, std::string_view name) const;
  // TemplateError for more positional arguments than `names` or an unknown keyword.
  void check(const std::string& function, std::initializer_list<std::string_view> names) const;
};

bool equal(const Value& a, const Value& b);  // Python ==
// Python's <, <=, >, >= (op names it in the error for unorderable types).
bool less(const Value& a, const Value& b, const char* op = "<");
bool contains(const Value& container, const Value& item);  // Python `in`
// Python iteration: a list's items, a dict's keys, a string's characters; undefined: nothing.
List iterate(const Value& v);
int64_t length(const Value& v);  // len(); TemplateError for what has none

}  // namespace runner::jinja
