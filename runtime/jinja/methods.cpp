#include "runtime/jinja/methods.h"

#include <algorithm>
#include <set>

#include <unicode/uchar.h>

#include "runtime/jinja/text.h"

namespace runner::jinja {

namespace {

const std::set<std::string>& str_methods() {
  static const std::set<std::string> k = {"strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "startswith",
                                          "endswith", "upper", "lower", "title", "capitalize", "replace", "find",
                                          "rfind", "count", "join", "format", "isdigit", "isalpha", "isalnum",
                                          "isspace", "isupper", "islower"};
  return k;
}
const std::set<std::string>& dict_methods() {
  static const std::set<std::string> k = {"get", "items", "keys", "values"};
  return k;
}
const std::set<std::string>& list_methods() {
  static const std::set<std::string> k = {"index", "count"};
  return k;
}

bool has_method(const Value& obj, const std::string& name) {
  if (obj.is_string()) return str_methods().count(name) > 0;
  if (obj.is_dict() && !obj.is_namespace()) return dict_methods().count(name) > 0;
  if (obj.is_list()) return list_methods().count(name) > 0;
  return false;
}

std::string object_name(const Value& v) { return v.is_none() ? "'None'" : "'" + v.type_name() + " object'"; }

std::string str_arg(const Args& args, size_t index, const char* name, const char* method) {
  const Value v = args.get(index, name);
  if (!v.is_string()) throw TemplateError(std::string(method) + "() argument must be str, not " + v.type_name());
  return v.str();
}

bool affix(const std::string& s, const Value& arg, bool prefix) {
  auto one = [&](const Value& a) {
    if (!a.is_string()) throw TemplateError(std::string(prefix ? "startswith" : "endswith") + " first arg must be str or a tuple of str");
    const std::string& p = a.str();
    return s.size() >= p.size() && (prefix ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
  };
  if (arg.is_list()) return std::any_of(arg.items().begin(), arg.items().end(), one);
  return one(arg);
}

List split_lines(const std::string& s, bool keepends) {
  List out;
  const std::u32string cps = text::decode(s);
  size_t start = 0;
  for (size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i];
    const bool brk = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || (c >= 0x1C && c <= 0x1E) || c == 0x85 ||
                     c == 0x2028 || c == 0x2029;
    if (!brk) continue;
    size_t end = i + 1;
    if (c == '\r' && end < cps.size() && cps[end] == '\n') ++end;
    out.emplace_back(text::encode(std::u32string_view(cps).substr(start, (keepends ? end : i) - start)));
    start = end;
    i = end - 1;
  }
  if (start < cps.size()) out.emplace_back(text::encode(std::u32string_view(cps).substr(start)));
  return out;
}

// str.format with {}, {0} and {name} fields (no format specs).
std::string format(const std::string& fmt, const Args& args) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    const char c = fmt[i];
    if ((c == '{' || c == '}') && i + 1 < fmt.size() && fmt[i + 1] == c) {
      out += c, ++i;
      continue;
    }
    if (c == '}') throw TemplateError("Single '}' encountered in format string");
    if (c != '{') {
      out += c;
      continue;
    }
    const size_t close = fmt.find('}', i);
    if (close == std::string::npos) throw TemplateError("Single '{' encountered in format string");
    const std::string field = fmt.substr(i + 1, close - i - 1);
    if (field.find_first_of(":!") != std::string::npos) throw TemplateError("format specs in str.format are not supported");
    Value v;
    if (field.empty()) v = args.get(auto_index++, "");
    else if (std::all_of(field.begin(), field.end(), ::isdigit)) v = args.get(std::stoul(field), "");
    else v = args.get(args.positional.size(), field);
    if (v.is_undefined()) throw TemplateError("Replacement index or key '" + field + "' is missing in format arguments");
    out += v.to_str();
    i = close;
  }
  return out;
}

// Python's slice index rules (PySlice_AdjustIndices) for a sequence of length n.
void adjust(int64_t n, const Value& start, const Value& stop, int64_t step, int64_t& b, int64_t& e) {
  auto index = [](const Value& v, const char* what) {
    if (!v.is_int()) throw TemplateError(std::string("slice ") + what + " must be an integer or None");
    return v.as_int();
  };
  const bool has_start = !start.is_undefined() && !start.is_none(), has_stop = !stop.is_undefined() && !stop.is_none();
  if (step > 0) {
    b = has_start ? index(start, "start") : 0;
    e = has_stop ? index(stop, "stop") : n;
    if (b < 0) b = std::max<int64_t>(0, b + n);
    if (e < 0) e = std::max<int64_t>(0, e + n);
    b = std::min(b, n), e = std::min(e, n);
  } else {
    b = has_start ? index(start, "start") : n - 1;
    e = has_stop ? index(stop, "stop") : -1 - n;
    if (b < 0) b = std::max<int64_t>(-1, b + n);
    if (e < 0) e = std::max<int64_t>(-1, e + n);
    b = std::min(b, n - 1), e = std::min(e, n - 1);
  }
}

}  // namespace

Value get_attr(const Value& obj, const std::string& name) {
  obj.defined();
  if (has_method(obj, name)) {
    Value self = obj;
    return Value::function(name, [self, name](const Args& args) { return call_method(self, name, args); });
  }
  if (obj.is_dict())
    if (const Value* v = obj.entries().find(name)) return *v;
  return Value::undefined(object_name(obj) + " has no attribute '" + name + "'");
}

Value get_item(const Value& obj, const Value& key) {
  obj.defined();
  if (obj.is_dict() && key.is_string()) {
    if (const Value* v = obj.entries().find(key.str())) return *v;
  } else if ((obj.is_list() || obj.is_string()) && key.is_int()) {
    const int64_t n = length(obj);
    int64_t i = key.as_int();
    if (i < 0) i += n;
    if (i >= 0 && i < n) {
      if (obj.is_list()) return obj.items()[static_cast<size_t>(i)];
      return Value(text::encode(text::decode(obj.str()).substr(static_cast<size_t>(i), 1)));
    }
    return Value::undefined(obj.type_name() + " object has no element " + std::to_string(key.as_int()));
  }
  if (key.is_string()) return get_attr(obj, key.str());
  return Value::undefined(object_name(obj) + " has no element " + key.to_repr());
}

Value get_slice(const Value& obj, const Value& start, const Value& stop, const Value& step_value) {
  obj.defined();
  if (!obj.is_list() && !obj.is_string()) throw TemplateError(object_name(obj) + " is not subscriptable");
  int64_t step = 1;
  if (!step_value.is_undefined() && !step_value.is_none()) {
    if (!step_value.is_int()) throw TemplateError("slice step must be an integer or None");
    step = step_value.as_int();
  }
  if (step == 0) throw TemplateError("slice step cannot be zero");
  int64_t b = 0, e = 0;
  if (obj.is_string()) {
    const std::u32string cps = text::decode(obj.str());
    adjust(static_cast<int64_t>(cps.size()), start, stop, step, b, e);
    std::u32string out;
    for (int64_t i = b; step > 0 ? i < e : i > e; i += step) out += cps[static_cast<size_t>(i)];
    return Value(text::encode(out));
  }
  adjust(static_cast<int64_t>(obj.items().size()), start, stop, step, b, e);
  List out;
  for (int64_t i = b; step > 0 ? i < e : i > e; i += step) out.push_back(obj.items()[static_cast<size_t>(i)]);
  return Value::list(std::move(out), obj.is_tuple());
}

Value call_method(const Value& obj, const std::string& name, const Args& args) {
  if (!has_method(obj, name)) return get_attr(obj, name).defined().call(args);
  if (obj.is_dict()) {
    const Dict& d = obj.entries();
    if (name == "get") {
      args.check("get", {"key", "default"});
      const Value key = args.get(0, "key");
      const Value* v = key.is_string() ? d.find(key.str()) : nullptr;
      return v ? *v : args.has(1, "default") ? args.get(1, "default") : Value::none();
    }
    args.check(name, {});
    List out;
    for (const auto& [k, v] : d.entries)
      out.push_back(name == "items" ? Value::list({Value(k), v}, true) : name == "keys" ? Value(k) : v);
    return Value::list(std::move(out));
  }
  if (obj.is_list()) {
    args.check(name, {"value"});
    const Value target = args.get(0, "value");
    int64_t n = 0;
    for (size_t i = 0; i < obj.items().size(); ++i) {
      if (!equal(obj.items()[i], target)) continue;
      if (name == "index") return Value(static_cast<int64_t>(i));
      ++n;
    }
    if (name == "index") throw TemplateError(target.to_repr() + " is not in list");
    return Value(n);
  }
  const std::string& s = obj.str();
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    args.check(name, {"chars"});
    const Value chars = args.get(0, "chars");
    const std::string* set = chars.is_string() ? &chars.str() : nullptr;
    if (!set && !chars.is_undefined() && !chars.is_none()) throw TemplateError(name + " arg must be None or str");
    return Value(text::strip(s, set, name != "rstrip", name != "lstrip"));
  }
  if (name == "split" || name == "rsplit") {
    args.check(name, {"sep", "maxsplit"});
    const Value sep = args.get(0, "sep"), max = args.get(1, "maxsplit");
    if (!sep.is_string() && !sep.is_undefined() && !sep.is_none()) throw TemplateError("must be str or None, not " + sep.type_name());
    const std::string* sep_str = sep.is_string() ? &sep.str() : nullptr;
    if (sep_str && sep_str->empty()) throw TemplateError("empty separator");
    const int64_t maxsplit = max.is_int() ? max.as_int() : -1;
    List out;
    for (auto& piece : text::split(s, sep_str, maxsplit, name == "rsplit")) out.emplace_back(std::move(piece));
    return Value::list(std::move(out));
  }
  if (name == "splitlines") {
    args.check(name, {"keepends"});
    return Value::list(split_lines(s, args.get(0, "keepends").truthy()));
  }
  if (name == "startswith" || name == "endswith") {
    args.check(name, {"prefix"});
    return Value(affix(s, args.get(0, "prefix").defined(), name == "startswith"));
  }
  if (name == "upper" || name == "lower" || name == "title" || name == "capitalize") {
    args.check(name, {});
    return Value(name == "upper" ? text::upper(s) : name == "lower" ? text::lower(s) : name == "title" ? text::py_title(s) : text::capitalize(s));
  }
  if (name == "replace") {
    args.check(name, {"old", "new", "count"});
    const Value count = args.get(2, "count");
    return Value(text::replace(s, str_arg(args, 0, "old", "replace"), str_arg(args, 1, "new", "replace"),
                               count.is_int() ? count.as_int() : -1));
  }
  if (name == "find" || name == "rfind") {
    args.check(name, {"sub"});
    return Value(text::find(s, str_arg(args, 0, "sub", name.c_str()), name == "rfind"));
  }
  if (name == "count") {
    args.check(name, {"sub"});
    return Value(text::count(s, str_arg(args, 0, "sub", "count")));
  }
  if (name == "join") {
    args.check(name, {"iterable"});
    std::string out;
    bool first = true;
    for (const Value& v : iterate(args.get(0, "iterable").defined())) {
      if (!v.is_string()) throw TemplateError("sequence item: expected str instance, " + v.type_name() + " found");
      out += (first ? "" : s) + v.str();
      first = false;
    }
    return Value(std::move(out));
  }
  if (name == "format") return Value(format(s, args));
  args.check(name, {});
  const std::u32string cps = text::decode(s);
  auto all = [&](auto pred) { return !cps.empty() && std::all_of(cps.begin(), cps.end(), pred); };
  if (name == "isspace") return Value(all(text::is_space));
  if (name == "isupper") return Value(text::is_upper(s));
  if (name == "islower") return Value(text::is_lower(s));
  if (name == "isdigit") return Value(all([](char32_t c) { return u_isdigit(static_cast<UChar32>(c)) != 0; }));
  if (name == "isalpha") return Value(all([](char32_t c) { return u_isalpha(static_cast<UChar32>(c)) != 0; }));
  return Value(all([](char32_t c) { return u_isalnum(static_cast<UChar32>(c)) != 0; }));  // isalnum
}

}  // namespace runner::jinja
