#include "runtime/jinja/parser.h"

#include <algorithm>

#include "runtime/jinja/filters.h"
#include "runtime/jinja/is_tests.h"
#include "runtime/jinja/lexer.h"
#include "runtime/jinja/token_cursor.h"

namespace runner::jinja {

namespace {

using TK = Token::Kind;
using EK = Expr::Kind;
using SK = Stmt::Kind;

ExprPtr node(EK kind, int line) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->line = line;
  return e;
}

class Parser : TokenCursor {
 public:
  explicit Parser(std::vector<Token> tokens) : TokenCursor(std::move(tokens)) {}

  Program run() {
    Program p;
    p.body = body({});
    if (cur().kind != TK::kEnd) fail("unexpected '" + tag_name() + "' tag");
    p.has_generation = has_generation_;
    return p;
  }

 private:
  // Statements up to (not including) a "{% <end> %}" tag whose name is in `ends`.
  Body body(const std::vector<std::string>& ends) {
    Body out;
    while (cur().kind != TK::kEnd) {
      if (cur().kind == TK::kText) {
        auto s = stmt(SK::kText);
        s->text = t_[i_++].text;
        out.push_back(std::move(s));
      } else if (cur().kind == TK::kExprBegin) {
        auto s = stmt(SK::kOutput);
        ++i_;
        s->exprs.push_back(tuple(true));
        if (cur().kind != TK::kExprEnd) fail("expected '}}', got " + describe());
        ++i_;
        out.push_back(std::move(s));
      } else {
        if (std::find(ends.begin(), ends.end(), tag_name()) != ends.end()) return out;
        out.push_back(statement());
      }
    }
    if (!ends.empty()) fail("missing {% " + ends.back() + " %}");
    return out;
  }

  StmtPtr stmt(SK kind) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->line = cur().line;
    return s;
  }

  // Consumes "{% name" ... through "%}" of an end/middle tag.
  void end_tag(const char* name) {
    if (tag_name() != name) fail(std::string("expected {% ") + name + " %}");
    i_ += 2;
    expect_stmt_end();
  }

  StmtPtr statement() {
    if (cur().kind != TK::kStmtBegin) fail("unexpected " + describe());
    const int line = cur().line;
    ++i_;
    const std::string name = expect_name();
    StmtPtr s;
    if (name == "if") s = if_stmt();
    else if (name == "for") s = for_stmt();
    else if (name == "set") s = set_stmt();
    else if (name == "macro") s = macro_stmt();
    else if (name == "generation") {
      s = stmt(SK::kGeneration);
      expect_stmt_end();
      s->bodies.push_back(body({"endgeneration"}));
      end_tag("endgeneration");
      has_generation_ = true;
    } else if (name == "break" || name == "continue") {
      s = stmt(name == "break" ? SK::kBreak : SK::kContinue);
      expect_stmt_end();
    } else if (name.rfind("end", 0) == 0 || name == "elif" || name == "else") {
      throw TemplateError("unexpected '" + name + "' tag (no block is open for it)", line);
    } else {
      throw TemplateError("the '" + name + "' tag is not supported (supported: if, for, set, macro, break, continue, generation, raw)", line);
    }
    s->line = line;
    return s;
  }

  StmtPtr if_stmt() {
    auto s = stmt(SK::kIf);
    s->exprs.push_back(expression(false));
    expect_stmt_end();
    s->bodies.push_back(body({"elif", "else", "endif"}));
    while (tag_name() == "elif") {
      i_ += 2;
      s->exprs.push_back(expression(false));
      expect_stmt_end();
      s->bodies.push_back(body({"elif", "else", "endif"}));
    }
    if (tag_name() == "else") {
      end_tag("else");
      s->bodies.push_back(body({"endif"}));
    }
    end_tag("endif");
    return s;
  }

  std::vector<std::string> targets() {
    std::vector<std::string> names;
    const bool paren = skip_op("(");
    do {
      names.push_back(expect_name());
    } while (skip_op(","));
    if (paren) expect_op(")");
    return names;
  }

  StmtPtr for_stmt() {
    auto s = stmt(SK::kFor);
    s->names = targets();
    if (!skip_name("in")) fail("expected 'in' in the for tag, got " + describe());
    s->exprs.push_back(tuple(false));
    s->exprs.push_back(skip_name("if") ? expression(true) : nullptr);
    if (is_name("recursive")) fail("recursive for loops are not supported");
    expect_stmt_end();
    s->bodies.push_back(body({"else", "endfor"}));
    if (tag_name() == "else") {
      end_tag("else");
      s->bodies.push_back(body({"endfor"}));
    }
    end_tag("endfor");
    return s;
  }

  StmtPtr set_stmt() {
    auto s = stmt(SK::kSet);
    if (cur().kind == TK::kName && peek().kind == TK::kOperator && peek().text == ".") {
      s->names.push_back(expect_name());
      ++i_;
      s->attr = expect_name();
    } else {
      s->names = targets();
    }
    if (skip_op("=")) {
      s->exprs.push_back(tuple(true));
      expect_stmt_end();
      return s;
    }
    if (s->names.size() != 1 || !s->attr.empty()) fail("expected '=' in the set tag");
    if (cur().kind != TK::kStmtEnd) fail("filtered set blocks are not supported");
    expect_stmt_end();
    s->kind = SK::kSetBlock;
    s->bodies.push_back(body({"endset"}));
    end_tag("endset");
    return s;
  }

  StmtPtr macro_stmt() {
    auto s = stmt(SK::kMacro);
    s->text = expect_name();
    expect_op("(");
    while (!skip_op(")")) {
      if (!s->names.empty()) expect_op(",");
      if (skip_op(")")) break;
      s->names.push_back(expect_name());
      s->exprs.push_back(skip_op("=") ? expression(true) : nullptr);
    }
    expect_stmt_end();
    s->bodies.push_back(body({"endmacro"}));
    if (tag_name() != "endmacro") fail("expected {% endmacro %}");
    i_ += 2;
    if (cur().kind == TK::kName) ++i_;  // {% endmacro name %}
    expect_stmt_end();
    return s;
  }

  // Expressions, lowest precedence first.

  // a, b (a tuple) or one expression.
  ExprPtr tuple(bool with_condition) {
    const int line = cur().line;
    ExprPtr first = expression(with_condition);
    if (!is_op(",")) return first;
    auto t = node(EK::kList, line);
    t->flag = true;
    t->args.push_back(std::move(first));
    while (skip_op(",")) {
      if (cur().kind == TK::kExprEnd || cur().kind == TK::kStmtEnd || is_op(")")) break;
      t->args.push_back(expression(with_condition));
    }
    return t;
  }

  ExprPtr expression(bool with_condition) {
    ExprPtr e = or_expr();
    while (with_condition && is_name("if")) {
      auto c = node(EK::kCondition, cur().line);
      ++i_;
      c->args.push_back(or_expr());
      c->args.push_back(std::move(e));
      c->args.push_back(skip_name("else") ? expression(true) : nullptr);  // args: condition, then, else
      e = std::move(c);
    }
    return e;
  }

  ExprPtr binary(ExprPtr left, const std::string& op, ExprPtr right) {
    auto b = node(EK::kBinary, left->line);
    b->name = op;
    b->args.push_back(std::move(left));
    b->args.push_back(std::move(right));
    return b;
  }

  ExprPtr or_expr() {
    ExprPtr e = and_expr();
    while (skip_name("or")) e = binary(std::move(e), "or", and_expr());
    return e;
  }

  ExprPtr and_expr() {
    ExprPtr e = not_expr();
    while (skip_name("and")) e = binary(std::move(e), "and", not_expr());
    return e;
  }

  ExprPtr not_expr() {
    if (is_name("not")) {
      auto u = node(EK::kUnary, cur().line);
      ++i_;
      u->name = "not";
      u->args.push_back(not_expr());
      return u;
    }
    return compare();
  }

  ExprPtr compare() {
    ExprPtr first = math1();
    ExprPtr chain;
    while (true) {
      std::string op;
      if (cur().kind == TK::kOperator && (cur().text == "==" || cur().text == "!=" || cur().text == "<" || cur().text == "<=" ||
                                           cur().text == ">" || cur().text == ">="))
        op = t_[i_++].text;
      else if (skip_name("in")) op = "in";
      else if (is_name("not") && peek().kind == TK::kName && peek().text == "in") i_ += 2, op = "not in";
      else break;
      if (!chain) {
        chain = node(EK::kCompare, first->line);
        chain->args.push_back(std::move(first));
      }
      chain->ops.push_back(op);
      chain->args.push_back(math1());
    }
    return chain ? std::move(chain) : std::move(first);
  }

  ExprPtr math1() {
    ExprPtr e = concat();
    while (is_op("+") || is_op("-")) {
      const std::string op = t_[i_++].text;
      e = binary(std::move(e), op, concat());
    }
    return e;
  }

  ExprPtr concat() {
    ExprPtr e = math2();
    while (skip_op("~")) e = binary(std::move(e), "~", math2());
    return e;
  }

  ExprPtr math2() {
    ExprPtr e = power();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const std::string op = t_[i_++].text;
      e = binary(std::move(e), op, power());
    }
    return e;
  }

  ExprPtr power() {
    ExprPtr e = unary(true);
    while (skip_op("**")) e = binary(std::move(e), "**", unary(true));
    return e;
  }

  ExprPtr unary(bool with_filter) {
    ExprPtr e;
    if (is_op("-") || is_op("+")) {
      e = node(EK::kUnary, cur().line);
      e->name = t_[i_++].text;
      e->args.push_back(unary(false));
    } else {
      e = primary();
    }
    e = postfix(std::move(e));
    return with_filter ? filters(std::move(e)) : std::move(e);
  }

  ExprPtr primary() {
    const Token& t = cur();
    ExprPtr e = node(EK::kLiteral, t.line);
    switch (t.kind) {
      case TK::kName:
        ++i_;
        if (t.text == "true" || t.text == "True") e->value = Value(true);
        else if (t.text == "false" || t.text == "False") e->value = Value(false);
        else if (t.text == "none" || t.text == "None") e->value = Value::none();
        else e->kind = EK::kName, e->name = t.text;
        return e;
      case TK::kString: {
        std::string s;
        while (cur().kind == TK::kString) s += t_[i_++].text;  // adjacent literals join, as in Python
        e->value = Value(std::move(s));
        return e;
      }
      case TK::kInteger: e->value = Value(t.integer), ++i_; return e;
      case TK::kFloat: e->value = Value(t.number), ++i_; return e;
      case TK::kOperator:
        if (skip_op("(")) {
          if (skip_op(")")) {
            e->kind = EK::kList, e->flag = true;
            return e;
          }
          ExprPtr inner = tuple(true);
          expect_op(")");
          return inner;
        }
        if (skip_op("[")) {
          e->kind = EK::kList;
          while (!skip_op("]")) {
            if (!e->args.empty()) expect_op(",");
            if (skip_op("]")) break;
            e->args.push_back(expression(true));
          }
          return e;
        }
        if (skip_op("{")) {
          e->kind = EK::kDict;
          while (!skip_op("}")) {
            if (!e->args.empty()) expect_op(",");
            if (skip_op("}")) break;
            e->args.push_back(expression(true));
            expect_op(":");
            e->args.push_back(expression(true));
          }
          return e;
        }
        break;
      default: break;
    }
    fail("unexpected " + describe());
  }

  ExprPtr postfix(ExprPtr e) {
    while (true) {
      if (is_op(".")) {
        ++i_;
        auto a = node(EK::kAttr, e->line);
        if (cur().kind == TK::kInteger) {  // x.0 is x[0]
          a->kind = EK::kItem;
          a->args.push_back(std::move(e));
          auto index = node(EK::kLiteral, cur().line);
          index->value = Value(t_[i_++].integer);
          a->args.push_back(std::move(index));
        } else {
          a->name = expect_name();
          a->args.push_back(std::move(e));
        }
        e = std::move(a);
      } else if (is_op("[")) {
        ++i_;
        e = subscript(std::move(e));
      } else if (is_op("(")) {
        e = call(std::move(e));
      } else {
        return e;
      }
    }
  }

  ExprPtr subscript(ExprPtr target) {
    const int line = cur().line;
    ExprPtr parts[3];
    bool slice = false;
    for (int k = 0; k < 3; ++k) {
      if (!is_op(":") && !is_op("]")) parts[k] = expression(true);
      if (k < 2 && skip_op(":")) {
        slice = true;
        continue;
      }
      break;
    }
    expect_op("]");
    auto e = node(slice ? EK::kSlice : EK::kItem, line);
    e->args.push_back(std::move(target));
    if (!slice && !parts[0]) fail("empty subscript");
    for (int k = 0; k < (slice ? 3 : 1); ++k) e->args.push_back(std::move(parts[k]));
    return e;
  }

  // "(" args ")" into e->args[1:] and e->kwargs.
  void call_args(Expr& e) {
    expect_op("(");
    bool first = true;
    while (!skip_op(")")) {
      if (!first) expect_op(",");
      first = false;
      if (skip_op(")")) break;
      if (is_op("*") || is_op("**")) fail("*args and **kwargs in calls are not supported");
      if (cur().kind == TK::kName && peek().kind == TK::kOperator && peek().text == "=") {
        std::string key = t_[i_].text;
        i_ += 2;
        e.kwargs.emplace_back(std::move(key), expression(true));
      } else {
        if (!e.kwargs.empty()) fail("positional argument follows keyword argument");
        e.args.push_back(expression(true));
      }
    }
  }

  ExprPtr call(ExprPtr callee) {
    auto c = node(EK::kCall, callee->line);
    c->args.push_back(std::move(callee));
    call_args(*c);
    return c;
  }

  ExprPtr filters(ExprPtr e) {
    while (true) {
      if (skip_op("|")) {
        auto f = node(EK::kFilter, cur().line);
        f->name = expect_name();
        if (!is_filter(f->name)) fail("no filter named '" + f->name + "'");
        f->args.push_back(std::move(e));
        if (is_op("(")) call_args(*f);
        e = std::move(f);
      } else if (is_name("is")) {
        auto t = node(EK::kTest, cur().line);
        ++i_;
        t->flag = skip_name("not");
        t->name = expect_name();
        if (!is_test(t->name)) fail("no test named '" + t->name + "'");
        t->args.push_back(std::move(e));
        if (is_op("(")) {
          call_args(*t);
        } else if ((cur().kind == TK::kName || cur().kind == TK::kString || cur().kind == TK::kInteger ||
                    cur().kind == TK::kFloat || is_op("[") || is_op("{")) &&
                   !is_name("else") && !is_name("or") && !is_name("and") && !is_name("if")) {
          if (is_name("is")) fail("you cannot chain multiple tests with is");
          t->args.push_back(postfix(primary()));  // x is divisibleby 3, x is sameas none
        }
        e = std::move(t);
      } else if (is_op("(")) {
        e = call(std::move(e));
      } else {
        return e;
      }
    }
  }

  bool has_generation_ = false;
};

}  // namespace

Program parse(std::string_view source) { return Parser(lex(source)).run(); }

}  // namespace runner::jinja
