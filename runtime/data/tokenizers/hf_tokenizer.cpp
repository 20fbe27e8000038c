#include "runtime/data/tokenizers/hf_tokenizer.h"

#include <algorithm>
#include <fstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/data/tokenizers/added_tokens.h"
#include "runtime/data/tokenizers/aligned_text.h"
#include "runtime/data/tokenizers/bpe_model.h"
#include "runtime/data/tokenizers/byte_level.h"
#include "runtime/data/tokenizers/decoders.h"
#include "runtime/data/tokenizers/normalizers.h"
#include "runtime/data/tokenizers/pre_tokenizers.h"
#include "runtime/data/tokenizers/unigram_model.h"
#include "runtime/data/tokenizers/wordlevel_model.h"
#include "runtime/data/tokenizers/wordpiece_model.h"

namespace runner::data {

using nlohmann::json;

struct HfTokenizer::Impl {
  std::string path;
  std::unique_ptr<TokenModel> model;  // BPE, WordPiece, Unigram or WordLevel
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre;
  std::unique_ptr<Decoder> decoder;
  // tokenizers matches added tokens with normalized=false in the raw text first, then those
  // with normalized=true, by their normalized form, in each normalized piece between.
  AddedMatcher raw_added, normalized_added;
  std::unordered_map<std::string, int64_t> added_ids;
  std::unordered_map<int64_t, std::string> id_to_token;
  std::unordered_map<int64_t, bool> special_ids;
  std::vector<int64_t> prefix_ids, suffix_ids;  // the single template's special tokens around the text
  // The templates as pieces: special tokens, or the text (0) / the pair (1); each with its type id.
  struct Piece {
    int sequence = -1;  // -1: the special ids
    std::vector<int64_t> ids;
    int64_t type_id = 0;
  };
  std::vector<Piece> single_template, pair_template;  // empty: no post-processor (A then B, type ids 0 and 1)
  // ByteLevel or RobertaProcessing with trim_offsets: offsets leave out a token's outer spaces.
  bool trim_offsets = false, trim_keeps_prefix_space = false;

  [[noreturn]] void fail(const std::string& what) const { throw DataError(what, path); }

  void load_post_processor(const json& p) {
    if (p.is_null()) return;
    const std::string type = p.value("type", "");
    if (type == "Sequence") {
      for (const auto& step : p.at("processors")) load_post_processor(step);
    } else if (type == "ByteLevel") {  // only offsets change; ids do not
      trim_offsets = p.value("trim_offsets", true);
      trim_keeps_prefix_space = p.value("add_prefix_space", true);
    } else if (type == "TemplateProcessing") {
      for (const auto& [key, target] : {std::pair<const char*, std::vector<Piece>*>{"single", &single_template}, {"pair", &pair_template}})
        for (const auto& piece : p.value(key, json::array())) {
          Piece out;
          if (piece.contains("Sequence")) {
            out.sequence = piece["Sequence"].at("id").get<std::string>() == "B" ? 1 : 0;
            out.type_id = piece["Sequence"].value("type_id", int64_t{0});
          } else if (piece.contains("SpecialToken")) {
            const std::string name = piece["SpecialToken"].at("id").get<std::string>();
            const json& tokens = p.at("special_tokens");
            if (!tokens.contains(name) || !tokens[name].contains("ids") || tokens[name]["ids"].empty())
              fail("post_processor: special token \"" + name + "\" has no id");
            out.ids = tokens[name]["ids"].get<std::vector<int64_t>>();
            out.type_id = piece["SpecialToken"].value("type_id", int64_t{0});
          }
          target->push_back(std::move(out));
        }
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
      // BERT: [CLS] A [SEP] B [SEP], the pair's part type 1; RoBERTa: <s> A </s> </s> B </s>, all type 0.
      const int64_t cls = p.at("cls")[1].get<int64_t>(), sep = p.at("sep")[1].get<int64_t>(), second = type == "BertProcessing" ? 1 : 0;
      single_template = {{-1, {cls}, 0}, {0, {}, 0}, {-1, {sep}, 0}};
      pair_template = {{-1, {cls}, 0}, {0, {}, 0}, {-1, {sep}, 0}};
      if (second == 0) pair_template.push_back({-1, {sep}, 0});
      pair_template.push_back({1, {}, second});
      pair_template.push_back({-1, {sep}, second});
      if (type == "RobertaProcessing") {
        trim_offsets = p.value("trim_offsets", true);
        trim_keeps_prefix_space = p.value("add_prefix_space", true);
      }
    } else {
      fail("post_processor \"" + type + "\" is not supported yet (TemplateProcessing, ByteLevel, BertProcessing, RobertaProcessing, Sequence)");
    }
  }

  // Text between raw added tokens: normalized, then cut at normalized added tokens, then
  // pre-tokenized and merged. `at_start`: it begins the input.
  void encode_gap(std::string_view gap, bool at_start, std::vector<int64_t>& out) const {
    std::string normalized;
    if (!normalizer->empty()) normalized = normalizer->run(gap), gap = normalized;
    const PreTokenizer::Sink word = [&](std::string_view w, const Origin*) { model->tokenize(w, out); };
    normalized_added.split(
        gap, [&](size_t b, size_t e) { pre->run(gap.substr(b, e - b), at_start && b == 0, word); },
        [&](int64_t id, size_t, size_t) { out.push_back(id); });
  }

  std::vector<int64_t> encode(std::string_view raw, bool add_special) const {
    const std::string text = utf8_lossy(raw);
    std::vector<int64_t> out(add_special ? prefix_ids : std::vector<int64_t>{});
    const std::string_view view = text;
    raw_added.split(
        view, [&](size_t b, size_t e) { encode_gap(view.substr(b, e - b), b == 0, out); },
        [&](int64_t id, size_t, size_t) { out.push_back(id); });
    if (add_special) out.insert(out.end(), suffix_ids.begin(), suffix_ids.end());
    return out;
  }

  // encode()'s steps again, on text that keeps each byte's origin (aligned_text.h). `values`:
  // what trim_offsets reads, an added token's matched text ("" for the model's tokens).
  struct Aligned {
    Encoding enc;
    std::vector<std::string> values;
    void add(int64_t id, Origin o, std::string_view value, bool keep_value) {
      enc.ids.push_back(id);
      enc.offsets.emplace_back(o.begin, o.end);
      if (keep_value) values.emplace_back(value);
    }
  };

  void encode_gap(AlignedText gap, bool at_start, Aligned& out) const {
    normalizer->run(gap);
    std::vector<int64_t> ids;
    std::vector<std::pair<size_t, size_t>> spans;
    const PreTokenizer::Sink word = [&](std::string_view w, const Origin* from) {
      ids.clear(), spans.clear();
      model->tokenize(w, ids, &spans);
      for (size_t k = 0; k < ids.size(); ++k) out.add(ids[k], {from[spans[k].first].begin, from[spans[k].second - 1].end}, "", trim_offsets);
    };
    normalized_added.split(
        gap.text, [&](size_t b, size_t e) { pre->run(std::string_view(gap.text).substr(b, e - b), gap.from.data() + b, at_start && b == 0, word); },
        [&](int64_t id, size_t b, size_t e) { out.add(id, gap.origin(b, e), std::string_view(gap.text).substr(b, e - b), trim_offsets); });
  }

  Encoding encode_with_offsets(std::string_view raw, bool add_special) const {
    std::vector<std::pair<size_t, size_t>> source;
    AlignedText text{utf8_lossy(raw, &source), {}};
    text.from.reserve(source.size());
    for (const auto& [b, e] : source) text.from.push_back({b, e});
    Aligned out;
    raw_added.split(
        text.text, [&](size_t b, size_t e) { encode_gap(text.slice(b, e), b == 0, out); },
        [&](int64_t id, size_t b, size_t e) { out.add(id, text.origin(b, e), std::string_view(text.text).substr(b, e - b), trim_offsets); });
    if (trim_offsets) trim(raw, out);
    Encoding& enc = out.enc;
    if (add_special) {
      enc.ids.insert(enc.ids.begin(), prefix_ids.begin(), prefix_ids.end());
      enc.offsets.insert(enc.offsets.begin(), prefix_ids.size(), {0, 0});
      enc.ids.insert(enc.ids.end(), suffix_ids.begin(), suffix_ids.end());
      enc.offsets.insert(enc.offsets.end(), suffix_ids.size(), {0, 0});
    }
    return std::move(enc);
  }

  // tokenizers' ByteLevel process_offsets: a token's leading and trailing spaces ("Ġ" or white
  // space; one leading space of the first token is kept with add_prefix_space) are taken off its
  // offsets, counted in characters of the input.
  void trim(std::string_view raw, Aligned& out) const {
    auto is_space = [](uint32_t c) { return c == 0x120 || is_white_space(c); };
    for (size_t i = 0; i < out.enc.ids.size(); ++i) {
      const std::string_view v = out.values[i].empty() ? std::string_view(id_to_token.at(out.enc.ids[i])) : out.values[i];
      std::vector<uint32_t> chars;
      for (size_t k = 0; k < v.size();) {
        const size_t n = utf8_length(v, k);
        chars.push_back(utf8_code_point(v, k, n));
        k += n;
      }
      size_t leading = 0, trailing = 0;
      while (leading < chars.size() && is_space(chars[leading])) ++leading;
      while (trailing < chars.size() && is_space(chars[chars.size() - 1 - trailing])) ++trailing;
      auto& [begin, end] = out.enc.offsets[i];
      if (leading > 0) {
        if ((i == 0 || begin == 0) && trim_keeps_prefix_space && leading == 1) leading = 0;
        for (; leading > 0 && begin < end; --leading) begin += utf8_length(raw, begin);
        begin = std::min(begin, end);
      }
      size_t at = end;
      for (size_t k = 0; k < trailing && at > 0; ++k) {
        do --at;
        while (at > 0 && (static_cast<unsigned char>(raw[at]) & 0xC0) == 0x80);
        if (k + 1 == trailing) end = std::max(at, begin);  // only when `trailing` characters precede the end
      }
    }
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
    const std::string type = m.value("type", "BPE");
    if (type == "BPE") impl->model = std::make_unique<BpeModel>(m);
    else if (type == "WordPiece") impl->model = std::make_unique<WordPieceModel>(m);
    else if (type == "Unigram") impl->model = std::make_unique<UnigramModel>(m);
    else if (type == "WordLevel") impl->model = std::make_unique<WordLevelModel>(m);
    else impl->fail("model \"" + type + "\" is not supported yet (BPE, WordPiece, Unigram, WordLevel)");
    for (const auto& [token, id] : impl->model->tokens()) impl->id_to_token[id] = token;
    impl->normalizer = std::make_unique<Normalizer>(j.value("normalizer", json()));
    impl->pre = std::make_unique<PreTokenizer>(j.value("pre_tokenizer", json()));
    impl->decoder = std::make_unique<Decoder>(j.value("decoder", json()));
    for (const auto& t : j.value("added_tokens", json::array())) {
      const std::string content = t.at("content").get<std::string>();
      const int64_t id = t.at("id").get<int64_t>();
      const bool special = t.value("special", false);
      // A normalized token is matched, and decoded, by its normalized form (Llama 2: "▁<x>").
      const bool normalized = t.value("normalized", !special);
      const std::string form = normalized && !impl->normalizer->empty() ? impl->normalizer->run(content) : content;
      (normalized ? impl->normalized_added : impl->raw_added).add({form, id, t.value("lstrip", false), t.value("rstrip", false), t.value("single_word", false)});
      impl->added_ids[content] = id;
      impl->id_to_token[id] = form;
      impl->special_ids[id] = special;
    }
    impl->load_post_processor(j.value("post_processor", json()));
    // The special tokens before and after a single text, from its template.
    bool before = true;
    for (const auto& piece : impl->single_template) {
      if (piece.sequence >= 0) {
        before = false;
        continue;
      }
      auto& side = before ? impl->prefix_ids : impl->suffix_ids;
      side.insert(side.end(), piece.ids.begin(), piece.ids.end());
    }
  } catch (const json::exception& e) {
    throw DataError(std::string("malformed tokenizer.json: ") + e.what(), path);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const Error*>(&e)) throw;
    throw DataError(e.what(), path);
  }
  return std::shared_ptr<HfTokenizer>(new HfTokenizer(std::move(impl)));
}

std::vector<int64_t> HfTokenizer::special_ids() const {
  std::vector<int64_t> ids;
  for (const auto& [id, special] : impl_->special_ids)
    if (special) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int64_t> HfTokenizer::encode(std::string_view text, bool add_special_tokens) const { return impl_->encode(text, add_special_tokens); }

// The post-processor's layout of one or two token sequences (with each token's word, -1 for
// none), cut longest-first to max_length first.
HfTokenizer::TypedEncoding HfTokenizer::lay_out(std::vector<int64_t> seq[2], std::vector<int64_t> words[2], bool pair, bool add_special_tokens,
                                                int64_t max_length) const {
  const auto& pieces = pair ? impl_->pair_template : impl_->single_template;
  // Without a template the special tokens are the single prefix/suffix (TemplateProcessing
  // loads both); a pair without one is A then B.
  std::vector<Impl::Piece> layout = pieces;
  if (layout.empty()) {
    layout.push_back({0, {}, 0});
    if (pair) layout.push_back({1, {}, 1});
  }
  if (!add_special_tokens) layout.erase(std::remove_if(layout.begin(), layout.end(), [](const Impl::Piece& p) { return p.sequence < 0; }), layout.end());
  if (max_length > 0) {
    int64_t specials = 0;
    for (const auto& p : layout) specials += static_cast<int64_t>(p.ids.size());
    if (specials > max_length)
      throw DataError("max_length " + std::to_string(max_length) + " leaves no room for the text beside " + std::to_string(specials) +
                          " special tokens",
                      impl_->path);
    const size_t room = static_cast<size_t>(max_length - specials);
    if (seq[0].size() + seq[1].size() > room) {  // tokenizers' longest_first: the longer one keeps an odd token
      size_t n1 = seq[0].size(), n2 = seq[1].size();
      const bool swap = n1 > n2;
      if (swap) std::swap(n1, n2);  // n1: the shorter (the first on ties)
      n2 = n1 > room ? n1 : std::max(n1, room - n1);
      if (n1 + n2 > room) n1 = room / 2, n2 = n1 + room % 2;
      if (swap) std::swap(n1, n2);
      for (const auto& [k, n] : {std::pair<int, size_t>{0, n1}, {1, n2}})
        if (seq[k].size() > n) seq[k].resize(n), words[k].resize(n);
    }
  }
  TypedEncoding out;
  for (const auto& p : layout) {
    const auto& ids = p.sequence < 0 ? p.ids : seq[p.sequence];
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
    out.type_ids.insert(out.type_ids.end(), ids.size(), p.type_id);
    if (p.sequence < 0) out.word_ids.insert(out.word_ids.end(), ids.size(), -1);
    else out.word_ids.insert(out.word_ids.end(), words[p.sequence].begin(), words[p.sequence].end());
  }
  return out;
}

HfTokenizer::TypedEncoding HfTokenizer::encode_typed(std::string_view text, const std::string_view* pair, bool add_special_tokens,
                                                     int64_t max_length) const {
  std::vector<int64_t> seq[2] = {impl_->encode(text, false), pair ? impl_->encode(*pair, false) : std::vector<int64_t>{}};
  std::vector<int64_t> words[2] = {std::vector<int64_t>(seq[0].size(), -1), std::vector<int64_t>(seq[1].size(), -1)};
  return lay_out(seq, words, pair != nullptr, add_special_tokens, max_length);
}

HfTokenizer::TypedEncoding HfTokenizer::encode_words(const std::vector<std::string>& text, const std::vector<std::string>* pair,
                                                     bool add_special_tokens, int64_t max_length) const {
  // tokenizers' is_pretokenized: each word encoded on its own (normalizer, pre-tokenizer,
  // model), its tokens tagged with the word's index.
  std::vector<int64_t> seq[2], words[2];
  for (int k = 0; k < (pair ? 2 : 1); ++k) {
    const auto& list = k == 0 ? text : *pair;
    for (size_t w = 0; w < list.size(); ++w) {
      const std::vector<int64_t> ids = impl_->encode(list[w], false);
      seq[k].insert(seq[k].end(), ids.begin(), ids.end());
      words[k].insert(words[k].end(), ids.size(), static_cast<int64_t>(w));
    }
  }
  return lay_out(seq, words, pair != nullptr, add_special_tokens, max_length);
}

HfTokenizer::Encoding HfTokenizer::encode_with_offsets(std::string_view text, bool add_special_tokens) const {
  return impl_->encode_with_offsets(text, add_special_tokens);
}

const std::vector<int64_t>& HfTokenizer::special_prefix() const { return impl_->prefix_ids; }
const std::vector<int64_t>& HfTokenizer::special_suffix() const { return impl_->suffix_ids; }

std::string HfTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  // tokenizers: each id's token (special added tokens left out when asked), then the decoder.
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int64_t id : ids) {
    auto it = impl_->id_to_token.find(id);
    if (it == impl_->id_to_token.end()) continue;
    auto sp = impl_->special_ids.find(id);
    if (skip_special_tokens && sp != impl_->special_ids.end() && sp->second) continue;
    tokens.push_back(it->second);
  }
  return impl_->decoder->run(std::move(tokens));
}

int64_t HfTokenizer::vocab_size() const {
  int64_t top = -1;
  for (const auto& [id, token] : impl_->id_to_token) top = std::max(top, id);
  return top + 1;
}

int64_t HfTokenizer::token_to_id(const std::string& token) const {
  if (auto it = impl_->added_ids.find(token); it != impl_->added_ids.end()) return it->second;
  auto it = impl_->model->vocab().find(token);
  return it == impl_->model->vocab().end() ? -1 : it->second;
}

const std::string& HfTokenizer::path() const { return impl_->path; }

std::string HfTokenizer::id_to_token(int64_t id) const {
  auto it = impl_->id_to_token.find(id);
  return it == impl_->id_to_token.end() ? "" : it->second;
}

}  // namespace runner::data

namespace runner::data {

namespace {

std::string token_content(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return "";
}

nlohmann::json read_object(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  const nlohmann::json c = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return c.is_discarded() || !c.is_object() ? nlohmann::json() : c;
}

}  // namespace

std::map<std::string, std::string> folder_special_tokens(const std::string& tokenizer_json) {
  const std::string dir = tokenizer_json.find('/') == std::string::npos ? "." : tokenizer_json.substr(0, tokenizer_json.rfind('/'));
  std::map<std::string, std::string> out;
  const nlohmann::json config = read_object(dir + "/tokenizer_config.json"), map = read_object(dir + "/special_tokens_map.json");
  for (const char* key : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}) {
    std::string v = config.is_object() && config.contains(key) ? token_content(config[key]) : "";
    if (v.empty() && map.is_object() && map.contains(key)) v = token_content(map[key]);
    if (!v.empty()) out[key] = v;
  }
  // The tokenizer classes' own defaults, which transformers applies when neither file names
  // the token (GPT-2's folders often say only "tokenizer_class": "GPT2Tokenizer").
  const std::string cls = config.is_object() ? config.value("tokenizer_class", std::string()) : "";
  if (cls == "GPT2Tokenizer" || cls == "GPT2TokenizerFast")
    for (const char* key : {"bos_token", "eos_token", "unk_token"}) out.emplace(key, "<|endoftext|>");
  if (cls == "LlamaTokenizer" || cls == "LlamaTokenizerFast") {
    out.emplace("bos_token", "<s>");
    out.emplace("eos_token", "</s>");
    out.emplace("unk_token", "<unk>");
  }
  return out;
}

std::string tokenizer_config_eos(const std::string& tokenizer_json) {
  const auto tokens = folder_special_tokens(tokenizer_json);
  const auto it = tokens.find("eos_token");
  return it == tokens.end() ? "" : it->second;
}

}  // namespace runner::data
