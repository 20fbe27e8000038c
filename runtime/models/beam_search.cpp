// Beam search with transformers' semantics (generation/utils.py _beam_search, v5): the same
// candidate counts, -1e9 sentinels, length penalty on the generated length and early-stop
// heuristic, so the same model gives the same sequences.
#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/models/generation.h"
#include "runtime/models/kv_cache.h"

namespace runner::models {

namespace {

constexpr double kNeg = -1.0e9;

// t (B, N, ...) → (B, k, ...): for each row b, t[b, index[b, j]].
at::Tensor gather_beams(const at::Tensor& t, const at::Tensor& index) {
  std::vector<int64_t> shape = index.sizes().vec();
  at::Tensor idx = index;
  for (int64_t d = 2; d < t.dim(); ++d) {
    idx = idx.unsqueeze(-1);
    shape.push_back(t.size(d));
  }
  return t.gather(1, idx.expand(shape));
}

}  // namespace

at::Tensor beam_search(Module& model, const at::Tensor& ids, const at::Tensor& attention_mask, const GenerationConfig& c) {
  if (c.early_stopping != "true" && c.early_stopping != "false" && c.early_stopping != "never")
    throw RecipeError("generate: early_stopping must be true, false or \"never\"");
  const bool stop_early = c.early_stopping == "true";
  const int64_t batch = ids.size(0), prompt = ids.size(1), beams = c.num_beams;
  const int64_t max_length = prompt + c.max_new_tokens;
  const int64_t n_eos = static_cast<int64_t>(c.eos_token_id.size());
  const int64_t keep = std::max<int64_t>(2, 1 + n_eos) * beams;
  const auto lopt = ids.options().dtype(at::kLong);
  const auto fopt = ids.options().dtype(at::kFloat);
  const auto bopt = ids.options().dtype(at::kBool);
  const at::Tensor top_beams = at::arange(keep, lopt).lt(beams).unsqueeze(0);  // the first num_beams candidates may finish
  const at::Tensor eos = at::tensor(c.eos_token_id.empty() ? std::vector<int64_t>{-1} : c.eos_token_id, lopt);
  const int64_t fill = c.pad_token_id >= 0 ? c.pad_token_id : (n_eos ? c.eos_token_id[0] : -1);

  at::Tensor running = at::full({batch, beams, max_length}, fill, lopt);
  running.narrow(2, 0, prompt).copy_(ids.unsqueeze(1).expand({batch, beams, prompt}));
  at::Tensor sequences = running.clone();
  at::Tensor running_scores = at::zeros({batch, beams}, fopt);
  running_scores.narrow(1, 1, beams - 1).fill_(kNeg);  // step one expands the first beam only
  at::Tensor scores = at::full({batch, beams}, kNeg, fopt);
  at::Tensor finished = at::zeros({batch, beams}, bopt);
  at::Tensor improvable = at::ones({batch, 1}, bopt);
  at::Tensor running_origin = at::full({batch, beams, std::max<int64_t>(c.max_new_tokens, 1)}, -1, lopt);
  at::Tensor origin = running_origin.clone();

  KVCache cache;
  at::Tensor step_mask = attention_mask.defined() ? attention_mask.repeat_interleave(beams, 0) : at::Tensor();
  at::Tensor next_input = ids.repeat_interleave(beams, 0);  // (B·nb, T)
  const at::Tensor batch_offset = at::arange(batch, lopt).unsqueeze(1) * beams;
  for (int64_t cur = prompt; cur < max_length; ++cur) {
    const at::Tensor logits = model.forward_cached(next_input, step_mask, cache, /*logits_to_keep=*/1).select(1, -1).to(at::kFloat);  // (B·nb, V)
    const int64_t vocab = logits.size(-1);
    // HF: the logits processors act on the log-probabilities, over each beam's tokens so far.
    const at::Tensor processed = penalize_repeats(logits.log_softmax(-1), running.narrow(2, 0, cur).reshape({batch * beams, cur}), c.repetition_penalty);
    const at::Tensor log_probs = (processed.view({batch, beams, vocab}) + running_scores.unsqueeze(2)).reshape({batch, beams * vocab});
    auto [top_scores, top_index] = log_probs.topk(keep);  // (B, K)
    const at::Tensor from_beam = top_index.div(vocab, "floor"), token = top_index.remainder(vocab);
    at::Tensor cand = gather_beams(running, from_beam);
    cand.select(2, cur).copy_(token);
    at::Tensor cand_origin = gather_beams(running_origin, from_beam);
    cand_origin.select(2, cur - prompt).copy_(from_beam + batch_offset);
    at::Tensor hits = at::isin(token, eos);
    if (cur + 1 >= max_length) hits.fill_(true);

    // The best num_beams candidates that did not stop keep running.
    const at::Tensor run_scores = top_scores + hits.to(at::kFloat) * kNeg;
    const at::Tensor next = std::get<1>(run_scores.topk(beams));
    running = gather_beams(cand, next);
    running_scores = gather_beams(run_scores, next);
    running_origin = gather_beams(cand_origin, next);

    // Candidates among the first num_beams that stopped join the finished, if they rank.
    const at::Tensor just_finished = hits.logical_and(top_beams);
    at::Tensor done_scores = top_scores / std::pow(static_cast<double>(cur + 1 - prompt), c.length_penalty);
    if (stop_early) done_scores = done_scores + finished.all(-1, true).to(at::kFloat) * kNeg;
    done_scores = done_scores + improvable.logical_not().to(at::kFloat) * kNeg + just_finished.logical_not().to(at::kFloat) * kNeg;
    const at::Tensor merged = at::cat({scores, done_scores}, 1);
    const at::Tensor best = std::get<1>(merged.topk(beams));
    sequences = gather_beams(at::cat({sequences, cand}, 1), best);
    scores = gather_beams(merged, best);
    origin = gather_beams(at::cat({origin, cand_origin}, 1), best);
    finished = gather_beams(at::cat({finished, just_finished}, 1), best);

    cache.select_rows(running_origin.select(2, cur - prompt).reshape({-1}));
    // HF's heuristic: stop once no running beam can beat the worst finished one.
    const int64_t best_len = (c.early_stopping == "never" && c.length_penalty > 0) ? max_length - prompt : cur + 1 - prompt;
    const at::Tensor best_possible = running_scores.narrow(1, 0, 1) / std::pow(static_cast<double>(best_len), c.length_penalty);
    const at::Tensor worst_done = at::where(finished, std::get<0>(scores.min(1, true)), at::full_like(scores, kNeg));
    improvable = improvable.logical_and(best_possible.gt(worst_done).any(-1, true));
    const bool open = !(finished.all().item<bool>() && stop_early);
    if (!improvable.any().item<bool>() || !open || hits.all().item<bool>()) break;
    next_input = running.select(2, cur).reshape({-1, 1});
    if (step_mask.defined()) step_mask = at::cat({step_mask, at::ones({step_mask.size(0), 1}, step_mask.options())}, 1);
  }
  const at::Tensor best_origin = origin.select(1, 0);  // (B, max_new)
  const int64_t generated = c.max_new_tokens == 0 ? 0 : best_origin.ne(-1).sum(1).max().item<int64_t>();
  return sequences.select(1, 0).narrow(1, 0, prompt + generated);
}

}  // namespace runner::models
