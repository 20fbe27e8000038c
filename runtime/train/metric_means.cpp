#include "runtime/train/metric_means.h"

#include <cmath>

#include "runtime/core/errors.h"

namespace runner::train {

void MetricMeans::reset(bool rank_parts) {
  sums_.clear();
  rank_parts_ = rank_parts;
}

namespace {

double identity(LossResult::Metric::Across a) { return a == LossResult::Metric::Across::kMin ? INFINITY : -INFINITY; }

}  // namespace

void MetricMeans::Sum::record(const at::Tensor& v) {
  if (!calls.defined() || n == calls.size(0)) {
    at::Tensor grown = at::empty({std::max<int64_t>(16, 2 * n)}, v.options());
    if (n > 0) grown.narrow(0, 0, n).copy_(calls.narrow(0, 0, n));
    calls = grown;
  }
  calls.narrow(0, n++, 1).copy_(v.reshape({1}));  // on the device: no wait for the GPU
}

void MetricMeans::add(const std::vector<LossResult::Metric>& metrics, bool counts) {
  for (const auto& m : metrics) {
    const at::Tensor v = m.value.detach().reshape({}).to(at::kDouble);
    Sum& s = sums_[m.name];
    if (!s.value.defined()) s.value = at::zeros({}, v.options()), s.weight = at::zeros({}, v.options());
    // Sums loaded from a checkpoint are on the host: they follow the values to the device, so
    // no later call copies its value back to the host (a wait for the GPU).
    if (s.value.device() != v.device()) s.value = s.value.to(v.device()), s.weight = s.weight.to(v.device());
    s.across = m.across;
    if (m.across != LossResult::Metric::Across::kMean) {
      // Every rank keeps one value per call, a stand-in's the identity of the reduction, so the
      // ranks' lists line up call by call.
      s.record(counts ? v : at::full({}, identity(m.across), v.options()));
      continue;
    }
    if (!counts) continue;
    s.value.add_(v);
    if (m.weight.defined()) s.weight.add_(m.weight.detach().reshape({}).to(s.weight.options()));
    else s.weight.add_(1.0);
  }
}

void MetricMeans::skip() {
  for (auto& [name, s] : sums_)
    if (s.across != LossResult::Metric::Across::kMean) s.record(at::full({}, identity(s.across), s.value.options()));
}

std::vector<double> MetricMeans::totals(const dist::DataParallel& dp) const {
  std::vector<double> v;
  if (rank_parts_ && dp.world() > 1) {
    // Every rank must sum the same names in the same order: agree on them first. Each rank's
    // (count, 16-bit hash of the names) and their squares are summed; all ranks agree exactly when
    // both have no variance (W·Σx² = (Σx)², exact in doubles at these sizes), and every rank
    // reads the same sums, so all throw or none does.
    uint32_t hash = 2166136261u;  // FNV-1a; a minimum's or maximum's calls count too
    for (const auto& [name, s] : sums_)
      for (const char c : name + (s.n == 0 ? "" : ":" + std::to_string(s.n)) + '\n')
        hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    const double n = static_cast<double>(sums_.size()), h = static_cast<double>(hash & 0xFFFFu);
    std::vector<double> agree{n, n * n, h, h * h};
    dp.sum(agree);
    const double w = dp.world();
    if (w * agree[1] != agree[0] * agree[0] || w * agree[3] != agree[2] * agree[2])
      throw HookError("the metrics compute_loss returns differ between ranks (every rank must report the same names; this one reports " +
                      std::to_string(sums_.size()) + ")");
  }
  for (const auto& [name, s] : sums_) v.push_back(s.value.item<double>());
  for (const auto& [name, s] : sums_) v.push_back(s.weight.item<double>());
  if (rank_parts_ && !v.empty()) dp.sum(v);
  const auto reduced = reduced_calls(dp);
  size_t i = 0;
  for (const auto& [name, s] : sums_) {
    if (auto it = reduced.find(name); it != reduced.end()) v[i] += it->second.first, v[sums_.size() + i] += it->second.second;
    ++i;
  }
  return v;
}

std::map<std::string, std::pair<double, double>> MetricMeans::reduced_calls(const dist::DataParallel& dp) const {
  std::vector<at::Tensor> all;
  for (const auto& [name, s] : sums_)
    if (s.n > 0) all.push_back(s.calls.narrow(0, 0, s.n).to(at::kCPU));
  std::map<std::string, std::pair<double, double>> out;
  if (all.empty()) return out;
  at::Tensor rows = at::cat(all).unsqueeze(0);  // (1, calls of every name)
  if (rank_parts_ && dp.world() > 1) rows = dp.all_gather_rows(rows.squeeze(0));  // (world, calls); the counts agree (totals)
  int64_t offset = 0;
  for (const auto& [name, s] : sums_) {
    if (s.n == 0) continue;
    const at::Tensor calls = rows.narrow(1, offset, s.n);
    const at::Tensor extreme = s.across == LossResult::Metric::Across::kMin ? calls.amin(0) : calls.amax(0);
    const at::Tensor made = extreme.isfinite();  // a call some rank made (the others skipped it)
    out[name] = {extreme.masked_select(made).sum().item<double>(), static_cast<double>(made.sum().item<int64_t>())};
    offset += s.n;
  }
  return out;
}

nlohmann::json MetricMeans::flush(const dist::DataParallel& dp, const std::string& prefix) {
  nlohmann::json out = nlohmann::json::object();
  if (!rank_parts_ && sums_.empty()) return out;
  const std::vector<double> v = totals(dp);
  const size_t n = sums_.size();
  size_t i = 0;
  for (const auto& [name, s] : sums_) {
    if (v[n + i] > 0) out[prefix + name] = v[i] / v[n + i];
    ++i;
  }
  // A fresh start that keeps the names: every rank goes on summing the same ones.
  for (auto& [name, s] : sums_) s.value.zero_(), s.weight.zero_(), s.n = 0;
  return out;
}

nlohmann::json MetricMeans::state(const dist::DataParallel& dp) const {
  nlohmann::json out = nlohmann::json::object();
  const std::vector<double> v = totals(dp);
  const size_t n = sums_.size();
  size_t i = 0;
  for (const auto& [name, s] : sums_) {
    out[name] = {v[i], v[n + i]};
    ++i;
  }
  return out;
}

void MetricMeans::load(const nlohmann::json& state, int rank) {
  sums_.clear();
  if (!state.is_object()) return;
  for (const auto& [name, pair] : state.items()) {
    Sum& s = sums_[name];
    const bool mine = !rank_parts_ || rank == 0;  // with rank parts, the global sums go to rank 0 only
    s.value = at::full({}, mine ? pair.at(0).get<double>() : 0.0, at::kDouble);
    s.weight = at::full({}, mine ? pair.at(1).get<double>() : 0.0, at::kDouble);
  }
}

}  // namespace runner::train
