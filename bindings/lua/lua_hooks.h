// The Lua implementation of the trainer's Hooks: the recipe's functions under HF's method
// names. Each call from C++ into Lua leaves the Lua stack as it found it (tested in
// tests/bindings/test_stack_balance.cpp); a Lua error becomes a HookError carrying the
// recipe's file:line.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "bindings/lua/lua_call.h"
#include "runtime/data/collator.h"
#include "runtime/train/hooks.h"
#include "runtime/train/builtin_loss.h"

namespace runner::lua {

class LuaHooks : public train::Hooks, public std::enable_shared_from_this<LuaHooks> {
 public:
  // `table_idx`: the recipe table; hook functions are looked up by name.
  LuaHooks(lua_State* L, int table_idx, std::string origin);
  std::optional<train::LossResult> compute_loss(models::Module& model, const train::Batch& inputs, train::LossContext& ctx) override;
  std::optional<at::Tensor> training_step(models::Module& model, const train::Batch& inputs, train::LossContext& ctx) override;
  std::optional<train::PredictionResult> prediction_step(models::Module& model, const train::Batch& inputs, bool loss_only) override;
  bool has_compute_metrics() const override { return has("compute_metrics"); }
  nlohmann::json compute_metrics(const train::EvalPrediction& p, bool compute_result) override;
  std::optional<at::Tensor> preprocess_logits_for_metrics(const at::Tensor& logits, const at::Tensor& labels) override;
  std::optional<train::OptimizerSpec> create_optimizer(models::Module& model, const TrainingArguments& args) override;
  std::optional<train::SchedulerSpec> create_scheduler(int64_t num_training_steps, const TrainingArguments& args) override;
  models::ModulePtr model_init() override;
  std::vector<std::string> step_hooks() const override;
  bool loss_without_labels() const override { return builtin_loss_ != nullptr; }
  // compute_loss = models.dpo_loss{...}: its reference is settled for the recipe's model now,
  // before a resumed run loads trained weights into it.
  void attach_model(models::Module& model);
  std::string origin() const override { return origin_; }
  void collect_garbage() override;

  // A search trial's parameters, given to model_init (HF: model_init(trial)); null: none.
  void set_model_init_argument(nlohmann::json params) { model_init_argument_ = std::move(params); }

  // The recipe's data_collator(examples) → batch, or an empty function.
  data::Collator data_collator();
  bool has(const std::string& hook) const { return fns_.count(hook) != 0 || (hook == "compute_loss" && builtin_loss_); }

 private:
  // Pushes the hook; returns false if the recipe does not define it.
  bool push(const std::string& name) const;
  // pcall with the hook's name in errors; the results stay on the stack.
  void call(const std::string& name, int nargs, int nresults) const;
  [[noreturn]] void fail(const std::string& name, const std::string& message) const;
  std::vector<train::LossResult::Metric> metrics_of(int idx) const;  // compute_loss's third result
  lua_State* L_;
  std::map<std::string, std::unique_ptr<LuaRef>> fns_;
  std::map<std::string, std::string> where_;  // file:line where each hook is defined
  std::string origin_;
  nlohmann::json model_init_argument_;
  std::shared_ptr<train::BuiltinLoss> builtin_loss_;  // compute_loss = models.dpo_loss{...}, models.reward_loss{...}
};

// The hook names a recipe may define (HF method names).
const std::vector<std::string>& hook_names();

}  // namespace runner::lua
