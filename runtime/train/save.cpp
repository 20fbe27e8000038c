// Trainer output: the final weights and trainer_state.json in output_dir.
#include "runtime/io/atomic_file.h"
#include "runtime/io/safetensors.h"
#include "runtime/train/trainer.h"

namespace runner::train {

void Trainer::save_model(const std::string& dir) {
  // Parameters are whole on every rank (ZeRO-1/2 gather them after each step): the
  // writing process saves the consolidated model.
  if (!should_write()) return;
  const std::string out = dir.empty() ? args_.output_dir : dir;
  io::make_dirs(out);
  io::save_safetensors(out + "/model.safetensors", model_->state_dict(), {{"format", "pt"}});
  io::write_json_atomic(out + "/training_args.json", args_.to_json());
  // HF save_pretrained writes config.json beside the weights: transformers then loads the folder.
  if (const std::string config = model_->hf_config_json(); !config.empty())
    io::write_json_atomic(out + "/config.json", nlohmann::json::parse(config));
}

void Trainer::save_state() {
  if (!should_write()) return;
  io::make_dirs(args_.output_dir);
  io::write_json_atomic(args_.output_dir + "/trainer_state.json", state_.to_json());
}

}  // namespace runner::train
