#include "runtime/data/tokenizers/bpe_model.h"

#include <algorithm>
#include <cstdio>
#include <queue>
#include <stdexcept>

#include "runtime/data/tokenizers/byte_level.h"

namespace runner::data {

using nlohmann::json;

namespace {

constexpr size_t kCachedWordBytes = 256;  // longer words are merged every time (or cut, below)

uint64_t pair_key(uint64_t a, uint64_t b) { return a << 32 | (b & 0xFFFFFFFFu); }

}  // namespace

BpeModel::BpeModel(const json& m) {
  if (!m.contains("vocab") || !m["vocab"].is_object()) throw std::runtime_error("model.vocab: expected an object of token -> id");
  for (auto it = m["vocab"].begin(); it != m["vocab"].end(); ++it) {
    if (!it->is_number_integer()) throw std::runtime_error("model.vocab." + it.key() + ": expected an integer id");
    const int64_t id = it->get<int64_t>();
    if (id < 0 || id > 0xFFFFFFFF) throw std::runtime_error("model.vocab." + it.key() + ": id out of range");
    vocab_[it.key()] = id;
  }
  auto id_of = [&](const std::string& token) {
    auto it = vocab_.find(token);
    if (it == vocab_.end()) throw std::runtime_error("model.merges: \"" + token + "\" is not in the vocabulary");
    return it->second;
  };
  int32_t rank = 0;
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
    // tokenizers refuses a merge whose parts or result are not tokens; a repeated pair keeps
    // its last rank, as tokenizers' map does.
    merges_[pair_key(id_of(a), id_of(b))] = Merge{rank++, id_of(a + b)};
  }
  if (m.contains("unk_token") && m["unk_token"].is_string()) {
    auto it = vocab_.find(m["unk_token"].get<std::string>());
    if (it == vocab_.end()) throw std::runtime_error("model.unk_token: not in the vocabulary");
    unk_ = it->second;
  }
  byte_fallback_ = m.value("byte_fallback", false);
  ignore_merges_ = m.value("ignore_merges", false);
  fuse_unk_ = m.value("fuse_unk", false);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    auto it = vocab_.find(name);
    byte_ids_[b] = it == vocab_.end() ? -1 : it->second;
  }
  for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (m.contains(k) && !m[k].is_null() && !(m[k].is_string() && m[k].get<std::string>().empty()))
      throw std::runtime_error(std::string("model.") + k + ": not supported");
  if (m.contains("dropout") && m["dropout"].is_number() && m["dropout"].get<double>() > 0)
    throw std::runtime_error("model.dropout: BPE dropout is for training only; set it to null");
  int64_t top = -1;
  for (const auto& [token, id] : vocab_) top = std::max(top, id);
  if (top < 2 * static_cast<int64_t>(vocab_.size()) + 256) {
    token_bytes_.assign(static_cast<size_t>(top + 1), 0);
    for (const auto& [token, id] : vocab_) token_bytes_[static_cast<size_t>(id)] = static_cast<uint32_t>(token.size());
    if (byte_fallback_)
      for (int64_t id : byte_ids_)
        if (id >= 0) token_bytes_[static_cast<size_t>(id)] = 1;
    if (unk_) token_bytes_[static_cast<size_t>(*unk_)] = 0;
  }
  for (const auto& [token, id] : vocab_) {
    uint32_t prev = 0;
    for (size_t i = 0; i < token.size();) {
      const size_t n = utf8_length(token, i);
      const uint32_t cp = utf8_code_point(token, i, n);
      if (i > 0) inner_pairs_.insert(pair_key(prev, cp));
      else if (n == token.size()) char_tokens_.insert(cp);
      prev = cp, i += n;
    }
  }
}

std::vector<int64_t> BpeModel::merge_word(std::string_view word, std::vector<uint32_t>* lengths) const {
  // Characters to ids first, as tokenizers does: a character outside the vocabulary becomes its
  // <0xXX> byte tokens (byte_fallback) or the unknown token, a run of unknowns one token with
  // fuse_unk. A pending unknown is written at the next known character or the end, so it lands
  // after byte-fallback tokens met meanwhile: tokenizers' order, kept for identical ids.
  std::vector<int64_t> ids;
  std::vector<uint32_t> len;  // each symbol's bytes, when asked for
  auto add = [&](int64_t id, size_t n) {
    ids.push_back(id);
    if (lengths) len.push_back(static_cast<uint32_t>(n));
  };
  bool pending_unk = false;  // unknown characters not written yet, pending_len bytes of them
  size_t pending_len = 0;
  std::string ch;
  for (size_t i = 0; i < word.size();) {
    const size_t n = utf8_length(word, i);
    ch.assign(word.substr(i, n));
    i += n;
    if (auto it = vocab_.find(ch); it != vocab_.end()) {
      if (pending_unk) add(*unk_, pending_len), pending_unk = false;
      add(it->second, n);
      continue;
    }
    bool all_bytes = byte_fallback_;
    for (unsigned char c : ch) all_bytes = all_bytes && byte_ids_[c] >= 0;
    if (all_bytes) {
      for (unsigned char c : ch) add(byte_ids_[c], 1);
      continue;
    }
    if (!unk_) continue;  // without an unknown token the character is dropped, as tokenizers does
    if (pending_unk && fuse_unk_) {
      pending_len += n;
      continue;
    }
    if (pending_unk) add(*unk_, pending_len);
    pending_unk = true, pending_len = n;
  }
  if (pending_unk) add(*unk_, pending_len);
  if (ids.size() < 2) {
    if (lengths) *lengths = std::move(len);
    return ids;
  }

  // tokenizers' merge loop: a queue of candidate pairs by (rank, position); an entry whose pair
  // no longer yields the same token (a neighbour merged first) is skipped. Linear in practice
  // and O(n log n) at worst, where repeatedly rescanning the word would be quadratic.
  const int n = static_cast<int>(ids.size());
  std::vector<int> prev(n), next(n);
  std::vector<char> removed(n, 0);
  for (int i = 0; i < n; ++i) prev[i] = i - 1, next[i] = i + 1 < n ? i + 1 : -1;
  struct Candidate {
    int32_t rank, pos;
    int64_t id;
    bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }  // a min-queue
  };
  std::priority_queue<Candidate> queue;
  auto offer = [&](int pos) {
    if (pos < 0 || next[pos] < 0) return;
    auto m = merges_.find(pair_key(ids[pos], ids[next[pos]]));
    if (m != merges_.end()) queue.push({m->second.rank, pos, m->second.id});
  };
  for (int i = 0; i + 1 < n; ++i) offer(i);
  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    if (removed[c.pos] || next[c.pos] < 0) continue;
    const int right = next[c.pos];
    auto m = merges_.find(pair_key(ids[c.pos], ids[right]));
    if (m == merges_.end() || m->second.id != c.id) continue;
    ids[c.pos] = c.id;
    if (lengths) len[c.pos] += len[right];
    removed[right] = 1;
    next[c.pos] = next[right];
    if (next[right] >= 0) prev[next[right]] = c.pos;
    offer(prev[c.pos]);
    offer(c.pos);
  }
  std::vector<int64_t> merged;
  if (lengths) lengths->clear();
  for (int i = 0; i >= 0; i = next[i]) {  // symbol 0 is never the right side of a merge
    merged.push_back(ids[i]);
    if (lengths) lengths->push_back(len[i]);
  }
  return merged;
}

bool BpeModel::cut_between(uint32_t left, uint32_t right) const {
  // No merge crosses a boundary between two characters that are tokens themselves when no token
  // contains the pair: a merge's result is a token, and it would contain both.
  return char_tokens_.count(left) && char_tokens_.count(right) && !inner_pairs_.count(pair_key(left, right));
}

void BpeModel::tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans) const {
  const size_t first = out.size();
  tokenize_ids(word, out);
  if (!spans || spans_from_lengths(word, out, first, *spans)) return;
  // Unknown tokens: merge again, keeping each symbol's length.
  out.resize(first);
  std::vector<uint32_t> lengths;
  const std::vector<int64_t> ids = merge_word(word, &lengths);
  out.insert(out.end(), ids.begin(), ids.end());
  size_t at = 0;
  for (uint32_t n : lengths) spans->emplace_back(at, at + n), at += n;
}

bool BpeModel::spans_from_lengths(std::string_view word, const std::vector<int64_t>& out, size_t first,
                                  std::vector<std::pair<size_t, size_t>>& spans) const {
  const size_t mark = spans.size();
  size_t at = 0;
  for (size_t k = first; k < out.size(); ++k) {
    const auto id = static_cast<size_t>(out[k]);
    const uint32_t n = id < token_bytes_.size() ? token_bytes_[id] : 0;
    if (n == 0) break;
    spans.emplace_back(at, at + n), at += n;
  }
  if (spans.size() - mark == out.size() - first && at == word.size()) return true;
  spans.resize(mark);
  return false;
}

void BpeModel::tokenize_ids(std::string_view word, std::vector<int64_t>& out) const {
  if (word.empty()) return;
  if (ignore_merges_) {  // Llama 3: a word that is a whole token is not merged piece by piece
    auto it = vocab_.find(std::string(word));
    if (it != vocab_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  if (word.size() < kCachedWordBytes) return tokenize_cached(word, out);
  // A long word is cut where no merge can cross, so that its pieces hit the cache and the
  // result is the one the whole word gives.
  size_t begin = 0;
  uint32_t prev = 0;
  for (size_t i = 0; i < word.size();) {
    const size_t n = utf8_length(word, i);
    const uint32_t cp = utf8_code_point(word, i, n);
    if (i > begin && cut_between(prev, cp)) {
      tokenize_cached(word.substr(begin, i - begin), out);
      begin = i;
    }
    prev = cp, i += n;
  }
  tokenize_cached(word.substr(begin), out);
}

void BpeModel::tokenize_cached(std::string_view word, std::vector<int64_t>& out) const {
  if (word.size() >= kCachedWordBytes) {
    const std::vector<int64_t> ids = merge_word(word);
    out.insert(out.end(), ids.begin(), ids.end());
    return;
  }
  cache_.append(word, out, [&](std::string_view w, std::vector<int64_t>& ids) { ids = merge_word(w); });
}

}  // namespace runner::data
