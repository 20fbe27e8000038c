#include "runtime/data/mlm_collator.h"

#include <algorithm>
#include <string>

#include "runtime/core/errors.h"
#include "runtime/core/splitmix.h"

namespace runner::data {

namespace {

// One example's draws: SplitMix64 (runtime/core/splitmix.h, the same on every platform) from
// a key mixed out of (seed, epoch, index), so nearby keys give unrelated streams.
class Draws {
 public:
  Draws(uint64_t seed, int64_t epoch, int64_t index)
      : state_(splitmix64_mix(splitmix64_mix(splitmix64_mix(seed) ^ static_cast<uint64_t>(epoch)) ^ static_cast<uint64_t>(index))) {}
  double uniform() { return static_cast<double>(splitmix64(state_) >> 11) * 0x1.0p-53; }  // [0, 1)
  int64_t below(int64_t n) {  // [0, n), without modulo bias worth naming for n < 2^32
    return static_cast<int64_t>((static_cast<unsigned __int128>(splitmix64(state_)) * static_cast<uint64_t>(n)) >> 64);
  }

 private:
  uint64_t state_;
};

// The examples without their offset_mapping, which `offsets` receives (each (T, 2) int64, T
// the example's input_ids length): whole-word masking reads it, the model does not.
std::vector<Example> without_offsets(const std::vector<Example>& examples, std::vector<at::Tensor>& offsets) {
  std::vector<Example> out;
  for (const Example& e : examples) {
    auto it = e.find("offset_mapping");
    auto ids = e.find("input_ids");
    if (it == e.end())
      throw DataError("mlm_collate: whole_word_mask needs each example's offset_mapping (tok(text, {return_offsets_mapping = true})); "
                      "either every example has one or none");
    if (ids == e.end() || it->second.dim() != 2 || it->second.size(1) != 2 || it->second.size(0) != ids->second.size(0))
      throw DataError("mlm_collate: offset_mapping must be (tokens, 2), a (begin, end) pair per input_ids token");
    offsets.push_back(it->second.to(at::kCPU, at::kLong).contiguous());
    Example copy = e;
    copy.erase("offset_mapping");
    out.push_back(std::move(copy));
  }
  return out;
}

void check_probability(double p, const char* name) {
  if (!(p >= 0 && p <= 1)) throw ArgumentError(std::string(name) + " must be in [0, 1], got " + std::to_string(p));
}

}  // namespace

Collator mlm_collate(MlmOptions o) {
  check_probability(o.mlm_probability, "mlm_probability");
  check_probability(o.mask_replace_prob, "mask_replace_prob");
  check_probability(o.random_replace_prob, "random_replace_prob");
  if (o.mask_replace_prob + o.random_replace_prob > 1 + 1e-12)
    throw ArgumentError("mask_replace_prob + random_replace_prob must be <= 1, got " + std::to_string(o.mask_replace_prob + o.random_replace_prob));
  if (o.vocab_size <= 0) throw ArgumentError("vocab_size must be > 0 (random replacements are drawn from it)");
  if (o.mask_token_id < 0 || o.mask_token_id >= o.vocab_size)
    throw ArgumentError(o.mask_token_id < 0 ? "masked language modelling needs a mask token (the tokenizer has no mask_token)"
                                            : "mask_token_id " + std::to_string(o.mask_token_id) + " is outside the vocabulary of " +
                                                  std::to_string(o.vocab_size));
  std::sort(o.special_ids.begin(), o.special_ids.end());
  const bool user_mask = o.pad.attention_mask;
  o.pad.attention_mask = true;  // padding is never picked: the mask says where it is
  const Collator pad = pad_collate(o.pad);
  return [o, pad, user_mask](const std::vector<Example>& examples, const BatchOrigin& origin) {
    const bool own_mask = !examples.empty() && examples.front().count("attention_mask");
    std::vector<at::Tensor> offsets;  // whole_word_mask: each example's (T, 2), taken out before padding
    // An offset_mapping is whole-word masking's, never the model's: taken out (required with whole_word_mask).
    const bool has_offsets = !examples.empty() && examples.front().count("offset_mapping");
    Batch b = o.whole_word_mask || has_offsets ? pad(without_offsets(examples, offsets), origin) : pad(examples, origin);
    auto ids_it = b.find("input_ids");
    if (ids_it == b.end()) throw DataError("mlm_collate: the examples have no 'input_ids' field to mask");
    at::Tensor inputs = ids_it->second.to(at::kLong).contiguous().clone();
    if (inputs.dim() != 2) throw DataError("mlm_collate: input_ids must be 1-D per example");
    at::Tensor labels = at::full_like(inputs, o.pad.label_pad_id);
    at::Tensor special;  // the examples' own special_tokens_mask: used, then dropped (as transformers pops it)
    if (auto s = b.find("special_tokens_mask"); s != b.end()) special = s->second.to(at::kLong).contiguous(), b.erase(s);
    if (special.defined() && !special.sizes().equals(inputs.sizes()))
      throw DataError("mlm_collate: an example's special_tokens_mask must have its input_ids' length");
    at::Tensor real;
    if (auto m = b.find("attention_mask"); m != b.end()) real = m->second.to(at::kLong).contiguous();
    if (real.defined() && !real.sizes().equals(inputs.sizes())) real = at::Tensor();
    const int64_t rows = inputs.size(0), width = inputs.size(1);
    if (static_cast<int64_t>(origin.indices.size()) != rows)
      throw DataError("mlm_collate: " + std::to_string(origin.indices.size()) + " example indices for " + std::to_string(rows) + " examples");
    int64_t* in = inputs.data_ptr<int64_t>();
    int64_t* lab = labels.data_ptr<int64_t>();
    const int64_t* sp = special.defined() ? special.data_ptr<int64_t>() : nullptr;
    const int64_t* re = real.defined() ? real.data_ptr<int64_t>() : nullptr;
    const uint64_t seed = o.seed.value_or(origin.seed);
    const double to_mask = o.mask_replace_prob, to_random = o.mask_replace_prob + o.random_replace_prob;
    for (int64_t r = 0; r < rows; ++r) {
      Draws draw(seed, origin.epoch, origin.indices[static_cast<size_t>(r)]);
      // Draws follow the example's own tokens: with left padding they start after the pads,
      // so a token's fate does not depend on how long the batch's longest example is.
      // (The padding: the row's width less the example's own length, whatever its attention_mask holds.)
      const int64_t lead = o.pad.pad_left ? width - examples[static_cast<size_t>(r)].at("input_ids").size(0) : 0;
      // whole_word_mask: the example's token offsets (as many as its input_ids), from `lead` on.
      const int64_t own = o.whole_word_mask ? offsets[static_cast<size_t>(r)].size(0) : 0;
      const int64_t* off = o.whole_word_mask ? offsets[static_cast<size_t>(r)].data_ptr<int64_t>() : nullptr;
      bool word_picked = false, previous_special = false;
      int64_t previous_end = -1;
      for (int64_t t = lead; t < width; ++t) {
        const int64_t i = r * width + t;
        // Three draws for every position, picked or not, so a position's fate depends on its
        // own draws alone (not on padding or special tokens elsewhere in the row).
        const double pick = draw.uniform(), how = draw.uniform();
        const int64_t random_id = draw.below(o.vocab_size);
        const bool eligible = (re == nullptr || re[i] != 0) &&
                              (sp ? sp[i] == 0 : !std::binary_search(o.special_ids.begin(), o.special_ids.end(), in[i]));
        if (off) {
          // transformers' _calc_word_ids_and_prob_mask: a token starts a word unless it begins
          // where the previous one ended (and that one was not special); its draw decides the word.
          const int64_t k = t - lead;
          const bool inside = k >= 0 && k < own;
          const int64_t begin = inside ? off[2 * k] : -1, end = inside ? off[2 * k + 1] : -1;
          if (eligible && (begin != previous_end || previous_special)) word_picked = pick < o.mlm_probability;
          previous_special = !eligible, previous_end = end;
          if (!eligible || !word_picked) continue;
        } else if (!eligible || pick >= o.mlm_probability) {
          continue;
        }
        lab[i] = in[i];
        if (how < to_mask) in[i] = o.mask_token_id;
        else if (how < to_random) in[i] = random_id;
      }
    }
    b["input_ids"] = inputs;
    b["labels"] = labels;
    if (!user_mask && !own_mask) b.erase("attention_mask");
    return b;
  };
}

}  // namespace runner::data
