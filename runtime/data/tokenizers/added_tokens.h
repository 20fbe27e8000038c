// A tokenizer.json's added tokens of one kind (matched in the raw text, or in the normalized
// text), found leftmost-longest as tokenizers' Aho-Corasick automaton finds them, with their
// lstrip, rstrip and single_word rules.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace runner::data {

class AddedMatcher {
 public:
  struct Entry {
    std::string pattern;
    int64_t id;
    bool lstrip, rstrip;
    bool single_word = false;  // only where no word character is right before or after it
  };
  void add(Entry e);
  // Calls gap(begin, end) for the text between tokens and token(id, begin, end) for each token
  // (the spaces lstrip and rstrip took included), in order.
  template <class Gap, class Token>
  void split(std::string_view text, Gap gap, Token token) const {
    if (empty_) {
      if (!text.empty()) gap(size_t{0}, text.size());
      return;
    }
    size_t start = 0;
    for (size_t i = 0; i < text.size();) {
      const Entry* hit = nullptr;
      for (const Entry& e : by_first_byte_[static_cast<unsigned char>(text[i])])
        if (text.compare(i, e.pattern.size(), e.pattern) == 0) {
          hit = &e;
          break;
        }
      if (!hit) {
        ++i;
        continue;
      }
      size_t b = i, e = i + hit->pattern.size();
      if (hit->single_word && !stands_alone(text, b, e)) {  // tokenizers drops the match and goes on after it
        i = e;
        continue;
      }
      if (hit->lstrip) b = std::max(start, spaces_before(text, b));
      if (hit->rstrip) e = spaces_after(text, e);
      if (b > start) gap(start, b);
      token(hit->id, b, e);
      start = i = e;
    }
    if (start < text.size()) gap(start, text.size());
  }

 private:
  static size_t spaces_before(std::string_view s, size_t at);
  static size_t spaces_after(std::string_view s, size_t at);
  static bool stands_alone(std::string_view s, size_t begin, size_t end);
  std::array<std::vector<Entry>, 256> by_first_byte_;
  bool empty_ = true;
};

}  // namespace runner::data
