#include "runtime/jinja/operators.h"

#include <cmath>
#include <cstdio>

#include "runtime/jinja/text.h"

namespace runner::jinja {

namespace {

[[noreturn]] void unsupported(const std::string& op, const Value& a, const Value& b) {
  throw TemplateError("unsupported operand type(s) for " + op + ": '" + a.type_name() + "' and '" + b.type_name() + "'");
}

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

Value repeat(const Value& seq, int64_t n) {
  if (seq.is_string()) {
    std::string out;
    for (int64_t k = 0; k < n; ++k) out += seq.str();
    return Value(std::move(out));
  }
  List out;
  for (int64_t k = 0; k < n; ++k) out.insert(out.end(), seq.items().begin(), seq.items().end());
  return Value::list(std::move(out), seq.is_tuple());
}

// printf-style "%s" % args for the conversions templates use: s r d i f %.
Value format(const std::string& fmt, const Value& args) {
  const List values = args.is_tuple() ? args.items() : List{args};
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (++i >= fmt.size()) throw TemplateError("incomplete format");
    std::string spec = "%";
    while (i < fmt.size() && std::string("0123456789.-+ #").find(fmt[i]) != std::string::npos) spec += fmt[i++];
    const char conv = i < fmt.size() ? fmt[i] : '\0';
    if (conv == '%') {
      out += '%';
      continue;
    }
    if (next >= values.size()) throw TemplateError("not enough arguments for format string");
    const Value& v = values[next++];
    char buf[128];
    if (conv == 's' || conv == 'r') {
      const std::string s = conv == 's' ? v.to_str() : v.to_repr();
      std::snprintf(buf, sizeof buf, (spec + "s").c_str(), s.c_str());
      out += spec == "%" ? s : std::string(buf);
    } else if (conv == 'd' || conv == 'i') {
      if (!v.is_number()) throw TemplateError("%d format: a real number is required, not " + v.type_name());
      std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), static_cast<long long>(v.is_int() ? v.as_int() : std::trunc(v.as_float())));
      out += buf;
    } else if (conv == 'f') {
      if (!v.is_number()) throw TemplateError("must be real number, not " + v.type_name());
      std::snprintf(buf, sizeof buf, (spec + "f").c_str(), v.as_float());
      out += buf;
    } else {
      throw TemplateError(std::string("unsupported format character '") + conv + "'");
    }
  }
  if (next < values.size()) throw TemplateError("not all arguments converted during string formatting");
  return Value(std::move(out));
}

// Python's ints do not overflow; ours are 64 bits, so a result beyond them is an error, never
// a wrapped number in the rendered prompt.
[[noreturn]] void overflow(const std::string& op, const Value& a, const Value& b) {
  throw TemplateError("integer overflow: " + a.to_str() + " " + op + " " + b.to_str() + " exceeds 64 bits");
}

}  // namespace

Value binary_op(const std::string& op, const Value& a, const Value& b) {
  if (op == "~") return Value(a.to_str() + b.to_str());
  a.defined(), b.defined();
  const bool ints = a.is_int() && b.is_int(), nums = a.is_number() && b.is_number();
  if (op == "+") {
    if (ints) {
      int64_t r;
      if (__builtin_add_overflow(a.as_int(), b.as_int(), &r)) overflow(op, a, b);
      return Value(r);
    }
    if (nums) return Value(a.as_float() + b.as_float());
    if (a.is_string() && b.is_string()) return Value(a.str() + b.str());
    if (a.is_list() && b.is_list() && a.is_tuple() == b.is_tuple()) {
      List out = a.items();
      out.insert(out.end(), b.items().begin(), b.items().end());
      return Value::list(std::move(out), a.is_tuple());
    }
    if (a.is_string()) throw TemplateError("can only concatenate str (not \"" + b.type_name() + "\") to str");
    if (a.is_list()) throw TemplateError("can only concatenate list (not \"" + b.type_name() + "\") to list");
    unsupported("+", a, b);
  }
  if (op == "-") {
    if (ints) {
      int64_t r;
      if (__builtin_sub_overflow(a.as_int(), b.as_int(), &r)) overflow(op, a, b);
      return Value(r);
    }
    if (nums) return Value(a.as_float() - b.as_float());
    unsupported("-", a, b);
  }
  if (op == "*") {
    if (ints) {
      int64_t r;
      if (__builtin_mul_overflow(a.as_int(), b.as_int(), &r)) overflow(op, a, b);
      return Value(r);
    }
    if (nums) return Value(a.as_float() * b.as_float());
    if ((a.is_string() || a.is_list()) && b.is_int()) return repeat(a, b.as_int());
    if (a.is_int() && (b.is_string() || b.is_list())) return repeat(b, a.as_int());
    unsupported("*", a, b);
  }
  if (op == "%" && a.is_string()) return format(a.str(), b);
  if (!nums) unsupported(op, a, b);
  const bool zero = ints ? b.as_int() == 0 : b.as_float() == 0;
  if (op == "/") {
    if (zero) throw TemplateError("division by zero");
    return Value(a.as_float() / b.as_float());
  }
  if (op == "//") {
    if (zero) throw TemplateError("integer division or modulo by zero");
    if (ints) return Value(floor_div(a.as_int(), b.as_int()));
    return Value(std::floor(a.as_float() / b.as_float()));
  }
  if (op == "%") {
    if (zero) throw TemplateError("integer division or modulo by zero");
    if (ints) return Value(a.as_int() - floor_div(a.as_int(), b.as_int()) * b.as_int());
    const double m = std::fmod(a.as_float(), b.as_float());
    return Value(m != 0 && ((m < 0) != (b.as_float() < 0)) ? m + b.as_float() : m);
  }
  if (op == "**") {
    if (ints && b.as_int() >= 0) {  // by squaring, checked (a square needed by a later bit that overflows means the result does)
      int64_t r = 1, base = a.as_int();
      for (int64_t e = b.as_int(); e > 0;) {
        if ((e & 1) && __builtin_mul_overflow(r, base, &r)) overflow(op, a, b);
        e >>= 1;
        if (e > 0 && __builtin_mul_overflow(base, base, &base)) overflow(op, a, b);
      }
      return Value(r);
    }
    return Value(std::pow(a.as_float(), b.as_float()));
  }
  throw TemplateError("unknown operator " + op);
}

Value unary_op(const std::string& op, const Value& a) {
  a.defined();
  if (!a.is_number()) throw TemplateError("bad operand type for unary " + op + ": '" + a.type_name() + "'");
  if (op == "+") return a.is_int() ? Value(a.as_int()) : a;
  return a.is_int() ? Value(-a.as_int()) : Value(-a.as_float());
}

}  // namespace runner::jinja
