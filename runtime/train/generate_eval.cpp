// predict_with_generate (HF Seq2SeqTrainer.prediction_step): in evaluation and prediction the
// predictions handed to compute_metrics are generated ids, not logits. As HF does for
// decoder-only models, generation starts from the batch's whole input_ids (with its
// attention_mask: left-padded prompts), the result holds prompt and new tokens, and a batch
// shorter than generation_max_length is padded to it with the pad id (the batches are then
// concatenated, padded with -100 like any predictions).
#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"
#include "runtime/models/generation.h"
#include "runtime/train/evaluator.h"

namespace runner::train {

at::Tensor Evaluator::generate_predictions(const Batch& batch) {
  auto ids_it = batch.find("input_ids");
  if (ids_it == batch.end() || !ids_it->second.defined())
    throw DataError("args.predict_with_generate: the evaluation batch has no input_ids to generate from");
  const at::Tensor ids = ids_it->second;
  auto mask_it = batch.find("attention_mask");
  const at::Tensor mask = mask_it == batch.end() ? at::Tensor() : mask_it->second;
  // HF Seq2SeqTrainer: generation_max_length and generation_num_beams over the model's
  // generation config (config.json, generation_config.json; its max_new_tokens still wins).
  models::GenerationConfig g = models::generation_defaults(*ctx_.model);
  const int64_t prompt = ids.size(1);
  g.max_length = ctx_.args.generation_max_length ? *ctx_.args.generation_max_length : g.max_length.value_or(20);
  if (ctx_.args.generation_num_beams) g.num_beams = *ctx_.args.generation_num_beams;
  const int64_t max_length = g.max_new_tokens >= 0 ? prompt + g.max_new_tokens : *g.max_length;
  if (g.max_new_tokens < 0 && prompt >= max_length && !warned_generation_length_) {
    // HF warns too and still generates one token.
    log::warn("predict_with_generate: inputs of " + std::to_string(prompt) + " tokens reach generation_max_length " +
              std::to_string(max_length) + " (it counts the prompt): one new token each");
    warned_generation_length_ = true;
  }
  // ZeRO-3 / FSDP full sharding: generation runs a forward per new token, a different number
  // on each rank, so the parameters are gathered whole for it (once per batch, on every rank:
  // evaluation batches are in lockstep) and the hooks pause. An error here ends the run on
  // every rank, so no release (a collective) is attempted on the way out.
  ctx_.dp.hold_whole_params(true);
  at::Tensor out = models::generate(*ctx_.model, ids, mask, g);
  ctx_.dp.hold_whole_params(false);
  if (out.size(1) < max_length) {
    const int64_t pad = g.pad_token_id >= 0 ? g.pad_token_id : (g.eos_token_id.empty() ? 0 : g.eos_token_id[0]);
    out = at::cat({out, at::full({out.size(0), max_length - out.size(1)}, pad, out.options())}, 1);
  }
  return out;
}

}  // namespace runner::train
