// TrainerState and TrainerControl: HF's names and JSON schema (trainer_state.json).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace runner {

struct TrainerState {
  double epoch = 0.0;        // float, micro-batch granular
  int64_t global_step = 0;   // optimizer steps taken
  int64_t max_steps = 0;
  int64_t logging_steps = 500;
  int64_t eval_steps = 500;
  int64_t save_steps = 500;
  int64_t num_train_epochs = 0;
  int64_t train_batch_size = 0;
  int64_t num_input_tokens_seen = 0;
  double total_flos = 0.0;
  nlohmann::json log_history = nlohmann::json::array();
  std::optional<double> best_metric;
  std::optional<int64_t> best_global_step;
  std::optional<std::string> best_model_checkpoint;
  bool is_local_process_zero = true;
  bool is_world_process_zero = true;
  nlohmann::json stateful_callbacks = nlohmann::json::object();
  // A hyperparameter-search trial's parameters (runner search); null outside a search.
  nlohmann::json trial_params = nullptr;

  // HF compute_steps: a *_steps value < 1 is a ratio of max_steps (ceil).
  static int64_t resolve_steps(double value, int64_t max_steps);

  nlohmann::json to_json() const;  // the HF key set; dumped sorted with indent 2
  // `file` names the source in errors (a wrong type is a CheckpointError naming the key).
  static TrainerState from_json(const nlohmann::json& j, const std::string& file = "trainer_state.json");
};

// Flags callbacks set to steer the loop; reset by the events HF resets them in.
struct TrainerControl {
  bool should_training_stop = false;
  bool should_epoch_stop = false;
  bool should_save = false;
  bool should_evaluate = false;
  bool should_log = false;

  nlohmann::json to_json() const;
  static TrainerControl from_json(const nlohmann::json& j, const std::string& file = "trainer_state.json");
};

}  // namespace runner
