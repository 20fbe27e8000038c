#include "runtime/jinja/lexer.h"

#include <cstring>

#include "runtime/core/utf8.h"
#include "runtime/jinja/text.h"
#include "runtime/jinja/value.h"

namespace runner::jinja {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view rstrip_whitespace(std::string_view s) {
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

class Lexer {
 public:
  explicit Lexer(std::string source) : src_(std::move(source)) {}

  std::vector<Token> run() {
    bool line_starting = true;  // at the start of a source line (lstrip_blocks only acts there)
    while (pos_ < src_.size()) {
      const size_t open = find_open(pos_);
      std::string_view text(src_.data() + pos_, (open == std::string::npos ? src_.size() : open) - pos_);
      if (open == std::string::npos) {
        emit_text(text);
        break;
      }
      const char kind = src_[open + 1];  // '{', '%' or '#'
      char modifier = open + 2 < src_.size() ? src_[open + 2] : '\0';
      if (modifier != '-' && (modifier != '+' || kind == '{')) modifier = '\0';  // "{{+" is no modifier
      if (modifier == '-') {
        text = rstrip_whitespace(text);
      } else if (kind != '{' && modifier != '+') {  // lstrip_blocks
        const size_t nl = text.rfind('\n');
        const size_t from = nl == std::string_view::npos ? 0 : nl + 1;
        if ((nl != std::string_view::npos || line_starting) && text.find_first_not_of(" \t", from) == std::string_view::npos)
          text = text.substr(0, from);
      }
      emit_text(text);
      pos_ = open + 2 + (modifier ? 1 : 0);
      if (kind == '#') comment();
      else if (kind != '%' || !raw_block()) tag(kind == '{');
      line_starting = pos_ > 0 && src_[pos_ - 1] == '\n';
    }
    tokens_.push_back({Token::Kind::kEnd, "", line_at(src_.size())});
    return std::move(tokens_);
  }

 private:
  size_t find_open(size_t from) const {
    for (size_t at = src_.find('{', from); at != std::string::npos && at + 1 < src_.size(); at = src_.find('{', at + 1))
      if (src_[at + 1] == '{' || src_[at + 1] == '%' || src_[at + 1] == '#') return at;
    return std::string::npos;
  }

  int line_at(size_t offset) {
    for (; line_scan_ < offset && line_scan_ < src_.size(); ++line_scan_) line_ += src_[line_scan_] == '\n';
    return line_;
  }

  [[noreturn]] void fail(const std::string& message, size_t at) {
    throw TemplateError(message, line_at(at));
  }

  void emit_text(std::string_view text) {
    if (!text.empty()) tokens_.push_back({Token::Kind::kText, std::string(text), line_at(pos_)});
  }

  // After a closing "%}" or "#}" (already consumed): "-" stripped all whitespace, "+" keeps
  // the newline, else trim_blocks drops one newline.
  void after_close(char modifier, bool block) {
    if (modifier == '-') {
      while (pos_ < src_.size() && is_blank(src_[pos_])) ++pos_;
    } else if (block && modifier != '+' && pos_ < src_.size() && src_[pos_] == '\n') {
      ++pos_;
    }
  }

  void comment() {
    const size_t close = src_.find("#}", pos_);
    if (close == std::string::npos) fail("missing end of comment tag", pos_);
    const char modifier = close > pos_ && (src_[close - 1] == '-' || src_[close - 1] == '+') ? src_[close - 1] : '\0';
    pos_ = close + 2;
    after_close(modifier, true);
  }

  // {% raw %}...{% endraw %}: the body is text as written.
  bool raw_block() {
    size_t p = pos_;
    while (p < src_.size() && is_blank(src_[p])) ++p;
    if (src_.compare(p, 3, "raw") != 0) return false;
    p += 3;
    while (p < src_.size() && is_blank(src_[p])) ++p;
    if (p < src_.size() && (src_[p] == '-' || src_[p] == '+')) ++p;
    if (src_.compare(p, 2, "%}") != 0) return false;
    const char open_modifier = src_[p - 1] == '-' ? '-' : '\0';
    pos_ = p + 2;
    if (open_modifier == '-') after_close('-', true);
    for (size_t at = src_.find("{%", pos_); at != std::string::npos; at = src_.find("{%", at + 2)) {
      size_t q = at + 2;
      const bool strip_before = q < src_.size() && src_[q] == '-';
      if (q < src_.size() && (src_[q] == '-' || src_[q] == '+')) ++q;
      while (q < src_.size() && is_blank(src_[q])) ++q;
      if (src_.compare(q, 6, "endraw") != 0) continue;
      q += 6;
      while (q < src_.size() && is_blank(src_[q])) ++q;
      const char close_modifier = q < src_.size() && (src_[q] == '-' || src_[q] == '+') ? src_[q] : '\0';
      if (close_modifier) ++q;
      if (src_.compare(q, 2, "%}") != 0) continue;
      std::string_view body(src_.data() + pos_, at - pos_);
      emit_text(strip_before ? rstrip_whitespace(body) : body);
      pos_ = q + 2;
      after_close(close_modifier, true);
      return true;
    }
    fail("missing {% endraw %}", pos_);
  }

  void tag(bool expression) {
    const size_t start = pos_;
    tokens_.push_back({expression ? Token::Kind::kExprBegin : Token::Kind::kStmtBegin, "", line_at(start)});
    int depth = 0;  // ( [ { nesting: "}}" inside a dict literal does not close the tag
    const char* close = expression ? "}}" : "%}";
    while (true) {
      while (pos_ < src_.size() && is_blank(src_[pos_])) ++pos_;
      if (pos_ >= src_.size()) fail(std::string("missing closing \"") + close + "\"", start);
      const char c = src_[pos_];
      if (depth == 0) {
        const char modifier = (c == '-' || c == '+') ? c : '\0';
        if (src_.compare(pos_ + (modifier ? 1 : 0), 2, close) == 0 && (modifier != '+' || !expression)) {
          pos_ += 2 + (modifier ? 1 : 0);
          tokens_.push_back({expression ? Token::Kind::kExprEnd : Token::Kind::kStmtEnd, "", line_at(pos_)});
          after_close(modifier, !expression);
          return;
        }
      }
      const int line = line_at(pos_);
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t e = pos_;
        while (e < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[e])) || src_[e] == '_')) ++e;
        tokens_.push_back({Token::Kind::kName, src_.substr(pos_, e - pos_), line});
        pos_ = e;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        number(line);
      } else if (c == '\'' || c == '"') {
        string(line);
      } else {
        static const char* kOps[] = {"**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">",
                                     "=", "(", ")", "[", "]", "{", "}", ",", ".", ":", "|"};
        const char* op = nullptr;
        for (const char* candidate : kOps)
          if (src_.compare(pos_, std::strlen(candidate), candidate) == 0) {
            op = candidate;
            break;
          }
        if (!op) fail(std::string("unexpected character '") + c + "'", pos_);
        if (*op == '(' || *op == '[' || *op == '{') ++depth;
        if (*op == ')' || *op == ']' || *op == '}') --depth;
        tokens_.push_back({Token::Kind::kOperator, op, line});
        pos_ += std::strlen(op);
      }
    }
  }

  void number(int line) {
    std::string digits;
    bool is_float = false;
    auto take_digits = [&] {
      while (pos_ < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
        if (src_[pos_++] != '_') digits += src_[pos_ - 1];
    };
    take_digits();
    if (pos_ + 1 < src_.size() && src_[pos_] == '.' && std::isdigit(static_cast<unsigned char>(src_[pos_ + 1]))) {
      is_float = true;
      digits += src_[pos_++];
      take_digits();
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p < src_.size() && std::isdigit(static_cast<unsigned char>(src_[p]))) {
        is_float = true;
        digits += src_.substr(pos_, p - pos_);
        pos_ = p;
        take_digits();
      }
    }
    Token t{is_float ? Token::Kind::kFloat : Token::Kind::kInteger, digits, line};
    try {
      if (is_float) t.number = std::stod(digits);
      else t.integer = std::stoll(digits);
    } catch (const std::out_of_range&) {  // Python's ints have no bound; ours are 64 bits
      fail("the number " + digits + " is beyond 64 bits", pos_);
    }
    tokens_.push_back(t);
  }

  // Python escapes, as Jinja decodes string literals.
  void string(int line) {
    const char quote = src_[pos_++];
    std::string out;
    while (true) {
      if (pos_ >= src_.size()) fail("unterminated string", pos_);
      const char c = src_[pos_++];
      if (c == quote) break;
      if (c != '\\' || pos_ >= src_.size()) {
        out += c;
        continue;
      }
      const char e = src_[pos_++];
      auto hex = [&](int n) {
        if (pos_ + n > src_.size()) fail("truncated \\x, \\u or \\U escape", pos_);
        const char32_t cp = static_cast<char32_t>(std::stoul(src_.substr(pos_, n), nullptr, 16));
        pos_ += n;
        append_utf8(out, cp);
      };
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case '\n': break;  // a backslash-newline continues the line
        case 'x': hex(2); break;
        case 'u': hex(4); break;
        case 'U': hex(8); break;
        default:
          if (e >= '0' && e <= '7') {
            int value = e - '0';
            for (int k = 0; k < 2 && pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '7'; ++k) value = value * 8 + (src_[pos_++] - '0');
            append_utf8(out, static_cast<char32_t>(value));
          } else {
            out += '\\', out += e;  // unknown escapes stay as written, as in Python
          }
      }
    }
    tokens_.push_back({Token::Kind::kString, out, line});
  }

  std::string src_;
  size_t pos_ = 0, line_scan_ = 0;
  int line_ = 1;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> lex(std::string_view source) {
  std::string normalized;  // \r\n and \r read as \n, as Jinja reads them
  normalized.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      normalized += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      normalized += source[i];
    }
  }
  if (!normalized.empty() && normalized.back() == '\n') normalized.pop_back();  // keep_trailing_newline=False
  return Lexer(std::move(normalized)).run();
}

}  // namespace runner::jinja
