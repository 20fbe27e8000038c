// Trainer output: the final weights and trainer_state.json in output_dir.
#include "runtime/io/atomic_file.h"
#include "runtime/io/safetensors.h"
#include "runtime/models/deferred_weights.h"
#include "runtime/models/saved_model.h"
#include "runtime/train/trainer.h"

namespace runner::train {

void Trainer::save_model(const std::string& dir) {
  // Parameters are whole on every rank (ZeRO-1/2 gather them after each step): the
  // writing process saves the consolidated model.
  if (!should_write()) return;
  models::materialize(*model_);  // saved without training: weights still in their files load first
  const std::string out = dir.empty() ? args_.output_dir : dir;
  io::make_dirs(out);
  // HF save_pretrained writes the config beside the weights: transformers (or peft, for
  // LoRA adapters) then loads the folder.
  const models::SavedModel saved = models::saved_model(*model_);
  io::save_safetensors(out + "/" + saved.weights_file, saved.weights, {{"format", "pt"}});
  io::write_json_atomic(out + "/training_args.json", args_.to_json());
  if (!saved.config.is_null()) io::write_json_atomic(out + "/" + saved.config_file, saved.config);
}

void Trainer::save_state() {
  if (!should_write()) return;
  io::make_dirs(args_.output_dir);
  io::write_json_atomic(args_.output_dir + "/trainer_state.json", state_.to_json());
}

}  // namespace runner::train
