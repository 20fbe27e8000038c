// Collators turn a list of examples into a batch.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/data/example.h"

namespace runner::data {

// Where a batch's examples come from: the epoch and each example's index in the dataset (for a
// data.stream, a key of its position in the stream). Collators that draw random numbers
// (mlm_collate) seed each example's draws from these, so a batch is the same whichever worker
// builds it, at any batch size or world size, and after a resume.
struct BatchOrigin {
  uint64_t seed = 0;  // the run's seed (TrainingArguments::seed)
  int64_t epoch = 0;
  std::vector<int64_t> indices;  // one per example
  static BatchOrigin sequential(size_t n);  // epoch 0, indices 0 .. n-1: a collator called by hand
};

// A function of the examples (and, for those that draw random numbers, their origin). Must be
// safe to call from several threads at once when a DataLoader is told so
// (LoaderOptions::collator_thread_safe); every collator below is.
class Collator {
 public:
  using Fn = std::function<Batch(const std::vector<Example>&, const BatchOrigin&)>;
  Collator() = default;
  // Implicit, as std::function's: from a function of (examples, origin), or of the examples
  // alone (most collators).
  template <class F, std::enable_if_t<std::is_invocable_r_v<Batch, F, const std::vector<Example>&, const BatchOrigin&>, int> = 0>
  Collator(F f) : fn_(std::move(f)) {}  // NOLINT
  template <class F, std::enable_if_t<std::is_invocable_r_v<Batch, F, const std::vector<Example>&> &&
                                          !std::is_invocable_v<F, const std::vector<Example>&, const BatchOrigin&>,
                                      int> = 0>
  Collator(F f) : fn_([f = std::move(f)](const std::vector<Example>& e, const BatchOrigin&) { return f(e); }) {}  // NOLINT
  explicit operator bool() const { return static_cast<bool>(fn_); }
  Batch operator()(const std::vector<Example>& examples, const BatchOrigin& origin) const { return fn_(examples, origin); }
  Batch operator()(const std::vector<Example>& examples) const { return fn_(examples, BatchOrigin::sequential(examples.size())); }

 private:
  Fn fn_;
};

// HF default_data_collator: stack each field along a new dim 0; `label` and `label_ids`
// are renamed to `labels`. Examples must agree on fields and shapes (a DataError names the
// field otherwise: variable-length fields need a padding collator).
Batch default_collate(const std::vector<Example>& examples);

// Number of examples in a batch (dim 0 of its first field).
int64_t batch_size_of(const Batch& batch);

struct PadOptions {
  int64_t pad_token_id = 0;
  int64_t label_pad_id = -100;  // the ignore_index of the losses
  // Fields padded along their dim 0 to the batch's longest. Unset: every field that is
  // 1-D in every example. Other fields are stacked as by default_collate.
  std::optional<std::vector<std::string>> fields;
  bool attention_mask = true;  // add "attention_mask" when the examples have none
  // HF tokenizers' padding_side = "left": pad before the tokens, as generation from a batch of
  // prompts needs (every padded field, labels included).
  bool pad_left = false;
  // HF's pad_to_multiple_of: the padded length of the token fields (those as long as input_ids,
  // or the first of `fields`, in every example) rounded up to a multiple of it (8 or 64 keeps
  // fp16/bf16 matrix shapes friendly to tensor cores); 0 = the longest as it is.
  int64_t pad_to_multiple_of = 0;
};

// HF DataCollatorWithPadding, right padding (left with pad_left): `labels` (and `label`, `label_ids`, renamed
// to `labels`) pad with label_pad_id, an example's own `attention_mask` with 0, everything
// else with pad_token_id. The added attention_mask (int64, 1 = real, 0 = padding) follows
// `input_ids` when it is padded, else the first of `fields` when they are given; otherwise
// none is added (a default-padded 1-D feature vector needs no mask).
Collator pad_collate(PadOptions options = {});

// pad_collate for causal language modelling (HF DataCollatorForLanguageModeling with
// mlm=False): when the examples have no labels, labels = input_ids with padded positions
// set to label_pad_id (by position, so a real token equal to pad_token_id still counts).
Collator lm_collate(PadOptions options = {});

// HF DataCollatorForMultipleChoice: each example's choices (C, T_i) fields (input_ids,
// attention_mask, token_type_ids: every field that is 2-D in every example, C alike) padded along
// their tokens to the batch's longest (rounded up to pad_to_multiple_of), input_ids with
// pad_token_id and the others with 0, into (B, C, T); everything else stacked as by
// default_collate (`label` becomes `labels`).
Collator multiple_choice_collate(PadOptions options = {});

// HF DataCollatorWithFlattening (padding-free training): the batch's examples concatenated into
// one row, input_ids (1, total), position_ids restarting at 0 for each example, and labels =
// each example's labels (else its input_ids) with its first token set to `separator_id`, so
// no example is trained to predict its first token from the one before it. Other fields are
// dropped. Models that keep packed sequences apart (Llama family) read the boundaries from
// position_ids; the Trainer refuses such a batch for any other model.
Collator flattening_collate(int64_t separator_id = -100);

}  // namespace runner::data
