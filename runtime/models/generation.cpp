#include "runtime/models/generation.h"

#include <c10/core/GradMode.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/kv_cache.h"

namespace runner::models {

namespace {

void check(const GenerationConfig& c) {
  if (c.max_new_tokens < -1) throw RecipeError("generate: max_new_tokens must be >= 0");
  if (c.do_sample && !(c.temperature > 0) ) throw RecipeError("generate: temperature must be > 0 when sampling");
  if (c.top_k < 0) throw RecipeError("generate: top_k must be >= 0 (0: off)");
  if (!(c.top_p > 0 && c.top_p <= 1)) throw RecipeError("generate: top_p must be in (0, 1]");
  if (c.num_beams < 1) throw RecipeError("generate: num_beams must be >= 1");
  if (c.num_beams > 1 && c.do_sample) throw RecipeError("generate: beam search with do_sample is not supported (set do_sample = false)");
  if (!(c.repetition_penalty > 0)) throw RecipeError("generate: repetition_penalty must be > 0 (1: off)");
}

// HF's sampling warpers, in their order: temperature, top-k, top-p. Removed tokens get -inf.
at::Tensor warp(at::Tensor scores, const GenerationConfig& c) {
  if (c.temperature != 1.0) scores = scores / c.temperature;
  const int64_t vocab = scores.size(-1);
  if (c.top_k > 0 && c.top_k < vocab) {
    const at::Tensor kth = std::get<0>(scores.topk(c.top_k, -1)).narrow(-1, c.top_k - 1, 1);
    scores = scores.masked_fill(scores.lt(kth), -INFINITY);
  }
  if (c.top_p < 1.0) {
    // Keep the smallest set of most likely tokens whose probabilities reach top_p (at least one).
    auto [sorted, order] = scores.sort(-1, /*descending=*/false);
    const at::Tensor cumulative = sorted.softmax(-1).cumsum(-1);
    at::Tensor drop_sorted = cumulative.le(1.0 - c.top_p);
    drop_sorted.narrow(-1, vocab - 1, 1).fill_(false);
    scores = scores.masked_fill(drop_sorted.scatter(-1, order, drop_sorted), -INFINITY);
  }
  return scores;
}

int64_t pad_id(const GenerationConfig& c) {
  if (c.pad_token_id >= 0) return c.pad_token_id;
  return c.eos_token_id.empty() ? 0 : c.eos_token_id[0];
}

// Restores the model's training mode on every exit path.
struct EvalMode {
  explicit EvalMode(Module& m) : model(m), was_training(m.is_training()) { model.eval(); }
  ~EvalMode() { model.train(was_training); }
  Module& model;
  bool was_training;
};

at::Tensor greedy_or_sample(Module& model, const at::Tensor& ids, const at::Tensor& mask, const GenerationConfig& c) {
  KVCache cache;
  const int64_t b = ids.size(0);
  at::Tensor sequences = ids;
  at::Tensor step_mask = mask;
  at::Tensor unfinished = at::ones({b}, ids.options().dtype(at::kBool));
  const at::Tensor eos = at::tensor(c.eos_token_id.empty() ? std::vector<int64_t>{-1} : c.eos_token_id, ids.options());
  const int64_t pad = pad_id(c);
  at::Tensor next_input = ids;
  for (int64_t step = 0; step < c.max_new_tokens; ++step) {
    at::Tensor logits = model.forward_cached(next_input, step_mask, cache, /*logits_to_keep=*/1).select(1, -1).to(at::kFloat);  // (B, V)
    logits = penalize_repeats(logits, sequences, c.repetition_penalty);  // HF: processors, then warpers
    at::Tensor next;
    if (c.do_sample) next = at::multinomial(warp(logits, c).softmax(-1), 1).squeeze(1);
    else next = logits.argmax(-1);
    next = at::where(unfinished, next, at::full_like(next, pad));
    sequences = at::cat({sequences, next.unsqueeze(1)}, 1);
    if (!c.eos_token_id.empty()) unfinished = unfinished.logical_and(at::isin(next, eos).logical_not());
    if (step_mask.defined()) step_mask = at::cat({step_mask, at::ones({b, 1}, step_mask.options())}, 1);
    next_input = next.unsqueeze(1);
    if (!unfinished.any().item<bool>()) break;
  }
  return sequences;
}

// HF's _prepare_generated_length and _validate_generated_length, for max_new_tokens unset.
int64_t new_tokens_from_max_length(const GenerationConfig& c, int64_t prompt) {
  if (c.max_length) {
    if (*c.max_length <= prompt)
      throw RecipeError("generate: the prompt has " + std::to_string(prompt) + " tokens but max_length is " + std::to_string(*c.max_length) +
                        " (the length with the prompt); increase max_length or, better, set max_new_tokens");
    return *c.max_length - prompt;
  }
  int64_t length = prompt + 20;  // by default 20 new tokens, within the model's positions
  if (c.max_position_embeddings) length = std::min(length, *c.max_position_embeddings);
  if (length <= prompt)
    throw RecipeError("generate: the prompt has " + std::to_string(prompt) + " tokens, as many as the model's max_position_embeddings (" +
                      std::to_string(*c.max_position_embeddings) + "): no room for a new token");
  return length - prompt;
}

}  // namespace

at::Tensor generate(Module& model, const at::Tensor& input_ids, const at::Tensor& attention_mask, const GenerationConfig& config) {
  check(config);
  if (!model.can_generate())
    throw RecipeError(model.type_name() + " cannot generate: runner generates with a key/value cache, which the causal language models (models.gpt, models.llama, models.from_pretrained) have and this model has not");
  if (input_ids.dim() != 2 || input_ids.size(1) == 0) throw RecipeError("generate: input_ids must be (batch, length) with length > 0");
  if (attention_mask.defined() && !attention_mask.sizes().equals(input_ids.sizes()))
    throw RecipeError("generate: attention_mask must have input_ids' shape");
  materialize(model);  // a model whose weights are still in their files (runner generate RECIPE)
  c10::NoGradGuard no_grad;
  EvalMode eval(model);
  GenerationConfig c = config;
  if (c.max_new_tokens < 0) c.max_new_tokens = new_tokens_from_max_length(c, input_ids.size(1));
  // Prompts made on the host go where the weights are (the sequences come back from there).
  const at::Device device = model.device().value_or(input_ids.device());
  const at::Tensor ids = input_ids.to(device, at::kLong);
  const at::Tensor mask = attention_mask.defined() ? attention_mask.to(device) : attention_mask;
  if (c.num_beams > 1) return beam_search(model, ids, mask, c);
  return greedy_or_sample(model, ids, mask, c);
}

}  // namespace runner::models
