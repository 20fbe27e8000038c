// mlm_collate: transformers' DataCollatorForLanguageModeling with mlm=True, the collator of
// masked-language-model training (run_mlm.py). It pads as pad_collate, then picks about
// mlm_probability of the real, non-special tokens; labels keep those tokens' ids and are
// label_pad_id (-100) everywhere else; of the picked inputs, mask_replace_prob become the mask
// token, random_replace_prob a token drawn uniformly from the vocabulary, and the rest stay.
//
// Unlike transformers, whose draws come from the process's global generator, each example's
// draws are a pure function of (seed, epoch, the example's index in the dataset)
// (BatchOrigin): the masks do not depend on the batch size, the world size, the data workers
// or a resume, and an evaluation set gets the same masks at every evaluation.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/data/collator.h"

namespace runner::data {

struct MlmOptions {
  PadOptions pad;              // padding as pad_collate
  int64_t mask_token_id = -1;  // the tokenizer's mask_token ([MASK], <mask>)
  int64_t vocab_size = 0;      // random replacements are drawn from [0, vocab_size): len(tokenizer)
  // Ids never picked (the tokenizer's special tokens: HF's get_special_tokens_mask). An
  // example's own `special_tokens_mask` field (1 = special) is used instead when it has one,
  // and is not passed on to the model. Padding is never picked.
  std::vector<int64_t> special_ids;
  double mlm_probability = 0.15;
  double mask_replace_prob = 0.8;
  double random_replace_prob = 0.1;
  // transformers' whole_word_mask: a word (tokens whose offsets touch, from each example's
  // `offset_mapping` (T, 2), which is then dropped) is picked or not as a whole, by the draw of
  // its first token; each picked token is then replaced or kept by its own draws. Without it an
  // example's offset_mapping is dropped all the same.
  bool whole_word_mask = false;
  // The draws' seed; unset: the run's (BatchOrigin::seed, i.e. TrainingArguments::seed).
  std::optional<uint64_t> seed;
};

// ArgumentError for probabilities outside [0, 1] (mask + random > 1 included), no mask token
// or a mask token outside the vocabulary.
Collator mlm_collate(MlmOptions options);

}  // namespace runner::data
