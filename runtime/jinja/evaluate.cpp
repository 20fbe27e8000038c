#include "runtime/jinja/evaluate.h"

#include <ctime>

#include "runtime/jinja/clock.h"
#include "runtime/jinja/filters.h"
#include "runtime/jinja/is_tests.h"
#include "runtime/jinja/methods.h"
#include "runtime/jinja/operators.h"

namespace runner::jinja {

namespace {

using EK = Expr::Kind;
using SK = Stmt::Kind;

constexpr int64_t kMaxRange = 100000;  // Jinja's sandbox refuses larger ranges too
constexpr int kMaxMacroDepth = 256;    // a runaway recursive macro fails instead of overflowing the stack

struct Scope {
  std::vector<std::pair<std::string, Value>> vars;
  Scope* parent = nullptr;
  void set(const std::string& name, Value v) {
    for (auto& [k, x] : vars)
      if (k == name) {
        x = std::move(v);
        return;
      }
    vars.emplace_back(name, std::move(v));
  }
};

Value range(const Args& args) {
  for (const Value& v : args.positional)
    if (!v.is_int()) throw TemplateError("range() arguments must be integers, not " + v.type_name());
  const size_t n = args.positional.size();
  if (n < 1 || n > 3) throw TemplateError("range expected 1 to 3 arguments, got " + std::to_string(n));
  const int64_t start = n == 1 ? 0 : args.positional[0].as_int(), stop = args.positional[n == 1 ? 0 : 1].as_int();
  const int64_t step = n == 3 ? args.positional[2].as_int() : 1;
  if (step == 0) throw TemplateError("range() arg 3 must not be zero");
  List out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (static_cast<int64_t>(out.size()) >= kMaxRange) throw TemplateError("range too big");
    out.emplace_back(i);
  }
  return Value::list(std::move(out));
}

Value strftime_now(const Args& args) {
  const std::string fmt = args.get(0, "format").defined().to_str();
  const std::time_t now = render_time();  // one frozen time per run (clock.h)
  std::tm local{};
  localtime_r(&now, &local);
  char buf[512];
  const size_t n = std::strftime(buf, sizeof buf, fmt.c_str(), &local);
  return Value(std::string(buf, n));
}

Value make_dict(const Args& args, bool is_namespace) {
  Dict d;
  if (!args.positional.empty()) {
    const Value& init = args.positional[0];
    if (!init.is_dict()) throw TemplateError("namespace() and dict() take a mapping or keyword arguments");
    d = init.entries();
  }
  for (const auto& [k, v] : args.keywords) d.set(k, v);
  return Value::dict(std::move(d), is_namespace);
}

class Interpreter {
 public:
  Interpreter(const Program& program, const Value& context) : program_(program) {
    if (context.is_dict())
      for (const auto& [k, v] : context.entries().entries) root_.set(k, v);
  }

  Rendered run() {
    out_ = &result_.text;
    exec(program_.body, root_);
    return std::move(result_);
  }

 private:
  enum class Flow { kNormal, kBreak, kContinue };

  Value lookup(const std::string& name, const Scope& scope) const {
    for (const Scope* s = &scope; s; s = s->parent)
      for (const auto& [k, v] : s->vars)
        if (k == name) return v;
    if (name == "range") return Value::function("range", range);
    if (name == "namespace") return Value::function("namespace", [](const Args& a) { return make_dict(a, true); });
    if (name == "dict") return Value::function("dict", [](const Args& a) { return make_dict(a, false); });
    if (name == "strftime_now") return Value::function("strftime_now", strftime_now);
    if (name == "raise_exception")
      return Value::function("raise_exception", [](const Args& a) -> Value { throw TemplateError(a.get(0, "message").to_str()); });
    return Value::undefined("'" + name + "' is undefined");
  }

  Flow exec(const Body& body, Scope& scope) {
    for (const StmtPtr& s : body) {
      const Flow f = exec_stmt(*s, scope);
      if (f != Flow::kNormal) return f;
    }
    return Flow::kNormal;
  }

  Flow exec_stmt(const Stmt& s, Scope& scope) {
    try {
      return exec_stmt_unchecked(s, scope);
    } catch (TemplateError& e) {
      if (e.line == 0) e.line = s.line;
      throw;
    }
  }

  Flow exec_stmt_unchecked(const Stmt& s, Scope& scope) {
    switch (s.kind) {
      case SK::kText: *out_ += s.text; return Flow::kNormal;
      case SK::kOutput: *out_ += eval(*s.exprs[0], scope).to_str(); return Flow::kNormal;
      case SK::kIf:
        for (size_t k = 0; k < s.exprs.size(); ++k)
          if (eval(*s.exprs[k], scope).truthy()) return exec(s.bodies[k], scope);
        return s.bodies.size() > s.exprs.size() ? exec(s.bodies.back(), scope) : Flow::kNormal;
      case SK::kFor: return exec_for(s, scope);
      case SK::kSet: {
        Value v = eval(*s.exprs[0], scope);
        if (!s.attr.empty()) {
          const Value target = lookup(s.names[0], scope);
          if (!target.is_namespace()) throw TemplateError("cannot assign attribute on non-namespace object");
          target.entries().set(s.attr, std::move(v));
        } else {
          assign(s.names, v, scope);
        }
        return Flow::kNormal;
      }
      case SK::kSetBlock: scope.set(s.names[0], Value(capture(s.bodies[0], scope))); return Flow::kNormal;
      case SK::kMacro: scope.set(s.text, macro(s)); return Flow::kNormal;
      case SK::kGeneration: {
        const bool tracked = out_ == &result_.text;  // transformers tracks the top-level output only
        const size_t start = out_->size();
        const Flow f = exec(s.bodies[0], scope);
        if (tracked) result_.generation.emplace_back(start, out_->size());
        return f;
      }
      case SK::kBreak: return Flow::kBreak;
      case SK::kContinue: return Flow::kContinue;
    }
    return Flow::kNormal;
  }

  void assign(const std::vector<std::string>& names, const Value& v, Scope& scope) {
    if (names.size() == 1) {
      scope.set(names[0], v);
      return;
    }
    const List items = iterate(v.defined());
    if (items.size() != names.size())
      throw TemplateError(items.size() < names.size() ? "not enough values to unpack (expected " + std::to_string(names.size()) + ", got " + std::to_string(items.size()) + ")"
                                                      : "too many values to unpack (expected " + std::to_string(names.size()) + ")");
    for (size_t k = 0; k < names.size(); ++k) scope.set(names[k], items[k]);
  }

  std::string capture(const Body& body, Scope& scope) {
    std::string buffer;
    std::string* saved = out_;
    out_ = &buffer;
    try {
      exec(body, scope);
    } catch (...) {
      out_ = saved;
      throw;
    }
    out_ = saved;
    return buffer;
  }

  Flow exec_for(const Stmt& s, Scope& scope) {
    List items = iterate(eval(*s.exprs[0], scope));
    if (s.exprs[1]) {  // {% for x in xs if cond %}: filtered before the loop counts
      List kept;
      for (const Value& item : items) {
        Scope probe{{}, &scope};
        assign(s.names, item, probe);
        if (eval(*s.exprs[1], probe).truthy()) kept.push_back(item);
      }
      items = std::move(kept);
    }
    if (items.empty()) return s.bodies.size() > 1 ? exec(s.bodies[1], scope) : Flow::kNormal;
    const int64_t n = static_cast<int64_t>(items.size());
    for (int64_t i = 0; i < n; ++i) {
      Scope iteration{{}, &scope};
      assign(s.names, items[static_cast<size_t>(i)], iteration);
      Dict loop;
      loop.set("index", Value(i + 1));
      loop.set("index0", Value(i));
      loop.set("revindex", Value(n - i));
      loop.set("revindex0", Value(n - i - 1));
      loop.set("first", Value(i == 0));
      loop.set("last", Value(i == n - 1));
      loop.set("length", Value(n));
      loop.set("depth", Value(1));
      loop.set("depth0", Value(0));
      loop.set("previtem", i > 0 ? items[static_cast<size_t>(i - 1)] : Value::undefined("there is no previous item"));
      loop.set("nextitem", i + 1 < n ? items[static_cast<size_t>(i + 1)] : Value::undefined("there is no next item"));
      loop.set("cycle", Value::function("cycle", [i](const Args& a) {
                 if (a.positional.empty()) throw TemplateError("no items for cycling given");
                 return a.positional[static_cast<size_t>(i) % a.positional.size()];
               }));
      iteration.set("loop", Value::dict(std::move(loop)));
      if (exec(s.bodies[0], iteration) == Flow::kBreak) break;
    }
    return Flow::kNormal;
  }

  Value macro(const Stmt& s) {
    return Value::function(s.text, [this, &s](const Args& args) {
      if (depth_ >= kMaxMacroDepth) throw TemplateError("maximum macro recursion depth exceeded in '" + s.text + "'");
      struct Depth {
        int& d;
        ~Depth() { --d; }
      } guard{++depth_};
      Scope local{{}, &root_};
      for (size_t k = 0; k < s.names.size(); ++k) {
        if (args.has(k, s.names[k])) local.set(s.names[k], args.get(k, s.names[k]));
        else if (s.exprs[k]) local.set(s.names[k], eval(*s.exprs[k], local));
        else local.set(s.names[k], Value::undefined("parameter '" + s.names[k] + "' was not provided"));
      }
      List varargs;
      for (size_t k = s.names.size(); k < args.positional.size(); ++k) varargs.push_back(args.positional[k]);
      local.set("varargs", Value::list(std::move(varargs), true));
      Dict kwargs;
      for (const auto& [k, v] : args.keywords)
        if (std::find(s.names.begin(), s.names.end(), k) == s.names.end()) kwargs.set(k, v);
      local.set("kwargs", Value::dict(std::move(kwargs)));
      return Value(capture(s.bodies[0], local));
    });
  }

  Args call_args(const Expr& e, size_t first, Scope& scope) {
    Args a;
    for (size_t k = first; k < e.args.size(); ++k) a.positional.push_back(eval(*e.args[k], scope));
    for (const auto& [name, x] : e.kwargs) a.keywords.emplace_back(name, eval(*x, scope));
    return a;
  }

  Value eval(const Expr& e, Scope& scope) {
    try {
      return eval_unchecked(e, scope);
    } catch (TemplateError& err) {
      if (err.line == 0) err.line = e.line;
      throw;
    }
  }

  Value eval_unchecked(const Expr& e, Scope& scope) {
    auto arg = [&](size_t k) { return e.args[k] ? eval(*e.args[k], scope) : Value(); };
    switch (e.kind) {
      case EK::kLiteral: return e.value;
      case EK::kName: return lookup(e.name, scope);
      case EK::kList: {
        List items;
        for (size_t k = 0; k < e.args.size(); ++k) items.push_back(arg(k));
        return Value::list(std::move(items), e.flag);
      }
      case EK::kDict: {
        Dict d;
        for (size_t k = 0; k + 1 < e.args.size(); k += 2) {
          const Value key = arg(k);
          if (!key.is_string()) throw TemplateError("dict keys must be strings here, not " + key.type_name());
          d.set(key.str(), arg(k + 1));
        }
        return Value::dict(std::move(d));
      }
      case EK::kAttr: return get_attr(arg(0), e.name);
      case EK::kItem: return get_item(arg(0), arg(1));
      case EK::kSlice: return get_slice(arg(0), arg(1), arg(2), arg(3));
      case EK::kCall: {
        const Expr& callee = *e.args[0];
        if (callee.kind == EK::kAttr) {
          const Value self = eval(*callee.args[0], scope);
          return call_method(self.defined(), callee.name, call_args(e, 1, scope));
        }
        const Value fn = eval(callee, scope);
        return fn.defined().call(call_args(e, 1, scope));
      }
      case EK::kFilter: return apply_filter(e.name, arg(0), call_args(e, 1, scope));
      case EK::kTest: return Value(apply_test(e.name, arg(0), call_args(e, 1, scope)) != e.flag);
      case EK::kUnary:
        if (e.name == "not") return Value(!arg(0).truthy());
        return unary_op(e.name, arg(0));
      case EK::kBinary: {
        if (e.name == "and" || e.name == "or") {  // Python: the deciding operand itself
          Value left = arg(0);
          return (left.truthy() == (e.name == "and")) ? arg(1) : left;
        }
        const Value left = arg(0), right = arg(1);
        return binary_op(e.name, left, right);
      }
      case EK::kCompare: {
        Value left = arg(0);
        for (size_t k = 0; k < e.ops.size(); ++k) {
          Value right = arg(k + 1);
          const std::string& op = e.ops[k];
          bool ok;
          if (op == "==") ok = equal(left, right);
          else if (op == "!=") ok = !equal(left, right);
          else if (op == "<") ok = less(left, right, "<");
          else if (op == ">") ok = less(right, left, ">");
          else if (op == "<=") ok = !less(right, left, "<=");
          else if (op == ">=") ok = !less(left, right, ">=");
          else if (op == "in") ok = contains(right, left);
          else ok = !contains(right, left);  // not in
          if (!ok) return Value(false);
          left = std::move(right);
        }
        return Value(true);
      }
      case EK::kCondition: return arg(0).truthy() ? arg(1) : arg(2);
    }
    return Value();
  }

  const Program& program_;
  Scope root_;
  Rendered result_;
  std::string* out_ = nullptr;
  int depth_ = 0;  // macro calls in progress
};

}  // namespace

Rendered render(const Program& program, const Value& context) { return Interpreter(program, context).run(); }

}  // namespace runner::jinja
