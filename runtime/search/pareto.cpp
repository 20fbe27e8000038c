#include "runtime/search/pareto.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace runner::search {

namespace {

bool usable(const Trial& t, size_t n_objectives) {
  if (t.state != Trial::State::kComplete || t.values.size() != n_objectives || n_objectives == 0) return false;
  return std::none_of(t.values.begin(), t.values.end(), [](double v) { return std::isnan(v); });
}

}  // namespace

bool dominates(const std::vector<double>& a, const std::vector<double>& b, const std::vector<Direction>& directions) {
  bool strictly = false;
  for (size_t i = 0; i < directions.size(); ++i) {
    if (better(b[i], a[i], directions[i])) return false;
    if (better(a[i], b[i], directions[i])) strictly = true;
  }
  return strictly;
}

std::vector<int> nondominated_ranks(const std::vector<std::vector<double>>& points,
                                    const std::vector<Direction>& directions) {
  const size_t n = points.size();
  std::vector<int> rank(n, -1), dominated_by(n, 0);
  std::vector<std::vector<size_t>> dominates_list(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      if (dominates(points[i], points[j], directions)) {
        dominates_list[i].push_back(j);
        ++dominated_by[j];
      } else if (dominates(points[j], points[i], directions)) {
        dominates_list[j].push_back(i);
        ++dominated_by[i];
      }
    }
  std::vector<size_t> front;
  for (size_t i = 0; i < n; ++i)
    if (dominated_by[i] == 0) front.push_back(i);
  for (int r = 0; !front.empty(); ++r) {
    std::vector<size_t> next;
    for (size_t i : front) {
      rank[i] = r;
      for (size_t j : dominates_list[i])
        if (--dominated_by[j] == 0) next.push_back(j);
    }
    front = std::move(next);
  }
  return rank;
}

std::vector<double> crowding_distance(const std::vector<std::vector<double>>& points,
                                      const std::vector<size_t>& members) {
  const size_t n = members.size();
  std::vector<double> dist(n, 0.0);
  if (n == 0) return dist;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<size_t> order(n);
  for (size_t m = 0; m < points[members[0]].size(); ++m) {
    std::iota(order.begin(), order.end(), 0);
    auto value = [&](size_t i) { return points[members[i]][m]; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return value(a) < value(b); });
    double span = value(order.back()) - value(order.front());
    dist[order.front()] = dist[order.back()] = inf;
    if (span <= 0) continue;
    for (size_t i = 1; i + 1 < n; ++i) dist[order[i]] += (value(order[i + 1]) - value(order[i - 1])) / span;
  }
  return dist;
}

std::vector<size_t> select_best(const std::vector<std::vector<double>>& points,
                                const std::vector<Direction>& directions, size_t k) {
  const size_t n = points.size();
  k = std::min(k, n);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (directions.size() == 1) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return better(points[a][0], points[b][0], directions[0]); });
    order.resize(k);
  } else {
    std::vector<int> rank = nondominated_ranks(points, directions);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank[a] < rank[b]; });
    if (k > 0 && k < n && rank[order[k - 1]] == rank[order[k]]) {
      // The cut falls inside a front: take its members by crowding distance.
      int last = rank[order[k - 1]];
      auto begin = std::find_if(order.begin(), order.end(), [&](size_t i) { return rank[i] == last; });
      auto end = std::find_if(begin, order.end(), [&](size_t i) { return rank[i] != last; });
      std::vector<size_t> members(begin, end);
      std::vector<double> crowd = crowding_distance(points, members);
      std::vector<size_t> by_crowd(members.size());
      std::iota(by_crowd.begin(), by_crowd.end(), 0);
      std::stable_sort(by_crowd.begin(), by_crowd.end(), [&](size_t a, size_t b) { return crowd[a] > crowd[b]; });
      for (size_t i = 0; i < members.size(); ++i) *(begin + i) = members[by_crowd[i]];
    }
    order.resize(k);
  }
  std::sort(order.begin(), order.end());
  return order;
}

std::vector<int> pareto_front(const std::vector<Trial>& trials, const std::vector<Direction>& directions) {
  std::vector<const Trial*> kept;
  std::vector<std::vector<double>> points;
  for (const auto& t : trials)
    if (usable(t, directions.size())) {
      kept.push_back(&t);
      points.push_back(t.values);
    }
  std::vector<int> rank = nondominated_ranks(points, directions), front;
  for (size_t i = 0; i < kept.size(); ++i)
    if (rank[i] == 0) front.push_back(kept[i]->number);
  std::sort(front.begin(), front.end());
  return front;
}

int best_trial(const std::vector<Trial>& trials, Direction direction) {
  const Trial* best = nullptr;
  for (const auto& t : trials) {
    if (t.state != Trial::State::kComplete || t.values.empty() || std::isnan(t.values[0])) continue;
    if (!best || better(t.values[0], best->values[0], direction) ||
        (t.values[0] == best->values[0] && t.number < best->number))
      best = &t;
  }
  return best ? best->number : -1;
}

}  // namespace runner::search
