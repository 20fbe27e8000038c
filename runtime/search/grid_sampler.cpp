#include <algorithm>
#include <limits>
#include <stdexcept>

#include "runtime/search/sampler.h"
#include "runtime/search/space.h"

namespace runner::search {

namespace {

class GridSampler : public Sampler {
 public:
  nlohmann::json sample(const std::vector<Trial>& history, const Trial& trial, const std::string& name,
                        const Distribution& d) override {
    if (axes_.empty()) adopt(history);
    size_t axis = learn(name, d);
    // Point n and point n mod size have the same digits, since size is a multiple of every radix prefix.
    int64_t n = trial.number % size_;
    if (n < 0) n += size_;
    for (size_t i = 0; i < axis; ++i) n /= axes_[i].count;
    return grid_value(d, n % axes_[axis].count);
  }

  std::optional<int64_t> grid_size() const override {
    if (axes_.empty()) return std::nullopt;
    return size_;
  }

 private:
  struct Axis {
    std::string name;
    Distribution d;
    int64_t count;
  };

  // A sampler joining an existing search takes the axis order the search already used, so the
  // trials still to come fill in the points its earlier trials did not.
  void adopt(const std::vector<Trial>& history) {
    std::vector<const Trial*> trials;
    for (const auto& t : history) trials.push_back(&t);
    std::stable_sort(trials.begin(), trials.end(),
                     [](const Trial* a, const Trial* b) { return a->number < b->number; });
    for (const Trial* t : trials) {
      for (const auto& [name, value] : t->params) {
        auto it = t->distributions.find(name);
        if (it == t->distributions.end() || !is_discrete(it->second) || find(name) < axes_.size()) continue;
        try {
          learn(name, it->second);
        } catch (const std::invalid_argument&) {
          // A parameter another sampler handled (unstepped, changed): it will be reported when suggested.
        }
      }
    }
  }

  size_t find(const std::string& name) const {
    for (size_t i = 0; i < axes_.size(); ++i)
      if (axes_[i].name == name) return i;
    return axes_.size();
  }

  size_t learn(const std::string& name, const Distribution& d) {
    size_t i = find(name);
    if (i < axes_.size()) {
      if (axes_[i].d != d)
        throw std::invalid_argument("grid search: parameter '" + name + "' changed its distribution between trials");
      return i;
    }
    d.check(name);
    if (!is_discrete(d))
      throw std::invalid_argument("grid search needs discrete values: give " + name +
                                  " a step or use suggest_categorical");
    int64_t count = grid_count(d);
    if (size_ > std::numeric_limits<int64_t>::max() / count)
      throw std::invalid_argument("grid search: adding parameter '" + name + "' makes the grid too large to enumerate");
    axes_.push_back({name, d, count});
    size_ *= count;
    return axes_.size() - 1;
  }

  std::vector<Axis> axes_;
  int64_t size_ = 1;
};

}  // namespace

std::unique_ptr<Sampler> make_grid_sampler() { return std::make_unique<GridSampler>(); }

}  // namespace runner::search
