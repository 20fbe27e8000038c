#include "runtime/data/tokenizers/unigram_model.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "runtime/data/tokenizers/byte_level.h"

namespace runner::data {

namespace {
constexpr double kUnknownPenalty = 10.0;  // SentencePiece's kUnkPenalty
}

UnigramModel::UnigramModel(const nlohmann::json& m) {
  const auto& vocab = m.at("vocab");
  if (!vocab.is_array()) throw std::runtime_error("Unigram: \"vocab\" must be a list of [piece, score]");
  double lowest = std::numeric_limits<double>::infinity();
  pieces_.reserve(vocab.size());
  for (const auto& entry : vocab) {
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number())
      throw std::runtime_error("Unigram: vocab entry " + std::to_string(pieces_.size()) + " is not [piece, score]");
    pieces_.emplace_back(entry[0].get<std::string>(), entry[1].get<double>());
    lowest = std::min(lowest, pieces_.back().second);
  }
  for (size_t id = 0; id < pieces_.size(); ++id) vocab_[pieces_[id].first] = static_cast<int64_t>(id);
  unk_score_ = lowest - kUnknownPenalty;
  if (m.contains("unk_id") && !m["unk_id"].is_null()) {
    const int64_t unk = m["unk_id"].get<int64_t>();
    if (unk < 0 || unk >= static_cast<int64_t>(pieces_.size()))
      throw std::runtime_error("Unigram: unk_id " + std::to_string(unk) + " is outside the vocabulary of " + std::to_string(pieces_.size()));
    unk_ = unk;
  }
  byte_fallback_ = m.value("byte_fallback", false);
  sorted_.reserve(vocab_.size());
  for (const auto& [piece, id] : vocab_) {
    if (piece.empty()) continue;  // matches nothing
    sorted_.emplace_back(piece, id);
    longest_ = std::max(longest_, piece.size());
  }
  std::sort(sorted_.begin(), sorted_.end());
}

std::vector<std::pair<std::string, int64_t>> UnigramModel::tokens() const {
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(pieces_.size());
  for (size_t id = 0; id < pieces_.size(); ++id) out.emplace_back(pieces_[id].first, static_cast<int64_t>(id));
  return out;
}

void UnigramModel::tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans) const {
  if (spans || word.size() >= 64) return segment(word, out, spans);
  cache_.append(word, out, [&](std::string_view w, std::vector<int64_t>& ids) { segment(w, ids, nullptr); });
}

void UnigramModel::segment(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans) const {
  if (word.empty()) return;
  struct Best {
    double score = 0;
    int64_t start = -1;  // -1: no path ends here yet
    int64_t id = 0;
  };
  std::vector<Best> best(word.size() + 1);
  auto offer = [&](size_t start, size_t end, double score, int64_t id) {
    Best& b = best[end];
    const double total = best[start].score + score;
    if (b.start < 0 || total > b.score) b = {total, static_cast<int64_t>(start), id};
  };
  for (size_t start = 0; start < word.size();) {
    const size_t char_len = utf8_length(word, start);
    bool single = false;
    // The pieces starting here, shortest first: narrow the sorted pieces byte by byte to those
    // sharing the prefix so far (all of them share the bytes before `k`).
    auto lo = sorted_.begin(), hi = sorted_.end();
    const size_t most = std::min(longest_, word.size() - start);
    for (size_t k = 0; k < most && lo != hi; ++k) {
      const int byte = static_cast<unsigned char>(word[start + k]);
      auto key = [k](const std::pair<std::string_view, int64_t>& p) { return p.first.size() > k ? static_cast<int>(static_cast<unsigned char>(p.first[k])) : -1; };
      lo = std::partition_point(lo, hi, [&](const auto& p) { return key(p) < byte; });
      hi = std::partition_point(lo, hi, [&](const auto& p) { return key(p) == byte; });
      if (lo != hi && lo->first.size() == k + 1) {  // the prefix itself is a piece
        offer(start, start + k + 1, pieces_[lo->second].second, lo->second);
        single = single || k + 1 == char_len;
      }
    }
    if (!single) {
      if (!unk_) throw std::runtime_error("Unigram: the text needs the unknown piece, and the model has no unk_id");
      offer(start, start + char_len, unk_score_, *unk_);
    }
    start += char_len;
  }
  // Back from the end: the best path's pieces, runs of unknown pieces fused into one.
  std::vector<std::pair<size_t, size_t>> cuts;
  size_t unknown_end = 0;
  bool in_unknown = false;
  for (size_t end = word.size(); end > 0;) {
    const Best& b = best[end];
    const size_t start = static_cast<size_t>(b.start);
    if (unk_ && b.id == *unk_) {
      if (!in_unknown) unknown_end = end;
      in_unknown = true;
    } else {
      if (in_unknown) cuts.emplace_back(end, unknown_end);
      in_unknown = false;
      cuts.emplace_back(start, end);
    }
    end = start;
  }
  if (in_unknown) cuts.emplace_back(0, unknown_end);
  std::reverse(cuts.begin(), cuts.end());
  // Each piece by its text, as tokenizers looks it up: a fused run is unknown, or its bytes.
  for (const auto& [b, e] : cuts) {
    const std::string piece(word.substr(b, e - b));
    if (auto it = vocab_.find(piece); it != vocab_.end()) {
      out.push_back(it->second);
      if (spans) spans->emplace_back(b, e);
      continue;
    }
    if (byte_fallback_) {
      std::vector<int64_t> bytes;
      char name[8];
      for (const char c : piece) {
        std::snprintf(name, sizeof name, "<0x%02X>", static_cast<unsigned char>(c));
        auto it = vocab_.find(name);
        if (it == vocab_.end()) break;
        bytes.push_back(it->second);
      }
      if (bytes.size() == piece.size()) {
        for (const int64_t id : bytes) {
          out.push_back(id);
          if (spans) spans->emplace_back(b, e);
        }
        continue;
      }
    }
    if (!unk_) throw std::runtime_error("Unigram: the text needs the unknown piece, and the model has no unk_id");
    out.push_back(*unk_);
    if (spans) spans->emplace_back(b, e);
  }
}

}  // namespace runner::data
