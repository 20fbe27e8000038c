#include "runtime/data/qa_postprocess.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "runtime/core/errors.h"

namespace runner::data {

namespace {

struct Candidate {
  std::string text;
  double score = 0, start_logit = 0, end_logit = 0;
  bool null = false;  // the first token's "no answer"
};

// The indices of the n largest of `v` (its first `length`), largest first.
std::vector<int64_t> top(const float* v, int64_t length, int64_t n) {
  std::vector<int64_t> idx(static_cast<size_t>(length));
  std::iota(idx.begin(), idx.end(), 0);
  const auto k = static_cast<size_t>(std::min<int64_t>(n, length));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](int64_t a, int64_t b) { return v[a] > v[b] || (v[a] == v[b] && a > b); });  // np.argsort reversed: ties, later first
  idx.resize(k);
  return idx;
}

}  // namespace

std::vector<QaPrediction> qa_postprocess(const QaFeatures& features, const at::Tensor& logits, const QaPostprocessOptions& o) {
  const auto& feats = features.features();
  if (!logits.defined() || logits.dim() != 3 || logits.size(1) < 1 || logits.size(2) != 2 || logits.size(0) != static_cast<int64_t>(feats.size()))
    throw DataError("predictions must be (features, tokens, 2) start and end logits, one row per feature (" + std::to_string(feats.size()) +
                        "), got " + (logits.defined() ? c10::str(logits.sizes()) : std::string("none")),
                    features.describe());
  if (o.n_best_size < 1 || o.max_answer_length < 1) throw DataError("n_best_size and max_answer_length must be >= 1", features.describe());
  // NaN (a diverged model) ranks last, as np.argsort puts it, and keeps the sorts' ordering strict.
  const at::Tensor l = at::nan_to_num(logits.detach().to(at::kCPU, at::kFloat), -std::numeric_limits<float>::infinity()).contiguous();
  const at::Tensor starts = l.select(2, 0).contiguous(), ends = l.select(2, 1).contiguous();
  const int64_t width = l.size(1);
  const auto& examples = features.examples();
  std::vector<std::vector<size_t>> per_example(examples.size());
  for (size_t i = 0; i < feats.size(); ++i) {
    if (feats[i].example < 0 || feats[i].example >= static_cast<int64_t>(examples.size()))
      throw DataError("feature " + std::to_string(i) + " names example " + std::to_string(feats[i].example) + " of " + std::to_string(examples.size()),
                      features.describe());
    per_example[static_cast<size_t>(feats[i].example)].push_back(i);
  }
  std::vector<QaPrediction> out;
  for (size_t k = 0; k < examples.size(); ++k) {
    const std::string& context = examples[k].context;
    std::vector<Candidate> candidates;
    std::optional<Candidate> null;
    for (size_t i : per_example[k]) {
      const auto& offsets = feats[i].context_offsets;
      const int64_t length = std::min<int64_t>(static_cast<int64_t>(offsets.size()), width);
      const float* s = starts.data_ptr<float>() + static_cast<int64_t>(i) * width;
      const float* e = ends.data_ptr<float>() + static_cast<int64_t>(i) * width;
      const double null_score = static_cast<double>(s[0]) + e[0];
      if (!null || null->score > null_score) null = Candidate{"", null_score, s[0], e[0], true};
      const std::vector<int64_t> best_ends = top(e, length, o.n_best_size);
      for (int64_t a : top(s, length, o.n_best_size))
        for (int64_t b : best_ends) {
          if (offsets[a].first < 0 || offsets[b].first < 0 || b < a || b - a + 1 > o.max_answer_length) continue;
          const auto begin = static_cast<size_t>(offsets[a].first), end = static_cast<size_t>(offsets[b].second);
          candidates.push_back({context.substr(begin, end > begin ? end - begin : 0), static_cast<double>(s[a]) + e[b], s[a], e[b], false});
        }
    }
    if (o.version_2_with_negative && null) candidates.push_back(*null);
    std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    if (static_cast<int64_t>(candidates.size()) > o.n_best_size) candidates.resize(static_cast<size_t>(o.n_best_size));
    if (o.version_2_with_negative && null && std::none_of(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.null; }))
      candidates.push_back(*null);
    // HF's stand-in when no span was valid.
    if (candidates.empty() || (candidates.size() == 1 && candidates[0].text.empty())) candidates.insert(candidates.begin(), Candidate{"empty"});
    QaPrediction p{examples[k].id, candidates[0].text, 0.0};
    if (o.version_2_with_negative && null) {
      size_t i = 0;
      while (i + 1 < candidates.size() && candidates[i].text.empty()) ++i;
      p.null_score_diff = null->score - candidates[i].start_logit - candidates[i].end_logit;
      p.text = p.null_score_diff > o.null_score_diff_threshold ? std::string() : candidates[i].text;
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace runner::data
