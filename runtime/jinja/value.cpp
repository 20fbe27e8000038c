#include "runtime/jinja/value.h"

#include <algorithm>
#include <cmath>

#include "runtime/jinja/text.h"

namespace runner::jinja {

Value Value::undefined(std::string hint) {
  Value v;
  v.s_ = std::move(hint);
  return v;
}

Value Value::none() {
  Value v;
  v.kind_ = Kind::kNone;
  return v;
}

Value Value::list(List items, bool tuple) {
  Value v;
  v.kind_ = Kind::kList;
  v.tuple_ = tuple;
  v.list_ = std::make_shared<List>(std::move(items));
  return v;
}

Value Value::dict(Dict entries, bool is_namespace) {
  Value v;
  v.kind_ = Kind::kDict;
  v.namespace_ = is_namespace;
  v.dict_ = std::make_shared<Dict>(std::move(entries));
  return v;
}

Value Value::function(std::string name, Function fn) {
  Value v;
  v.kind_ = Kind::kCallable;
  v.fn_ = std::make_shared<std::pair<std::string, Function>>(std::move(name), std::move(fn));
  return v;
}

Value Value::from_json(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return none();
    case nlohmann::ordered_json::value_t::boolean: return Value(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return Value(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: return Value(static_cast<int64_t>(j.get<uint64_t>()));
    case nlohmann::ordered_json::value_t::number_float: return Value(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return Value(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      List items;
      for (const auto& e : j) items.push_back(from_json(e));
      return list(std::move(items));
    }
    case nlohmann::ordered_json::value_t::object: {
      Dict d;
      for (const auto& [k, e] : j.items()) d.set(k, from_json(e));
      return dict(std::move(d));
    }
    default: return undefined("a binary JSON value is not supported");
  }
}

Value Value::call(const Args& args) const {
  if (kind_ != Kind::kCallable) throw TemplateError("'" + type_name() + "' object is not callable");
  return fn_->second(args);
}

const std::string& Value::function_name() const { return fn_->first; }

const Value& Value::defined() const {
  if (is_undefined()) throw TemplateError(s_.empty() ? "undefined value" : s_);
  return *this;
}

bool Value::truthy() const {
  switch (kind_) {
    case Kind::kUndefined:
    case Kind::kNone: return false;
    case Kind::kBool: return b_;
    case Kind::kInt: return i_ != 0;
    case Kind::kFloat: return f_ != 0;
    case Kind::kString: return !s_.empty();
    case Kind::kList: return !list_->empty();
    case Kind::kDict: return namespace_ || !dict_->entries.empty();
    case Kind::kCallable: return true;
  }
  return false;
}

std::string Value::type_name() const {
  switch (kind_) {
    case Kind::kUndefined: return "Undefined";
    case Kind::kNone: return "NoneType";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kString: return "str";
    case Kind::kList: return tuple_ ? "tuple" : "list";
    case Kind::kDict: return namespace_ ? "Namespace" : "dict";
    case Kind::kCallable: return "function";
  }
  return "object";
}

std::string Value::to_str() const {
  switch (kind_) {
    case Kind::kUndefined: return "";
    case Kind::kString: return s_;
    default: return to_repr();
  }
}

std::string Value::to_repr() const {
  switch (kind_) {
    case Kind::kUndefined: return "Undefined";
    case Kind::kNone: return "None";
    case Kind::kBool: return b_ ? "True" : "False";
    case Kind::kInt: return std::to_string(i_);
    case Kind::kFloat: return text::format_float(f_);
    case Kind::kString: return text::repr(s_);
    case Kind::kList: {
      std::string out = tuple_ ? "(" : "[";
      for (size_t k = 0; k < list_->size(); ++k) out += (k ? ", " : "") + (*list_)[k].to_repr();
      if (tuple_ && list_->size() == 1) out += ",";
      return out + (tuple_ ? ")" : "]");
    }
    case Kind::kDict: {
      std::string out = "{";
      for (size_t k = 0; k < dict_->entries.size(); ++k)
        out += (k ? ", " : "") + text::repr(dict_->entries[k].first) + ": " + dict_->entries[k].second.to_repr();
      out += "}";
      return namespace_ ? "<Namespace " + out + ">" : out;
    }
    case Kind::kCallable: return "<function " + fn_->first + ">";
  }
  return "";
}

std::string Value::to_json(int indent, const std::string* item_sep, const std::string* key_sep, bool sort_keys) const {
  // json.dumps' separators: (", ", ": ") on one line, ("," ": ") with an indent.
  const std::string items = item_sep ? *item_sep : indent < 0 ? ", " : ",", keys = key_sep ? *key_sep : ": ";
  std::string out;
  write_json(out, indent, 0, items, keys, sort_keys);
  return out;
}

void Value::write_json(std::string& out, int indent, int level, const std::string& item_sep, const std::string& key_sep,
                       bool sort_keys) const {
  auto newline = [&](int lvl) {
    if (indent >= 0) out += "\n" + std::string(static_cast<size_t>(indent * lvl), ' ');
  };
  switch (kind_) {
    case Kind::kNone: out += "null"; return;
    case Kind::kBool: out += b_ ? "true" : "false"; return;
    case Kind::kInt: out += std::to_string(i_); return;
    case Kind::kFloat:
      out += std::isnan(f_) ? "NaN" : std::isinf(f_) ? (f_ < 0 ? "-Infinity" : "Infinity") : text::format_float(f_);
      return;
    case Kind::kString: out += text::json_quote(s_); return;
    case Kind::kList: {
      if (list_->empty()) {
        out += "[]";
        return;
      }
      out += "[";
      for (size_t k = 0; k < list_->size(); ++k) {
        if (k) out += item_sep;
        newline(level + 1);
        (*list_)[k].write_json(out, indent, level + 1, item_sep, key_sep, sort_keys);
      }
      newline(level);
      out += "]";
      return;
    }
    case Kind::kDict: {
      if (namespace_) break;
      if (dict_->entries.empty()) {
        out += "{}";
        return;
      }
      std::vector<const std::pair<std::string, Value>*> order;
      for (const auto& e : dict_->entries) order.push_back(&e);
      if (sort_keys) std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->first < b->first; });
      out += "{";
      for (size_t k = 0; k < order.size(); ++k) {
        if (k) out += item_sep;
        newline(level + 1);
        out += text::json_quote(order[k]->first) + key_sep;
        order[k]->second.write_json(out, indent, level + 1, item_sep, key_sep, sort_keys);
      }
      newline(level);
      out += "}";
      return;
    }
    default: break;
  }
  throw TemplateError("Object of type " + type_name() + " is not JSON serializable");
}

const Value* Dict::find(std::string_view key) const {
  for (const auto& e : entries)
    if (e.first == key) return &e.second;
  return nullptr;
}

void Dict::set(const std::string& key, Value v) {
  for (auto& e : entries)
    if (e.first == key) {
      e.second = std::move(v);
      return;
    }
  entries.emplace_back(key, std::move(v));
}

Value Args::get(size_t index, std::string_view name) const {
  if (index < positional.size()) return positional[index];
  for (const auto& [k, v] : keywords)
    if (k == name) return v;
  return Value();
}

bool Args::has(size_t index, std::string_view name) const {
  if (index < positional.size()) return true;
  for (const auto& kw : keywords)
    if (kw.first == name) return true;
  return false;
}

void Args::check(const std::string& function, std::initializer_list<std::string_view> names) const {
  if (positional.size() > names.size())
    throw TemplateError(function + "() takes at most " + std::to_string(names.size()) + " arguments (" +
                        std::to_string(positional.size()) + " given)");
  for (const auto& kw : keywords)
    if (std::find(names.begin(), names.end(), kw.first) == names.end())
      throw TemplateError(function + "() got an unexpected keyword argument '" + kw.first + "'");
}

bool equal(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (a.is_number() && b.is_number()) {
    if (a.is_int() && b.is_int()) return a.as_int() == b.as_int();
    return a.as_float() == b.as_float();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::kUndefined:
    case K::kNone: return true;
    case K::kString: return a.str() == b.str();
    case K::kList: {
      if (a.is_tuple() != b.is_tuple() || a.items().size() != b.items().size()) return false;
      for (size_t k = 0; k < a.items().size(); ++k)
        if (!equal(a.items()[k], b.items()[k])) return false;
      return true;
    }
    case K::kDict: {
      if (a.is_namespace() || b.is_namespace()) return &a.entries() == &b.entries();
      if (a.entries().entries.size() != b.entries().entries.size()) return false;
      for (const auto& [k, v] : a.entries().entries) {
        const Value* other = b.entries().find(k);
        if (!other || !equal(v, *other)) return false;
      }
      return true;
    }
    case K::kCallable: return a.function_name() == b.function_name();
    default: return false;
  }
}

bool less(const Value& a, const Value& b, const char* op) {
  if (a.is_number() && b.is_number()) {
    if (a.is_int() && b.is_int()) return a.as_int() < b.as_int();
    return a.as_float() < b.as_float();
  }
  if (a.is_string() && b.is_string()) return a.str() < b.str();  // UTF-8 byte order is code point order
  if (a.is_list() && b.is_list() && a.is_tuple() == b.is_tuple()) {
    const List &x = a.items(), &y = b.items();
    for (size_t k = 0; k < x.size() && k < y.size(); ++k)
      if (!equal(x[k], y[k])) return less(x[k], y[k], op);
    return x.size() < y.size();
  }
  a.defined(), b.defined();
  throw TemplateError(std::string("'") + op + "' not supported between instances of '" + a.type_name() + "' and '" +
                      b.type_name() + "'");
}

bool contains(const Value& container, const Value& item) {
  if (container.is_string()) {
    if (!item.is_string())
      throw TemplateError("'in <string>' requires string as left operand, not " + item.defined().type_name());
    return container.str().find(item.str()) != std::string::npos;
  }
  if (container.is_list()) {
    for (const Value& v : container.items())
      if (equal(v, item)) return true;
    return false;
  }
  if (container.is_dict() && !container.is_namespace()) return item.is_string() && container.entries().find(item.str());
  container.defined();
  throw TemplateError("argument of type '" + container.type_name() + "' is not iterable");
}

List iterate(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined: return {};
    case Value::Kind::kList: return v.items();
    case Value::Kind::kString: {
      List out;
      for (char32_t c : text::decode(v.str())) out.emplace_back(text::encode(std::u32string(1, c)));
      return out;
    }
    case Value::Kind::kDict:
      if (!v.is_namespace()) {
        List out;
        for (const auto& e : v.entries().entries) out.emplace_back(e.first);
        return out;
      }
      [[fallthrough]];
    default: throw TemplateError("'" + v.type_name() + "' object is not iterable");
  }
}

int64_t length(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined: return 0;
    case Value::Kind::kString: return text::length(v.str());
    case Value::Kind::kList: return static_cast<int64_t>(v.items().size());
    case Value::Kind::kDict:
      if (!v.is_namespace()) return static_cast<int64_t>(v.entries().entries.size());
      [[fallthrough]];
    default: throw TemplateError("object of type '" + v.type_name() + "' has no len()");
  }
}

}  // namespace runner::jinja
