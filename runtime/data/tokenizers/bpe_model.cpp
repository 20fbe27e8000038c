#include "runtime/data/tokenizers/bpe_model.h"

#include <climits>
#include <cstdio>
#include <stdexcept>

#include "runtime/data/tokenizers/byte_level.h"

namespace runner::data {

using nlohmann::json;

namespace {
std::string pair_key(const std::string& a, const std::string& b) { return a + std::string(1, '\0') + b; }
}  // namespace

BpeModel::BpeModel(const json& m) {
  if (!m.contains("vocab") || !m["vocab"].is_object()) throw std::runtime_error("model.vocab: expected an object of token -> id");
  for (auto it = m["vocab"].begin(); it != m["vocab"].end(); ++it) {
    if (!it->is_number_integer()) throw std::runtime_error("model.vocab." + it.key() + ": expected an integer id");
    vocab_[it.key()] = it->get<int64_t>();
  }
  int rank = 0;
  for (const auto& merge : m.value("merges", json::array())) {
    std::string a, b;
    if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {  // tokenizers >= 0.20
      a = merge[0].get<std::string>(), b = merge[1].get<std::string>();
    } else if (merge.is_string()) {  // "a b" (older files)
      const std::string s = merge.get<std::string>();
      const size_t space = s.find(' ', 1);
      if (space == std::string::npos) throw std::runtime_error("model.merges: \"" + s + "\" is not \"left right\"");
      a = s.substr(0, space), b = s.substr(space + 1);
    } else {
      throw std::runtime_error("model.merges: expected [\"left\", \"right\"] pairs");
    }
    ranks_.emplace(pair_key(a, b), rank++);
  }
  if (m.contains("unk_token") && m["unk_token"].is_string()) {
    auto it = vocab_.find(m["unk_token"].get<std::string>());
    if (it == vocab_.end()) throw std::runtime_error("model.unk_token: not in the vocabulary");
    unk_ = it->second;
  }
  byte_fallback_ = m.value("byte_fallback", false);
  ignore_merges_ = m.value("ignore_merges", false);
  fuse_unk_ = m.value("fuse_unk", false);
  for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (m.contains(k) && !m[k].is_null() && !(m[k].is_string() && m[k].get<std::string>().empty()))
      throw std::runtime_error(std::string("model.") + k + ": not supported");
  if (m.contains("dropout") && m["dropout"].is_number() && m["dropout"].get<double>() > 0)
    throw std::runtime_error("model.dropout: BPE dropout is for training only; set it to null");
}

std::vector<int64_t> BpeModel::merge_word(std::string_view word) const {
  std::vector<int64_t> ids;
  if (ignore_merges_) {  // Llama 3: a word that is a whole token is not merged piece by piece
    auto it = vocab_.find(std::string(word));
    if (it != vocab_.end()) return {it->second};
  }
  std::vector<std::string> symbols;
  for (size_t i = 0; i < word.size();) {
    const size_t n = utf8_length(word, i);
    symbols.emplace_back(word.substr(i, n));
    i += n;
  }
  // The lowest-ranked adjacent pair is merged, leftmost first among equals, until none is left.
  for (;;) {
    int best = INT_MAX;
    size_t at = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      auto r = ranks_.find(pair_key(symbols[i], symbols[i + 1]));
      if (r != ranks_.end() && r->second < best) best = r->second, at = i;
    }
    if (best == INT_MAX) break;
    symbols[at] += symbols[at + 1];
    symbols.erase(symbols.begin() + static_cast<long>(at) + 1);
  }
  bool last_unk = false;
  for (const auto& s : symbols) {
    auto it = vocab_.find(s);
    if (it != vocab_.end()) {
      ids.push_back(it->second);
      last_unk = false;
      continue;
    }
    if (byte_fallback_) {  // SentencePiece-style: unknown characters as <0xXX> byte tokens
      bool all = true;
      std::vector<int64_t> bytes;
      for (unsigned char c : s) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", c);
        auto b = vocab_.find(name);
        if (b == vocab_.end()) {
          all = false;
          break;
        }
        bytes.push_back(b->second);
      }
      if (all) {
        ids.insert(ids.end(), bytes.begin(), bytes.end());
        last_unk = false;
        continue;
      }
    }
    if (unk_ && !(fuse_unk_ && last_unk)) ids.push_back(*unk_);
    last_unk = true;  // without an unk token the piece is dropped, as tokenizers does
  }
  return ids;
}

void BpeModel::tokenize(std::string_view word, std::vector<int64_t>& out) const {
  if (word.empty()) return;
  const std::string key(word);
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int64_t> ids = merge_word(word);
  out.insert(out.end(), ids.begin(), ids.end());
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() < 1000000 && key.size() < 256) cache_.emplace(key, std::move(ids));
}

}  // namespace runner::data
