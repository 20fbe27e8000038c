// Trainer output: final weights, trainer_state.json and checkpoint-N folders.
#include <ATen/CPUGeneratorImpl.h>

#include "runtime/io/atomic_file.h"
#include "runtime/io/checkpoint.h"
#include "runtime/train/trainer.h"

namespace runner::train {

using nlohmann::json;

namespace {

std::string hex(const at::Tensor& bytes) {
  static const char* digits = "0123456789abcdef";
  at::Tensor b = bytes.contiguous();
  const uint8_t* p = b.data_ptr<uint8_t>();
  std::string s;
  s.reserve(static_cast<size_t>(b.numel()) * 2);
  for (int64_t i = 0; i < b.numel(); ++i) s += digits[p[i] >> 4], s += digits[p[i] & 15];
  return s;
}

}  // namespace

void Trainer::save_model(const std::string& dir) {
  const std::string out = dir.empty() ? args_.output_dir : dir;
  io::make_dirs(out);
  io::save_safetensors(out + "/model.safetensors", model_->state_dict(), {{"format", "pt"}});
  io::write_json_atomic(out + "/training_args.json", args_.to_json());
}

void Trainer::save_state() {
  io::make_dirs(args_.output_dir);
  io::write_json_atomic(args_.output_dir + "/trainer_state.json", state_.to_json());
}

void Trainer::save_checkpoint() {
  const std::string dir = args_.output_dir + "/checkpoint-" + std::to_string(state_.global_step);
  io::CheckpointContents c;
  c.model = model_->state_dict();
  if (!args_.save_only_model && optimizer_) {
    // Per-parameter tensors under their model names: independent of the flat layout, so a
    // checkpoint survives changes in parameter order, grouping or world size.
    for (const auto& [state_name, flat] : optimizer_->state_tensors())
      for (const auto& s : flat_->slots()) c.optimizer.emplace_back(state_name + "." + s.name, flat.narrow(0, s.offset, s.numel).view(s.shape));
    c.optimizer_meta = {{"type", optimizer_->name()}, {"step", optimizer_->step_count()}};
    c.scheduler = {{"type", args_.lr_scheduler_type}, {"steps_taken", scheduler_->steps_taken()}, {"base_lrs", base_lrs_}};
    c.rng = {{"cpu", hex(at::detail::getDefaultCPUGenerator().get_state())}};
  }
  json st = state_.to_json();
  st["stateful_callbacks"]["TrainerControl"] = {{"args", control_.to_json()}, {"attributes", json::object()}};
  c.trainer_state = st;
  c.training_args = args_.to_json();
  if (!options_.recipe_path.empty()) c.copy_files.emplace_back(options_.recipe_path, "recipe.lua");
  io::write_checkpoint(dir, c);
}

}  // namespace runner::train
