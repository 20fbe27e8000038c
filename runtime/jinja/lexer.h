// Splits a Jinja template into text and the tokens inside {{ }} and {% %} tags, applying the
// whitespace rules Hugging Face renders chat templates with: trim_blocks (the newline after a
// block tag or comment goes), lstrip_blocks (spaces and tabs before a block tag or comment on
// its own line go), "-" on either side of a tag strips all whitespace on that side, "+" keeps
// it, and one trailing newline of the template is dropped (keep_trailing_newline=False).
// Comments vanish here; {% raw %} bodies come out as text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace runner::jinja {

struct Token {
  enum class Kind { kText, kExprBegin, kExprEnd, kStmtBegin, kStmtEnd, kName, kString, kInteger, kFloat, kOperator, kEnd };
  Kind kind;
  std::string text;  // the text, name, operator or (unescaped) string
  int line;
  int64_t integer = 0;
  double number = 0;
};

// Throws TemplateSyntaxError (a TemplateError) with the line for an unclosed tag or string.
std::vector<Token> lex(std::string_view source);

}  // namespace runner::jinja
