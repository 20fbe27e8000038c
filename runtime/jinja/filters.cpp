#include "runtime/jinja/filters.h"

#include <algorithm>
#include <cmath>

#include "runtime/jinja/is_tests.h"
#include "runtime/jinja/methods.h"
#include "runtime/jinja/operators.h"
#include "runtime/jinja/text.h"

namespace runner::jinja {

namespace {

// Jinja's attribute getter for filters: "a.b.0" walks items (digits index lists).
Value lookup_path(const Value& v, const std::string& path) {
  Value cur = v;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit);
    cur = get_item(cur, digits ? Value(static_cast<int64_t>(std::stoll(part))) : Value(part));
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
}

// The sort/unique/min/max key: the attribute when asked, lower-cased strings unless case_sensitive.
Value sort_key(const Value& v, const Value& attribute, bool case_sensitive) {
  Value key = attribute.is_string() ? lookup_path(v, attribute.str()) : v;
  if (!case_sensitive && key.is_string()) return Value(text::lower(key.str()));
  return key;
}

List sorted(List items, const Value& attribute, bool case_sensitive, bool reverse) {
  std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
    const Value ka = sort_key(a, attribute, case_sensitive), kb = sort_key(b, attribute, case_sensitive);
    return reverse ? less(kb, ka) : less(ka, kb);
  });
  return items;
}

Value to_int(const Value& v, const Value& fallback, int base) {
  if (v.is_int()) return Value(v.as_int());
  if (v.kind() == Value::Kind::kFloat) return std::isfinite(v.as_float()) ? Value(static_cast<int64_t>(std::trunc(v.as_float()))) : fallback;
  if (v.is_string()) {
    const std::string s = text::strip(v.str(), nullptr, true, true);
    try {
      size_t used = 0;
      const long long n = std::stoll(s, &used, base);
      if (used == s.size()) return Value(static_cast<int64_t>(n));
    } catch (const std::exception&) {
    }
    try {
      size_t used = 0;
      const double d = std::stod(s, &used);
      if (used == s.size() && std::isfinite(d)) return Value(static_cast<int64_t>(std::trunc(d)));
    } catch (const std::exception&) {
    }
  }
  return fallback;
}

Value to_float(const Value& v, const Value& fallback) {
  if (v.is_number()) return Value(v.as_float());
  if (v.is_string()) {
    const std::string s = text::strip(v.str(), nullptr, true, true);
    try {
      size_t used = 0;
      const double d = std::stod(s, &used);
      if (used == s.size()) return Value(d);
    } catch (const std::exception&) {
    }
  }
  return fallback;
}

// Jinja's indent: every line but the first (and, with `first`, the first too) gets the
// prefix; blank lines only with `blank`.
std::string indent(const std::string& s, const Value& width, bool first, bool blank) {
  const std::string prefix = width.is_string() ? width.str() : std::string(static_cast<size_t>(width.is_int() ? width.as_int() : 4), ' ');
  const List lines = call_method(Value(s + "\n"), "splitlines", Args{}).items();
  std::string out;
  for (size_t k = 0; k < lines.size(); ++k) {
    const std::string& line = lines[k].str();
    if (k > 0) out += "\n" + ((blank || !line.empty()) ? prefix : std::string());
    out += line;
  }
  return first ? prefix + out : out;
}

std::string ascii_escape(const std::string& json) {  // json.dumps(ensure_ascii=True)
  std::string out;
  char buf[16];
  for (char32_t c : text::decode(json)) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x10000) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c)), out += buf;
    } else {
      const char32_t v = c - 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(0xD800 + (v >> 10))), out += buf;
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(0xDC00 + (v & 0x3FF))), out += buf;
    }
  }
  return out;
}

// select/reject (attr empty) and selectattr/rejectattr: args are [attr,] test, test args...
Value select(const Value& input, const Args& args, bool by_attr, bool keep) {
  const size_t skip = by_attr ? 1 : 0;
  const Value attr = by_attr ? args.get(0, "attr") : Value();
  const bool has_test = args.positional.size() > skip;
  const std::string test = has_test ? args.positional[skip].to_str() : "";
  Args test_args;
  for (size_t k = skip + 1; k < args.positional.size(); ++k) test_args.positional.push_back(args.positional[k]);
  List out;
  for (const Value& item : iterate(input)) {
    const Value v = by_attr ? lookup_path(item, attr.to_str()) : item;
    const bool pass = has_test ? apply_test(test, v, test_args) : v.truthy();
    if (pass == keep) out.push_back(item);
  }
  return Value::list(std::move(out));
}

Value aggregate(const Value& input, const Args& args, bool max) {
  args.check(max ? "max" : "min", {"case_sensitive", "attribute"});
  const List items = iterate(input);
  if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
  const Value attribute = args.get(1, "attribute");
  const bool cs = args.get(0, "case_sensitive").truthy();
  const Value* best = &items[0];
  for (const Value& v : items) {
    const Value kv = sort_key(v, attribute, cs), kb = sort_key(*best, attribute, cs);
    if (max ? less(kb, kv) : less(kv, kb)) best = &v;
  }
  return *best;
}

}  // namespace

bool is_filter(const std::string& name) {
  static const char* const kNames[] = {"abs", "attr", "capitalize", "count", "d", "default", "dictsort", "first", "float",
                                       "format", "indent", "int", "items", "join", "last", "length", "list", "lower", "map",
                                       "max", "min", "reject", "rejectattr", "replace", "reverse", "round", "safe", "select",
                                       "selectattr", "sort", "string", "sum", "title", "tojson", "trim", "unique", "upper"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

Value apply_filter(const std::string& name, const Value& input, const Args& args) {
  const Value& in = input;
  if (name == "default" || name == "d") {
    args.check(name, {"default_value", "boolean"});
    const bool use = in.is_undefined() || (args.get(1, "boolean").truthy() && !in.truthy());
    return use ? (args.has(0, "default_value") ? args.get(0, "default_value") : Value("")) : in;
  }
  if (name == "length" || name == "count") return Value(length(in));
  if (name == "string") return Value(in.to_str());
  if (name == "safe") return in;
  if (name == "list") return Value::list(iterate(in));
  if (name == "trim") {
    args.check(name, {"chars"});
    const Value chars = args.get(0, "chars");
    return Value(text::strip(in.to_str(), chars.is_string() ? &chars.str() : nullptr, true, true));
  }
  if (name == "upper") return Value(text::upper(in.to_str()));
  if (name == "lower") return Value(text::lower(in.to_str()));
  if (name == "capitalize") return Value(text::capitalize(in.to_str()));
  if (name == "title") return Value(text::jinja_title(in.to_str()));
  if (name == "replace") {
    args.check(name, {"old", "new", "count"});
    const Value count = args.get(2, "count");
    return Value(text::replace(in.to_str(), args.get(0, "old").to_str(), args.get(1, "new").to_str(), count.is_int() ? count.as_int() : -1));
  }
  if (name == "tojson") {
    args.check(name, {"ensure_ascii", "indent", "separators", "sort_keys"});
    const Value indent = args.get(1, "indent"), seps = args.get(2, "separators");
    std::string item_sep, key_sep;
    if (seps.is_list() && seps.items().size() == 2) item_sep = seps.items()[0].to_str(), key_sep = seps.items()[1].to_str();
    const int width = indent.is_int() ? static_cast<int>(indent.as_int()) : -1;
    const std::string json = in.to_json(width, seps.is_list() ? &item_sep : nullptr, seps.is_list() ? &key_sep : nullptr,
                                        args.get(3, "sort_keys").truthy());
    return Value(args.get(0, "ensure_ascii").truthy() ? ascii_escape(json) : json);
  }
  if (name == "first" || name == "last") {
    const List items = iterate(in);
    if (items.empty()) return Value::undefined("No " + name + " item, sequence was empty.");
    return name == "first" ? items.front() : items.back();
  }
  if (name == "join") {
    args.check(name, {"d", "attribute"});
    const Value sep = args.get(0, "d"), attribute = args.get(1, "attribute");
    std::string out;
    bool first = true;
    for (const Value& v : iterate(in)) {
      out += (first ? "" : sep.to_str()) + (attribute.is_string() ? lookup_path(v, attribute.str()) : v).to_str();
      first = false;
    }
    return Value(std::move(out));
  }
  if (name == "items") {
    if (in.is_undefined()) return Value::list({});
    if (!in.is_dict() || in.is_namespace()) throw TemplateError("Can only get item pairs from a mapping.");
    return call_method(in, "items", Args{});
  }
  if (name == "dictsort") {
    args.check(name, {"case_sensitive", "by", "reverse"});
    if (!in.is_dict()) throw TemplateError("dictsort expects a mapping");
    const bool by_value = args.get(1, "by").to_str() == "value";
    List pairs = call_method(in, "items", Args{}).items();
    const Value position(static_cast<int64_t>(by_value ? 1 : 0));
    std::stable_sort(pairs.begin(), pairs.end(), [&](const Value& a, const Value& b) {
      const Value ka = sort_key(get_item(a, position), Value(), args.get(0, "case_sensitive").truthy());
      const Value kb = sort_key(get_item(b, position), Value(), args.get(0, "case_sensitive").truthy());
      return args.get(2, "reverse").truthy() ? less(kb, ka) : less(ka, kb);
    });
    return Value::list(std::move(pairs));
  }
  if (name == "int") {
    args.check(name, {"default", "base"});
    const Value base = args.get(1, "base");
    return to_int(in, args.has(0, "default") ? args.get(0, "default") : Value(0), base.is_int() ? static_cast<int>(base.as_int()) : 10);
  }
  if (name == "float") {
    args.check(name, {"default"});
    return to_float(in, args.has(0, "default") ? args.get(0, "default") : Value(0.0));
  }
  if (name == "abs") {
    if (!in.is_number()) throw TemplateError("bad operand type for abs(): '" + in.defined().type_name() + "'");
    return in.is_int() ? Value(static_cast<int64_t>(std::llabs(in.as_int()))) : Value(std::fabs(in.as_float()));
  }
  if (name == "round") {
    args.check(name, {"precision", "method"});
    const Value p = args.get(0, "precision"), m = args.get(1, "method");
    const double scale = std::pow(10.0, p.is_int() ? static_cast<double>(p.as_int()) : 0.0);
    const std::string method = m.is_string() ? m.str() : "common";
    const double x = in.defined().as_float() * scale;
    const double r = method == "ceil" ? std::ceil(x) : method == "floor" ? std::floor(x) : std::nearbyint(x);
    return Value(r / scale);
  }
  if (name == "reverse") {
    if (in.is_string()) {
      std::u32string cps = text::decode(in.str());
      std::reverse(cps.begin(), cps.end());
      return Value(text::encode(cps));
    }
    List items = iterate(in.defined());
    std::reverse(items.begin(), items.end());
    return Value::list(std::move(items));
  }
  if (name == "sort") {
    args.check(name, {"reverse", "case_sensitive", "attribute"});
    return Value::list(sorted(iterate(in), args.get(2, "attribute"), args.get(1, "case_sensitive").truthy(), args.get(0, "reverse").truthy()));
  }
  if (name == "unique") {
    args.check(name, {"case_sensitive", "attribute"});
    List out, seen;
    for (const Value& v : iterate(in)) {
      const Value key = sort_key(v, args.get(1, "attribute"), args.get(0, "case_sensitive").truthy());
      if (std::none_of(seen.begin(), seen.end(), [&](const Value& s) { return equal(s, key); })) seen.push_back(key), out.push_back(v);
    }
    return Value::list(std::move(out));
  }
  if (name == "max" || name == "min") return aggregate(in, args, name == "max");
  if (name == "sum") {
    args.check(name, {"attribute", "start"});
    Value total = args.has(1, "start") ? args.get(1, "start") : Value(0);
    const Value attribute = args.get(0, "attribute");
    for (const Value& v : iterate(in)) total = binary_op("+", total, attribute.is_string() ? lookup_path(v, attribute.str()) : v);
    return total;
  }
  if (name == "map") {
    List out;
    for (const auto& [k, v] : args.keywords)
      if (k != "attribute" && k != "default" && args.positional.empty()) throw TemplateError("map() got an unexpected keyword argument '" + k + "'");
    const Value attribute = args.get(args.positional.size(), "attribute");
    if (attribute.is_string()) {
      const Value fallback = args.get(args.positional.size(), "default");
      for (const Value& v : iterate(in)) {
        Value got = lookup_path(v, attribute.str());
        out.push_back(got.is_undefined() && !fallback.is_undefined() ? fallback : got);
      }
      return Value::list(std::move(out));
    }
    if (args.positional.empty()) throw TemplateError("map() needs a filter name or attribute=");
    Args rest;
    rest.positional.assign(args.positional.begin() + 1, args.positional.end());
    rest.keywords = args.keywords;
    const std::string filter = args.positional[0].to_str();
    for (const Value& v : iterate(in)) out.push_back(apply_filter(filter, v, rest));
    return Value::list(std::move(out));
  }
  if (name == "select" || name == "reject") return select(in, args, false, name == "select");
  if (name == "selectattr" || name == "rejectattr") return select(in, args, true, name == "selectattr");
  if (name == "attr") return get_attr(in, args.get(0, "name").to_str());
  if (name == "indent") {
    args.check(name, {"width", "first", "blank"});
    return Value(indent(in.to_str(), args.get(0, "width"), args.get(1, "first").truthy(), args.get(2, "blank").truthy()));
  }
  if (name == "format") return binary_op("%", Value(in.to_str()), Value::list(args.positional, true));
  throw TemplateError("no filter named '" + name + "'");
}

}  // namespace runner::jinja
