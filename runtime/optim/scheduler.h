// Learning-rate schedules. Each is HF's LambdaLR multiplier λ(s) of the base learning rate,
// where s counts scheduler steps already taken (s = 0 for the first optimizer step).
// ReduceLROnPlateau is the exception: its multiplier moves with evaluation metrics, not s.
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

  // Whether the schedule moves with an evaluation metric (ReduceLROnPlateau): the Trainer
  // then calls on_metric() after each evaluation during training.
  virtual bool watches_metric() const { return false; }
  virtual void on_metric(double /*value*/) {}

  // Checkpoint state. The default is {"steps_taken": n}: λ(s) needs nothing else.
  virtual nlohmann::json state() const;
  virtual void load_state(const nlohmann::json& state);

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

// torch.optim.lr_scheduler.ReduceLROnPlateau, defaults included. min_lr is an absolute
// learning rate, compared like torch does with base_lr × multiplier.
struct PlateauOptions {
  std::string mode = "min";            // "min" | "max"
  double factor = 0.1;                 // < 1
  int64_t patience = 10;               // bad evaluations tolerated before a reduction
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // "rel" | "abs"
  int64_t cooldown = 0;                // evaluations ignored after a reduction
  double min_lr = 0.0;
  double eps = 1e-8;                   // reductions smaller than this are skipped
};

// The multiplier only changes in on_metric() (the Trainer calls it after each evaluation);
// factor(s) returns it for every s, so the base class's step() leaves it alone.
class PlateauScheduler : public Scheduler {
 public:
  PlateauScheduler(PlateauOptions options, double base_lr);
  double factor(int64_t) const override { return multiplier_; }
  bool watches_metric() const override { return true; }
  void on_metric(double value) override;

  // steps_taken plus best, num_bad_epochs, cooldown_counter, last_epoch and multiplier;
  // a non-finite best is stored as the string "inf", "-inf" or "nan" (JSON has no such numbers).
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  int64_t cooldown_counter() const { return cooldown_counter_; }
  int64_t last_epoch() const { return last_epoch_; }

 private:
  bool is_better(double value) const;

  PlateauOptions o_;
  double base_lr_;
  double multiplier_ = 1.0;
  double best_;
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
};

// From args.lr_scheduler_kwargs (every PlateauOptions field by name, plus torch 1.13's
// `verbose`, accepted and ignored). Bad kwargs are ArgumentErrors naming the key.
std::unique_ptr<PlateauScheduler> make_plateau_scheduler(const nlohmann::json& kwargs, double base_lr);

}  // namespace runner::optim
