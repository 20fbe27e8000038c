// The parser's view of the lexer's tokens: the current one, look-ahead, and the checks that
// consume a token or fail with a TemplateError naming what came instead and its line.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/jinja/lexer.h"

namespace runner::jinja {

class TokenCursor {
 public:
  explicit TokenCursor(std::vector<Token> tokens) : t_(std::move(tokens)) {}

 protected:
  using TK = Token::Kind;

  const Token& cur() const { return t_[i_]; }
  const Token& peek(size_t n = 1) const { return t_[std::min(i_ + n, t_.size() - 1)]; }
  [[noreturn]] void fail(const std::string& message) const { throw TemplateError(message, cur().line); }
  bool is_op(const char* op) const { return cur().kind == TK::kOperator && cur().text == op; }
  bool is_name(const char* name) const { return cur().kind == TK::kName && cur().text == name; }
  bool skip_op(const char* op) { return is_op(op) ? (++i_, true) : false; }
  bool skip_name(const char* name) { return is_name(name) ? (++i_, true) : false; }
  void expect_op(const char* op) {
    if (!skip_op(op)) fail(std::string("expected '") + op + "', got " + describe());
  }
  std::string expect_name() {
    if (cur().kind != TK::kName) fail("expected a name, got " + describe());
    return t_[i_++].text;
  }
  void expect_stmt_end() {
    if (cur().kind != TK::kStmtEnd) fail("expected the end of the tag '%}', got " + describe());
    ++i_;
  }
  std::string describe() const {
    switch (cur().kind) {
      case TK::kEnd: return "the end of the template";
      case TK::kExprEnd: return "'}}'";
      case TK::kStmtEnd: return "'%}'";
      case TK::kString: return "a string";
      default: return "'" + cur().text + "'";
    }
  }
  // The tag name after "{%" at the current position ("" when not a tag).
  std::string tag_name() const {
    return cur().kind == TK::kStmtBegin && peek().kind == TK::kName ? peek().text : "";
  }

  std::vector<Token> t_;
  size_t i_ = 0;
};

}  // namespace runner::jinja
