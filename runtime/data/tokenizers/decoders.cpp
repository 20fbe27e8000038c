#include "runtime/data/tokenizers/decoders.h"

#include <initializer_list>
#include <memory>
#include <utility>
#include <stdexcept>

#include "runtime/data/tokenizers/byte_level.h"
#include "runtime/core/regex.h"

namespace runner::data {

using nlohmann::json;

struct Decoder::Step {
  enum class Kind { kByteLevel, kReplace, kByteFallback, kFuse, kStrip, kMetaspace, kWordPiece } kind = Kind::kByteLevel;
  std::string text;              // kReplace: what replaces a match; kStrip: the character; kMetaspace: the replacement
  std::string literal;           // kReplace with a String pattern
  std::shared_ptr<Regex> regex;  // kReplace with a Regex pattern
  size_t start = 0, stop = 0;    // kStrip: at most this many characters from each end
  bool strip_first = true;       // kMetaspace: the first token's replacement is the prepended one (not "never")
  bool cleanup = true;           // kWordPiece: spaces before punctuation and contractions taken out (text: the prefix)
};

namespace {

void replace_all(std::string& t, std::string_view from, std::string_view to) {
  for (size_t at = t.find(from); at != std::string::npos; at = t.find(from, at + to.size())) t.replace(at, from.size(), to);
}

// tokenizers' WordPiece decoder (decode_chain): a token after the first loses its "##" prefix,
// or gets a space before it; then each token's tokenization artifacts are cleaned up.
void word_piece(std::vector<std::string>& tokens, const std::string& prefix, bool cleanup) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string& t = tokens[i];
    if (i != 0) {
      if (!prefix.empty() && t.compare(0, prefix.size(), prefix) == 0) t.erase(0, prefix.size());
      else t.insert(0, " ");
    }
    if (!cleanup) continue;
    for (const auto& [from, to] : std::initializer_list<std::pair<const char*, const char*>>{
             {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"},
             {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}})
      replace_all(t, from, to);
  }
}

std::string one_char(const json& d, const char* key, const std::string& where) {
  if (!d.contains(key) || !d[key].is_string()) throw std::runtime_error(where + ": " + key + " is missing");
  const std::string s = d.at(key).get<std::string>();
  if (s.empty() || utf8_length(s, 0) != s.size()) throw std::runtime_error(where + ": " + key + " must be one character");
  return s;
}

// The byte a "<0xXX>" token stands for, or -1. tokenizers parses the two characters with
// Rust's from_str_radix, which takes lowercase digits and a leading '+' as well.
int byte_token(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
  const int hi = digit(t[3]), lo = digit(t[4]);
  if (t[3] == '+' && lo >= 0) return lo;
  return hi >= 0 && lo >= 0 ? hi * 16 + lo : -1;
}

void byte_fallback(std::vector<std::string>& tokens) {
  // A run of byte tokens becomes its text when the run is valid UTF-8, else one U+FFFD per byte.
  std::vector<std::string> out;
  std::string run;
  size_t run_bytes = 0;
  auto flush = [&] {
    if (run_bytes == 0) return;
    if (utf8_lossy(run) == run) out.push_back(run);
    else out.insert(out.end(), run_bytes, "\xEF\xBF\xBD");
    run.clear(), run_bytes = 0;
  };
  for (std::string& t : tokens) {
    const int b = byte_token(t);
    if (b >= 0) {
      run += static_cast<char>(b), ++run_bytes;
      continue;
    }
    flush();
    out.push_back(std::move(t));
  }
  flush();
  tokens = std::move(out);
}

}  // namespace

Decoder::Decoder(const json& spec) { load(spec); }
Decoder::~Decoder() = default;

void Decoder::load(const json& d) {
  if (d.is_null()) return;
  none_ = false;
  const std::string type = d.value("type", "");
  Step s;
  if (type == "Sequence") {
    for (const auto& step : d.at("decoders")) load(step);
    return;
  } else if (type == "ByteLevel") {
    s.kind = Step::Kind::kByteLevel;
  } else if (type == "Replace") {
    s.kind = Step::Kind::kReplace;
    s.text = d.at("content").get<std::string>();
    const json& pattern = d.at("pattern");
    if (pattern.contains("Regex")) s.regex = std::make_shared<Regex>(pattern["Regex"].get<std::string>());
    else if (pattern.contains("String")) s.literal = pattern["String"].get<std::string>();
    else throw std::runtime_error("decoder Replace: pattern must be {\"Regex\": ...} or {\"String\": ...}");
    if (!s.regex && s.literal.empty()) throw std::runtime_error("decoder Replace: an empty String pattern is not supported");
  } else if (type == "ByteFallback") {
    s.kind = Step::Kind::kByteFallback;
  } else if (type == "Fuse") {
    s.kind = Step::Kind::kFuse;
  } else if (type == "Strip") {
    s.kind = Step::Kind::kStrip;
    s.text = one_char(d, "content", "decoder Strip");
    s.start = d.at("start").get<size_t>();
    s.stop = d.at("stop").get<size_t>();
  } else if (type == "WordPiece") {
    s.kind = Step::Kind::kWordPiece;
    s.text = d.value("prefix", "##");
    s.cleanup = d.value("cleanup", true);
  } else if (type == "Metaspace") {
    s.kind = Step::Kind::kMetaspace;
    s.text = one_char(d, "replacement", "decoder Metaspace");
    const std::string scheme = d.value("prepend_scheme", "always");
    if (scheme != "always" && scheme != "first" && scheme != "never")
      throw std::runtime_error("decoder Metaspace: prepend_scheme \"" + scheme + "\" is not supported (always, first, never)");
    s.strip_first = scheme != "never";
    if (d.contains("add_prefix_space") && d["add_prefix_space"].is_boolean() && !d["add_prefix_space"].get<bool>()) {  // older files
      if (d.contains("prepend_scheme") && scheme != "never")
        throw std::runtime_error("decoder Metaspace: add_prefix_space false contradicts prepend_scheme \"" + scheme + "\"");
      s.strip_first = false;
    }
  } else {
    throw std::runtime_error("decoder \"" + type + "\" is not supported yet (ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, WordPiece, Sequence)");
  }
  steps_.push_back(std::move(s));
}

std::string Decoder::run(std::vector<std::string> tokens) const {
  if (none_) {
    std::string out;
    for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Step::Kind::kByteLevel: {
        // Each token's characters back to bytes; a token with a character outside the alphabet
        // (an added token) keeps its own bytes. The whole is read as lossy UTF-8.
        std::string bytes;
        for (const std::string& t : tokens) {
          std::string mapped;
          bool all = true;
          for (size_t i = 0; i < t.size() && all;) {
            const size_t n = utf8_length(t, i);
            const int b = byte_of_char(utf8_code_point(t, i, n));
            all = b >= 0;
            if (all) mapped += static_cast<char>(b);
            i += n;
          }
          bytes += all ? mapped : t;
        }
        tokens.assign(1, utf8_lossy(bytes));
        break;
      }
      case Step::Kind::kReplace:
        for (std::string& t : tokens) {
          std::string out;
          size_t at = 0;
          auto replace = [&](size_t b, size_t e) { out.append(t, at, b - at), out += s.text, at = e; };
          if (s.regex) {
            for (const auto& [b, e] : s.regex->find_all(t)) replace(b, e);
          } else {
            for (size_t b = t.find(s.literal); b != std::string::npos; b = t.find(s.literal, at)) replace(b, b + s.literal.size());
          }
          out.append(t, at, std::string::npos);
          t = std::move(out);
        }
        break;
      case Step::Kind::kByteFallback:
        byte_fallback(tokens);
        break;
      case Step::Kind::kFuse: {
        std::string all;
        for (const std::string& t : tokens) all += t;
        tokens.assign(1, std::move(all));
        break;
      }
      case Step::Kind::kStrip:
        for (std::string& t : tokens) {
          const size_t c = s.text.size();
          size_t b = 0, e = t.size();
          for (size_t k = 0; k < s.start && b + c <= e && t.compare(b, c, s.text) == 0; ++k) b += c;
          for (size_t k = 0; k < s.stop && e >= b + c && t.compare(e - c, c, s.text) == 0; ++k) e -= c;
          t = t.substr(b, e - b);
        }
        break;
      case Step::Kind::kWordPiece:
        word_piece(tokens, s.text, s.cleanup);
        break;
      case Step::Kind::kMetaspace:
        // Every replacement becomes a space, but the first token's are dropped: they are the
        // one the pre-tokenizer prepended (tokenizers drops them all in that token).
        for (size_t i = 0; i < tokens.size(); ++i) {
          std::string out;
          const std::string& t = tokens[i];
          for (size_t at = 0; at < t.size();) {
            if (t.compare(at, s.text.size(), s.text) == 0) {
              if (!(i == 0 && s.strip_first)) out += ' ';
              at += s.text.size();
            } else {
              out += t[at++];
            }
          }
          tokens[i] = std::move(out);
        }
        break;
    }
  }
  std::string out;
  for (const std::string& t : tokens) out += t;
  return out;
}

}  // namespace runner::data
