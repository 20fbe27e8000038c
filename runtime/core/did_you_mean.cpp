#include "runtime/core/did_you_mean.h"

#include <algorithm>
#include <cstdint>

namespace runner {

size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const auto& c : candidates) {
    size_t dist = edit_distance(word, c);
    // A word contained in a candidate ("epochs" in "num_train_epochs") is also a good hint.
    if (word.size() >= 4 && c.find(word) != std::string::npos) dist = std::min<size_t>(dist, 2);
    if (dist < best_distance) best_distance = dist, best = c;
  }
  const size_t allowed = std::max<size_t>(2, word.size() / 3);
  return best_distance <= allowed ? best : "";
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best = closest_match(word, candidates);
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

}  // namespace runner
