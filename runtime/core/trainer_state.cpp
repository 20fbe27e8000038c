#include "runtime/core/trainer_state.h"

#include <cmath>

#include "runtime/core/json_fields.h"

namespace runner {

using nlohmann::json;

namespace {
template <class T>
json opt(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }
}  // namespace

int64_t TrainerState::resolve_steps(double value, int64_t max_steps) {
  if (value < 1) return static_cast<int64_t>(std::ceil(static_cast<double>(max_steps) * value));
  return static_cast<int64_t>(value);
}

json TrainerState::to_json() const {
  return json{{"best_global_step", opt(best_global_step)},
              {"best_metric", opt(best_metric)},
              {"best_model_checkpoint", opt(best_model_checkpoint)},
              {"epoch", epoch},
              {"eval_steps", eval_steps},
              {"global_step", global_step},
              {"is_hyper_param_search", !trial_params.is_null()},
              {"is_local_process_zero", is_local_process_zero},
              {"is_world_process_zero", is_world_process_zero},
              {"log_history", log_history},
              {"logging_steps", logging_steps},
              {"max_steps", max_steps},
              {"num_input_tokens_seen", num_input_tokens_seen},
              {"num_train_epochs", num_train_epochs},
              {"save_steps", save_steps},
              {"stateful_callbacks", stateful_callbacks},
              {"total_flos", total_flos},
              {"train_batch_size", train_batch_size},
              {"trial_name", nullptr},
              {"trial_params", trial_params}};
}

TrainerState TrainerState::from_json(const json& j, const std::string& file) {
  const JsonFields f(j, file);
  TrainerState s;
  s.epoch = f.number("epoch", 0.0);
  s.global_step = f.integer("global_step", 0);
  s.max_steps = f.integer("max_steps", 0);
  s.logging_steps = f.integer("logging_steps", 500);
  s.eval_steps = f.integer("eval_steps", 500);
  s.save_steps = f.integer("save_steps", 500);
  s.num_train_epochs = f.integer("num_train_epochs", 0);
  s.train_batch_size = f.integer("train_batch_size", 0);
  s.num_input_tokens_seen = f.integer("num_input_tokens_seen", 0);
  s.total_flos = f.number("total_flos", 0.0);
  s.log_history = f.array("log_history");
  for (const auto& entry : s.log_history)
    if (!entry.is_object()) f.fail("log_history", "expected a list of objects, found " + entry.dump());
  s.best_metric = f.opt_number("best_metric");
  s.best_global_step = f.opt_integer("best_global_step");
  s.best_model_checkpoint = f.opt_string("best_model_checkpoint");
  s.is_local_process_zero = f.boolean("is_local_process_zero", true);
  s.is_world_process_zero = f.boolean("is_world_process_zero", true);
  s.stateful_callbacks = f.object("stateful_callbacks");
  if (auto it = j.find("trial_params"); it != j.end() && it->is_object()) s.trial_params = *it;
  if (s.global_step < 0) f.fail("global_step", "must be >= 0, got " + std::to_string(s.global_step));
  return s;
}

json TrainerControl::to_json() const {
  return json{{"should_epoch_stop", should_epoch_stop},
              {"should_evaluate", should_evaluate},
              {"should_log", should_log},
              {"should_save", should_save},
              {"should_training_stop", should_training_stop}};
}

TrainerControl TrainerControl::from_json(const json& j, const std::string& file) {
  const JsonFields f(j, file);
  TrainerControl c;
  c.should_epoch_stop = f.boolean("should_epoch_stop", false);
  c.should_evaluate = f.boolean("should_evaluate", false);
  c.should_log = f.boolean("should_log", false);
  c.should_save = f.boolean("should_save", false);
  c.should_training_stop = f.boolean("should_training_stop", false);
  return c;
}

}  // namespace runner
