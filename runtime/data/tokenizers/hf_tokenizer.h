// An HF `tokenizer.json` (the `tokenizers` library's format) loaded and run in C++: BPE as
// GPT-2, Llama 3 and Qwen 2 use it (byte-level) and as Llama 2, Mistral and TinyLlama use it
// (SentencePiece style: "▁" for spaces, <0xXX> byte fallback), and WordPiece as BERT uses it
// (BertNormalizer, BertPreTokenizer, "##" pieces). Pipeline, as in `tokenizers`:
// added tokens are split off first (they are never cut), the normalizer and pre-tokenizer
// (pre_tokenizers.h) cut the rest into words, the model cuts each word into tokens (BPE merges,
// bpe_model.h; WordPiece pieces, wordpiece_model.h), the
// post-processor adds the template's special tokens; the decoder (decoders.h) turns tokens
// back into text. Components this loader does not know are refused by name.
// encode_with_offsets() runs the same steps on text that remembers where each byte came from
// (aligned_text.h), as tokenizers' NormalizedString does, so each token's offsets are the ones
// the `tokenizers` library gives (Encoding.offsets; transformers' return_offsets_mapping), in
// bytes rather than characters: what data.sft labels from. encode() stays the fast path.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace runner::data {

class HfTokenizer {
 public:
  // DataError naming the file and the unsupported or malformed part.
  static std::shared_ptr<HfTokenizer> load(const std::string& path);
  ~HfTokenizer();

  // `add_special_tokens`: apply the post-processor's template (HF's default: true).
  std::vector<int64_t> encode(std::string_view text, bool add_special_tokens = true) const;
  // The same ids, each with the [begin, end) bytes of `text` it came from: a token's first and
  // last characters in the input, through every normalizer and pre-tokenizer edit (a prepended
  // "▁" belongs to the first character, a byte-fallback or byte-level piece to its whole
  // character, an added token with lstrip/rstrip to the spaces it took); the post-processor's
  // special tokens get (0, 0). Where `text` is not valid UTF-8, a U+FFFD's token covers the bytes
  // it replaced.
  struct Encoding {
    std::vector<int64_t> ids;
    std::vector<std::pair<size_t, size_t>> offsets;
  };
  Encoding encode_with_offsets(std::string_view text, bool add_special_tokens = true) const;
  // transformers' tokenizer(text[, text_pair], truncation=True, max_length=...): the ids of one
  // text or of a pair laid out by the post-processor's pair template ([CLS] A [SEP] B [SEP]),
  // with each token's sequence id (token_type_ids: the template's type ids; without a template
  // 0 for the text, 1 for the pair). `max_length` > 0 cuts the texts' tokens first, so the
  // result with its special tokens has at most that many: a single text from its end, a pair
  // one token at a time from the longer (HF's "longest_first"). A DataError when the special
  // tokens alone exceed it.
  struct TypedEncoding {
    std::vector<int64_t> ids, type_ids;
    std::vector<int64_t> word_ids;  // encode_words: each token's word (-1: a special token); else all -1
  };
  TypedEncoding encode_typed(std::string_view text, const std::string_view* pair = nullptr, bool add_special_tokens = true,
                             int64_t max_length = 0) const;
  // transformers' tokenizer(words, is_split_into_words=True): each word encoded on its own, as
  // tokenizers' pre-tokenized input, and word_ids() telling which word each token came from
  // (what token classification aligns its word labels with).
  TypedEncoding encode_words(const std::vector<std::string>& words, const std::vector<std::string>* pair = nullptr,
                             bool add_special_tokens = true, int64_t max_length = 0) const;
  // Encodings that keep where each token came from (spanned_encoding.cpp): sequence_ids is -1
  // for a special token, else 0 or 1 for the text it came from; offsets are bytes of that text
  // ((0, 0) for a special token).
  struct SpannedEncoding {
    std::vector<int64_t> ids, type_ids, sequence_ids;
    std::vector<std::pair<size_t, size_t>> offsets;
  };
  // encode_typed with offsets (transformers' return_offsets_mapping).
  SpannedEncoding encode_spanned(std::string_view text, const std::string_view* pair, bool add_special_tokens, int64_t max_length) const;
  // transformers' tokenizer(first, second, truncation="only_second", max_length=M, stride=S,
  // return_overflowing_tokens=True, return_offsets_mapping=True), as extractive question
  // answering reads a long context: the pair laid out by the post-processor once per window of
  // the second text's tokens, each window as long as the room M leaves beside the first text
  // and the special tokens, the next starting S tokens before the previous one ends (tokenizers'
  // Encoding::truncate), the last reaching the end. Without `second`, the windows of one text
  // (tokenizer(text, truncation=True, max_length=M, stride=S, return_overflowing_tokens=True)).
  // DataError when the first text leaves no room, or S is not below the room.
  std::vector<SpannedEncoding> encode_windows(std::string_view first, const std::string_view* second, int64_t max_length, int64_t stride) const;
  // The post-processor's tokens before and after a single text (Llama 2: <s> and none).
  const std::vector<int64_t>& special_prefix() const;
  const std::vector<int64_t>& special_suffix() const;
  std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const;
  int64_t vocab_size() const;  // the model's vocabulary plus added tokens (HF get_vocab_size(with_added_tokens=True))
  int64_t token_to_id(const std::string& token) const;  // -1 when absent
  std::vector<int64_t> special_ids() const;              // the added tokens marked special, ascending
  std::string id_to_token(int64_t id) const;            // "" when absent
  const std::string& path() const;  // the tokenizer.json it was loaded from (its folder holds the model's other files)

  struct Impl;

 private:
  explicit HfTokenizer(std::unique_ptr<Impl> impl);
  TypedEncoding lay_out(std::vector<int64_t> seq[2], std::vector<int64_t> words[2], bool pair, bool add_special_tokens, int64_t max_length) const;
  SpannedEncoding lay_out_spanned(const Encoding enc[2], bool add_special_tokens, int64_t max_length, int64_t begin, int64_t end, bool pair) const;
  std::unique_ptr<Impl> impl_;
};

// The special tokens (bos_token, eos_token, pad_token, ...) a model folder declares, as
// transformers finds them: the tokenizer_config.json next to `tokenizer_json` (a string, or
// the {"content": ...} form), else special_tokens_map.json, else the defaults of the
// tokenizer_class it names (GPT2Tokenizer's <|endoftext|>, LlamaTokenizer's <s> </s> <unk>).
std::map<std::string, std::string> folder_special_tokens(const std::string& tokenizer_json);
// Its eos_token, "" when there is none.
std::string tokenizer_config_eos(const std::string& tokenizer_json);

}  // namespace runner::data
