#include "runtime/search/rng.h"
#include "runtime/search/sampler.h"
#include "runtime/search/space.h"

namespace runner::search {

namespace {

class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(uint64_t seed) : seed_(seed) {}

  nlohmann::json sample(const std::vector<Trial>&, const Trial& trial, const std::string& name,
                        const Distribution& d) override {
    d.check(name);
    Rng rng = make_rng(seed_, trial.number, name);
    return draw_uniform(d, rng);
  }

 private:
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<Sampler> make_random_sampler(uint64_t seed) { return std::make_unique<RandomSampler>(seed); }

}  // namespace runner::search
