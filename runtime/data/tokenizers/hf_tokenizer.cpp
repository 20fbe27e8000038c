#include "runtime/data/tokenizers/hf_tokenizer.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include "runtime/core/errors.h"
#include "runtime/data/tokenizers/bpe_model.h"
#include "runtime/data/tokenizers/byte_level.h"
#include "runtime/data/tokenizers/regex.h"

namespace runner::data {

using nlohmann::json;

namespace {

// GPT-2's pre-tokenizer pattern (ByteLevel with use_regex).
const char* const kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

struct AddedToken {
  std::string content;
  int64_t id = 0;
  bool special = false, lstrip = false, rstrip = false, single_word = false;
};

struct PreStep {
  enum class Kind { kByteLevel, kSplit } kind = Kind::kByteLevel;
  bool add_prefix_space = false;
  std::shared_ptr<Regex> regex;  // ByteLevel with use_regex, or Split's pattern
  std::string behavior = "Isolated";
  bool invert = false;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

struct HfTokenizer::Impl {
  std::string path;
  std::unique_ptr<BpeModel> model;
  std::vector<AddedToken> added;  // longest first, for leftmost-longest matching
  std::unordered_map<int64_t, std::string> id_to_token;
  std::unordered_map<int64_t, bool> special_ids;
  bool nfc = false;
  std::vector<PreStep> pre;
  std::vector<int64_t> prefix_ids, suffix_ids;  // the post-processor's template around the text
  bool byte_level_decoder = false;

  [[noreturn]] void fail(const std::string& what) const { throw DataError(what, path); }

  void load_pre_tokenizer(const json& p) {
    if (p.is_null()) return;
    const std::string type = p.value("type", "");
    if (type == "Sequence") {
      for (const auto& step : p.at("pretokenizers")) load_pre_tokenizer(step);
    } else if (type == "ByteLevel") {
      PreStep s;
      s.kind = PreStep::Kind::kByteLevel;
      s.add_prefix_space = p.value("add_prefix_space", true);
      if (p.value("use_regex", true)) s.regex = std::make_shared<Regex>(kGpt2Pattern);
      pre.push_back(s);
    } else if (type == "Split") {
      PreStep s;
      s.kind = PreStep::Kind::kSplit;
      const json& pattern = p.at("pattern");
      if (pattern.contains("Regex")) {
        s.regex = std::make_shared<Regex>(pattern["Regex"].get<std::string>());
      } else if (pattern.contains("String")) {  // a literal: escaped for PCRE2
        s.regex = std::make_shared<Regex>("\\Q" + pattern["String"].get<std::string>() + "\\E");
      } else {
        fail("pre_tokenizer Split: pattern must be {\"Regex\": ...} or {\"String\": ...}");
      }
      s.behavior = p.value("behavior", "Isolated");
      s.invert = p.value("invert", false);
      if (s.behavior != "Isolated" && s.behavior != "Removed" && s.behavior != "MergedWithPrevious" && s.behavior != "MergedWithNext")
        fail("pre_tokenizer Split: behavior \"" + s.behavior + "\" is not supported (Isolated, Removed, MergedWithPrevious, MergedWithNext)");
      pre.push_back(s);
    } else {
      fail("pre_tokenizer \"" + type + "\" is not supported yet (ByteLevel, Split, Sequence)");
    }
  }

  int64_t special_id(const json& tokens, const std::string& name) const {
    if (tokens.contains(name) && tokens[name].contains("ids") && !tokens[name]["ids"].empty()) return tokens[name]["ids"][0].get<int64_t>();
    fail("post_processor: special token \"" + name + "\" has no id");
  }

  void load_post_processor(const json& p) {
    if (p.is_null()) return;
    const std::string type = p.value("type", "");
    if (type == "Sequence") {
      for (const auto& step : p.at("processors")) load_post_processor(step);
    } else if (type == "ByteLevel") {
      // Only offsets change; ids do not.
    } else if (type == "TemplateProcessing") {
      bool before = true;
      for (const auto& piece : p.at("single")) {
        if (piece.contains("Sequence")) {
          before = false;
        } else if (piece.contains("SpecialToken")) {
          const int64_t id = special_id(p.at("special_tokens"), piece["SpecialToken"].at("id").get<std::string>());
          (before ? prefix_ids : suffix_ids).push_back(id);
        }
      }
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
      prefix_ids.push_back(p.at("cls")[1].get<int64_t>());
      suffix_ids.push_back(p.at("sep")[1].get<int64_t>());
    } else {
      fail("post_processor \"" + type + "\" is not supported yet (TemplateProcessing, ByteLevel, BertProcessing, RobertaProcessing, Sequence)");
    }
  }

  void load_decoder(const json& d) {
    if (d.is_null()) return;
    const std::string type = d.value("type", "");
    if (type == "ByteLevel") byte_level_decoder = true;
    else if (type == "Sequence") for (const auto& step : d.at("decoders")) load_decoder(step);
    else fail("decoder \"" + type + "\" is not supported yet (ByteLevel, Sequence)");
  }

  // The text between added tokens, through the pre-tokenizer and the model.
  void encode_plain(std::string_view text, std::vector<int64_t>& out) const {
    if (text.empty()) return;
    std::vector<std::string> pieces{std::string(text)};
    for (const PreStep& step : pre) {
      std::vector<std::string> next;
      for (std::string& piece : pieces) {
        if (step.kind == PreStep::Kind::kByteLevel) {
          if (step.add_prefix_space && !piece.empty() && piece[0] != ' ') piece.insert(piece.begin(), ' ');
          if (!step.regex) {
            next.push_back(to_byte_chars(piece));
            continue;
          }
          for (const auto& [b, e] : step.regex->find_all(piece)) next.push_back(to_byte_chars(std::string_view(piece).substr(b, e - b)));
          continue;
        }
        split(step, piece, next);
      }
      pieces = std::move(next);
    }
    for (const auto& p : pieces) model->tokenize(p, out);
  }

  static void split(const PreStep& step, const std::string& piece, std::vector<std::string>& out) {
    // Matches and the gaps between them, in order: (text, is_match).
    std::vector<std::pair<std::string, bool>> parts;
    size_t at = 0;
    for (const auto& [b, e] : step.regex->find_all(piece)) {
      if (b > at) parts.emplace_back(piece.substr(at, b - at), false);
      parts.emplace_back(piece.substr(b, e - b), true);
      at = e;
    }
    if (at < piece.size()) parts.emplace_back(piece.substr(at), false);
    if (step.invert)
      for (auto& p : parts) p.second = !p.second;
    std::string carry;
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto& [text, match] = parts[i];
      if (step.behavior == "Isolated") {
        out.push_back(text);
      } else if (step.behavior == "Removed") {
        if (!match) out.push_back(text);
      } else if (step.behavior == "MergedWithPrevious") {
        if (match && !out.empty()) out.back() += text;
        else out.push_back(text);
      } else {  // MergedWithNext
        if (match) carry += text;
        else out.push_back(carry + text), carry.clear();
      }
    }
    if (!carry.empty()) out.push_back(carry);
  }

  std::vector<int64_t> encode(std::string_view raw, bool add_special) const {
    std::string text = utf8_lossy(raw);
    if (nfc) {
      UErrorCode status = U_ZERO_ERROR;
      const icu::Normalizer2* n = icu::Normalizer2::getNFCInstance(status);
      icu::UnicodeString normalized = n->normalize(icu::UnicodeString::fromUTF8(text), status);
      if (U_FAILURE(status)) fail("NFC normalization failed");
      text.clear();
      normalized.toUTF8String(text);
    }
    std::vector<int64_t> out(add_special ? prefix_ids : std::vector<int64_t>{});
    // Added tokens are found first, leftmost-longest, and never cut by the pre-tokenizer.
    size_t start = 0, i = 0;
    while (i < text.size()) {
      const AddedToken* hit = nullptr;
      for (const auto& t : added)
        if (!t.content.empty() && text.compare(i, t.content.size(), t.content) == 0) {
          hit = &t;
          break;
        }
      if (!hit) {
        ++i;
        continue;
      }
      size_t b = i, e = i + hit->content.size();
      if (hit->lstrip)
        while (b > start && is_space(text[b - 1])) --b;
      if (hit->rstrip)
        while (e < text.size() && is_space(text[e])) ++e;
      encode_plain(std::string_view(text).substr(start, b - start), out);
      out.push_back(hit->id);
      start = i = e;
    }
    encode_plain(std::string_view(text).substr(start), out);
    if (add_special) out.insert(out.end(), suffix_ids.begin(), suffix_ids.end());
    return out;
  }
};

HfTokenizer::HfTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HfTokenizer::~HfTokenizer() = default;

std::shared_ptr<HfTokenizer> HfTokenizer::load(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  std::ifstream in(path);
  if (!in) throw DataError("cannot open the tokenizer file", path);
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw DataError(std::string("not a tokenizer.json: ") + e.what(), path);
  }
  try {
    const json& m = j.at("model");
    if (m.value("type", "BPE") != "BPE") impl->fail("model \"" + m.value("type", "") + "\" is not supported yet (BPE)");
    impl->model = std::make_unique<BpeModel>(m);
    for (const auto& [token, id] : impl->model->vocab()) impl->id_to_token[id] = token;
    for (const auto& t : j.value("added_tokens", json::array())) {
      AddedToken a;
      a.content = t.at("content").get<std::string>();
      a.id = t.at("id").get<int64_t>();
      a.special = t.value("special", false);
      a.lstrip = t.value("lstrip", false);
      a.rstrip = t.value("rstrip", false);
      if (t.value("single_word", false)) impl->fail("added token \"" + a.content + "\": single_word is not supported yet");
      impl->id_to_token[a.id] = a.content;
      impl->special_ids[a.id] = a.special;
      impl->added.push_back(a);
    }
    std::stable_sort(impl->added.begin(), impl->added.end(), [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
    const json& n = j.value("normalizer", json());
    if (!n.is_null()) {
      if (n.value("type", "") == "NFC") impl->nfc = true;
      else impl->fail("normalizer \"" + n.value("type", "") + "\" is not supported yet (NFC)");
    }
    impl->load_pre_tokenizer(j.value("pre_tokenizer", json()));
    impl->load_post_processor(j.value("post_processor", json()));
    impl->load_decoder(j.value("decoder", json()));
  } catch (const json::exception& e) {
    throw DataError(std::string("malformed tokenizer.json: ") + e.what(), path);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const Error*>(&e)) throw;
    throw DataError(e.what(), path);
  }
  return std::shared_ptr<HfTokenizer>(new HfTokenizer(std::move(impl)));
}

std::vector<int64_t> HfTokenizer::encode(std::string_view text, bool add_special_tokens) const { return impl_->encode(text, add_special_tokens); }

std::string HfTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  // tokenizers: tokens joined, then the ByteLevel decoder maps each token's characters back to
  // bytes (a token with a character outside the alphabet, e.g. an added token, keeps its own
  // bytes) and reads the whole as lossy UTF-8.
  std::string bytes;
  for (int64_t id : ids) {
    auto it = impl_->id_to_token.find(id);
    if (it == impl_->id_to_token.end()) continue;
    auto sp = impl_->special_ids.find(id);
    if (skip_special_tokens && sp != impl_->special_ids.end() && sp->second) continue;
    const std::string& token = it->second;
    if (!impl_->byte_level_decoder) {
      bytes += token;
      continue;
    }
    std::string mapped;
    bool all = true;
    for (size_t i = 0; i < token.size();) {
      const size_t n = utf8_length(token, i);
      const int b = byte_of_char(utf8_code_point(token, i, n));
      if (b < 0) {
        all = false;
        break;
      }
      mapped += static_cast<char>(b);
      i += n;
    }
    bytes += all ? mapped : token;
  }
  return utf8_lossy(bytes);
}

int64_t HfTokenizer::vocab_size() const {
  int64_t top = -1;
  for (const auto& [id, token] : impl_->id_to_token) top = std::max(top, id);
  return top + 1;
}

int64_t HfTokenizer::token_to_id(const std::string& token) const {
  for (const auto& a : impl_->added)
    if (a.content == token) return a.id;
  auto it = impl_->model->vocab().find(token);
  return it == impl_->model->vocab().end() ? -1 : it->second;
}

std::string HfTokenizer::id_to_token(int64_t id) const {
  auto it = impl_->id_to_token.find(id);
  return it == impl_->id_to_token.end() ? "" : it->second;
}

}  // namespace runner::data
