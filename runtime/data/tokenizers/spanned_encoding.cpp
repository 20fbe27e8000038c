// HfTokenizer's encodings that remember where each token came from: the texts are encoded with
// offsets and their tokens tagged with their index before the post-processor lays them out
// (and truncation cuts them), so each laid-out token maps back to its text and offsets.
#include <algorithm>

#include "runtime/core/errors.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::data {

// The first text whole and the second's tokens [begin, end), laid out as lay_out does; with
// `pair` false the second's tokens alone, as a single text (sequence id 0).
HfTokenizer::SpannedEncoding HfTokenizer::lay_out_spanned(const Encoding enc[2], bool add_special_tokens, int64_t max_length, int64_t begin,
                                                         int64_t end, bool pair) const {
  const int64_t n0 = static_cast<int64_t>(enc[0].ids.size());
  // Word ids tag the tokens: i for the first text's token i, n0 + j for the second's token j.
  std::vector<int64_t> seq[2] = {enc[0].ids, std::vector<int64_t>(enc[1].ids.begin() + begin, enc[1].ids.begin() + end)}, words[2];
  for (int64_t i = 0; i < n0; ++i) words[0].push_back(i);
  for (int64_t j = begin; j < end; ++j) words[1].push_back(n0 + j);
  if (!pair) std::swap(seq[0], seq[1]), std::swap(words[0], words[1]);
  TypedEncoding laid = lay_out(seq, words, pair, add_special_tokens, max_length);
  SpannedEncoding out{std::move(laid.ids), std::move(laid.type_ids), {}, {}};
  for (int64_t word : laid.word_ids) {
    const int k = word < 0 ? -1 : word < n0 ? 0 : 1;
    out.sequence_ids.push_back(pair ? k : std::min(k, 0));
    out.offsets.push_back(k < 0 ? std::pair<size_t, size_t>{0, 0} : enc[k].offsets[static_cast<size_t>(k == 0 ? word : word - n0)]);
  }
  return out;
}

HfTokenizer::SpannedEncoding HfTokenizer::encode_spanned(std::string_view text, const std::string_view* pair, bool add_special_tokens,
                                                        int64_t max_length) const {
  // Without a pair the text is lay_out_spanned's second sequence, laid out alone.
  const Encoding enc[2] = {pair ? encode_with_offsets(text, false) : Encoding{}, encode_with_offsets(pair ? *pair : text, false)};
  return lay_out_spanned(enc, add_special_tokens, max_length, 0, static_cast<int64_t>(enc[1].ids.size()), pair != nullptr);
}

std::vector<HfTokenizer::SpannedEncoding> HfTokenizer::encode_windows(std::string_view first, const std::string_view* second, int64_t max_length,
                                                                      int64_t stride) const {
  // A pair's windows run over the second text (only_second), a single text's over itself.
  const bool pair = second != nullptr;
  const Encoding enc[2] = {pair ? encode_with_offsets(first, false) : Encoding{}, encode_with_offsets(pair ? *second : first, false)};
  std::vector<int64_t> none[2];
  const int64_t specials = static_cast<int64_t>(lay_out(none, none, pair, true, 0).ids.size());
  const int64_t n0 = static_cast<int64_t>(enc[0].ids.size()), n1 = static_cast<int64_t>(enc[1].ids.size());
  const int64_t room = max_length - specials - n0;  // the windowed text's tokens per window
  const std::string what = pair ? "the second text" : "the text";
  if (n1 > room && room <= 0)
    throw DataError("max_length " + std::to_string(max_length) + " leaves no room for " + what + (pair ? " beside the first's " + std::to_string(n0) + " tokens and " : " beside ") +
                        std::to_string(specials) + " special tokens" + (pair ? " (truncation only_second)" : ""),
                    path());
  if (n1 > room && stride >= room)
    throw DataError("stride " + std::to_string(stride) + " must be less than the " + std::to_string(room) + " tokens of " + what +
                        " a window holds (max_length " + std::to_string(max_length) + ")",
                    path());
  std::vector<SpannedEncoding> windows;
  for (int64_t start = 0;; start += room - stride) {
    const int64_t stop = std::min(start + std::max<int64_t>(room, 0), n1);
    windows.push_back(lay_out_spanned(enc, true, 0, start, stop, pair));
    if (stop >= n1) break;
  }
  return windows;
}

}  // namespace runner::data
