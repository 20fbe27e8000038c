// Learning-rate schedules. Each is HF's LambdaLR multiplier λ(s) of the base learning rate,
// where s counts scheduler steps already taken (s = 0 for the first optimizer step).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace runner::optim {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual double factor(int64_t s) const = 0;
  // The multiplier for the step about to be taken; step() advances.
  double current_factor() const { return factor(step_); }
  void step() { ++step_; }
  int64_t steps_taken() const { return step_; }
  void set_steps_taken(int64_t s) { step_ = s; }

 private:
  int64_t step_ = 0;
};

// HF get_scheduler(name, num_warmup_steps, num_training_steps, lr_scheduler_kwargs).
// `base_lr` is needed by the schedules whose kwargs are absolute learning rates
// (polynomial lr_end, cosine_with_min_lr min_lr). Bad kwargs are ArgumentErrors naming
// args.lr_scheduler_kwargs.<key>.
std::unique_ptr<Scheduler> make_scheduler(const std::string& type, int64_t num_warmup_steps, int64_t num_training_steps,
                                          const nlohmann::json& kwargs, double base_lr);

// A schedule given as a function (recipe hooks): λ(s).
std::unique_ptr<Scheduler> make_lambda_scheduler(std::function<double(int64_t)> fn);

}  // namespace runner::optim
