#include "runtime/core/trainer_state.h"

#include <cmath>

namespace runner {

using nlohmann::json;

namespace {
template <class T>
json opt(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }
template <class T>
std::optional<T> get_opt(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}
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
              {"is_hyper_param_search", false},
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
              {"trial_params", nullptr}};
}

TrainerState TrainerState::from_json(const json& j) {
  TrainerState s;
  s.epoch = j.value("epoch", 0.0);
  s.global_step = j.value("global_step", int64_t{0});
  s.max_steps = j.value("max_steps", int64_t{0});
  s.logging_steps = j.value("logging_steps", int64_t{500});
  s.eval_steps = j.value("eval_steps", int64_t{500});
  s.save_steps = j.value("save_steps", int64_t{500});
  s.num_train_epochs = j.value("num_train_epochs", int64_t{0});
  s.train_batch_size = j.contains("train_batch_size") && !j["train_batch_size"].is_null() ? j["train_batch_size"].get<int64_t>() : 0;
  s.num_input_tokens_seen = j.value("num_input_tokens_seen", int64_t{0});
  s.total_flos = j.value("total_flos", 0.0);
  s.log_history = j.value("log_history", json::array());
  s.best_metric = get_opt<double>(j, "best_metric");
  s.best_global_step = get_opt<int64_t>(j, "best_global_step");
  s.best_model_checkpoint = get_opt<std::string>(j, "best_model_checkpoint");
  s.is_local_process_zero = j.value("is_local_process_zero", true);
  s.is_world_process_zero = j.value("is_world_process_zero", true);
  s.stateful_callbacks = j.value("stateful_callbacks", json::object());
  return s;
}

json TrainerControl::to_json() const {
  return json{{"should_epoch_stop", should_epoch_stop},
              {"should_evaluate", should_evaluate},
              {"should_log", should_log},
              {"should_save", should_save},
              {"should_training_stop", should_training_stop}};
}

TrainerControl TrainerControl::from_json(const json& j) {
  TrainerControl c;
  c.should_epoch_stop = j.value("should_epoch_stop", false);
  c.should_evaluate = j.value("should_evaluate", false);
  c.should_log = j.value("should_log", false);
  c.should_save = j.value("should_save", false);
  c.should_training_stop = j.value("should_training_stop", false);
  return c;
}

}  // namespace runner
