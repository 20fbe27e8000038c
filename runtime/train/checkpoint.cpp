// checkpoint-N folders: what goes in, best-model bookkeeping, rotation, and resuming.
// Everything needed for a resumed run to continue bit-identically is saved: weights,
// optimizer state and step, scheduler position, the CPU RNG, the unlogged loss sums and
// trainer_state.json (with callback states). The data order needs nothing: each epoch's
// permutation is a function of (data_seed, epoch).
#include <ATen/CPUGeneratorImpl.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <mutex>

#include "runtime/core/errors.h"
#include "runtime/core/regex.h"
#include "runtime/core/json_fields.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/checkpoint.h"
#include "runtime/io/manifest.h"
#include "runtime/log/log.h"
#include "runtime/models/saved_model.h"
#include "runtime/train/optimizer_shards.h"
#include "runtime/train/trainer.h"

namespace runner::train {

using nlohmann::json;
namespace fs = std::filesystem;

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

at::Tensor unhex(const std::string& s, const std::string& where) {
  if (s.size() % 2) throw CheckpointError("rng_state.json: malformed generator state", where);
  at::Tensor t = at::empty({static_cast<int64_t>(s.size() / 2)}, at::kByte);
  uint8_t* p = t.data_ptr<uint8_t>();
  auto val = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw CheckpointError("rng_state.json: malformed generator state", where);
  };
  for (size_t i = 0; i < s.size(); i += 2) p[i / 2] = static_cast<uint8_t>(val(s[i]) * 16 + val(s[i + 1]));
  return t;
}

// The whole flat optimizer state of a checkpoint: from the per-rank shard files, or from
// optimizer.safetensors (one flat tensor per state, or one per state and parameter).
std::map<std::string, at::Tensor> read_whole_optimizer_state(const std::string& dir, const json& meta, const optim::Optimizer& optimizer,
                                                             const optim::FlatParams& layout) {
  if (meta.contains("shards")) {  // one file per rank of the run that saved it
    std::vector<std::string> names;
    for (const auto& [state_name, t] : optimizer.state_tensors()) names.push_back(state_name);
    return load_optimizer_shards(dir, meta["shards"].get<int>(), layout, names);
  }
  std::map<std::string, at::Tensor> flat_state;
  io::SafetensorsFile file(dir + "/optimizer.safetensors");
  for (const auto& [state_name, flat] : optimizer.state_tensors()) {
    if (file.contains(state_name)) {
      flat_state[state_name] = file.load(state_name);
      continue;
    }
    std::vector<at::Tensor> parts;
    for (const auto& s : layout.slots()) {
      const std::string key = state_name + "." + s.name;
      if (!file.contains(key)) throw CheckpointError("optimizer.safetensors has no '" + key + "' (was it saved by another optimizer or model?)", dir);
      parts.push_back(file.load(key).reshape(-1));
    }
    flat_state[state_name] = at::cat(parts);
  }
  return flat_state;
}

}  // namespace

void Trainer::save_checkpoint() {
  const std::string dir = args_.output_dir + "/checkpoint-" + std::to_string(state_.global_step);
  // HF: best_model_checkpoint points at checkpoint-<best_global_step> once it exists; this
  // checkpoint counts, since it is committed below together with its trainer_state.json.
  if (state_.best_global_step) {
    const std::string best = args_.output_dir + "/checkpoint-" + std::to_string(*state_.best_global_step);
    if (*state_.best_global_step == state_.global_step || io::is_directory(best)) state_.best_model_checkpoint = best;
  }
  io::CheckpointContents c;
  dp_->gather_params();  // ZeRO-3: whole parameters for the consolidated model.safetensors
  if (should_write()) {  // only the writer copies what it writes (gathering is collective)
    models::SavedModel saved = models::saved_model(*model_);  // a LoRA model: only its adapters
    c.model = std::move(saved.weights);
    for (auto& [name, t] : c.model) t = t.clone();
    c.model_file = saved.weights_file;
    c.model_config_file = saved.config_file;
    c.model_config = std::move(saved.config);
  }
  dp_->release_params(/*write_back=*/false);
  // Sharded state is saved shard by shard (optimizer_shards.h) into a side folder every rank
  // can reach, then moved into the checkpoint by the writer. save_on_each_node gathers
  // instead: another node's shard files would not be on this node's disk.
  const bool sharded = dp_->sharded_state() && !args_.save_on_each_node;
  const std::string shard_dir = args_.output_dir + "/.tmp-checkpoint-" + std::to_string(state_.global_step) + "-shards";
  if (!args_.save_only_model && optimizer_) {
    c.optimizer_meta = {{"type", optimizer_->name()}, {"step", optimizer_->step_count()}};
    if (sharded) {
      io::make_dirs(shard_dir);  // every rank: idempotent, and no wait on another node's view
      std::map<std::string, at::Tensor> local = optimizer_->state_tensors();
      local["param"] = optimizer_->params().data();
      save_optimizer_shard(shard_dir + "/" + shard_file_name(dp_->rank(), dp_->world()), *flat_, dp_->owned_ranges(), local);
      for (int r = 0; r < dp_->world(); ++r) c.move_files.push_back(shard_dir + "/" + shard_file_name(r, dp_->world()));
      c.optimizer_meta["shards"] = dp_->world();
    } else {
      // Per-parameter tensors under their model names where the state is per element, so a
      // checkpoint does not depend on the flat layout (parameter order, grouping, world
      // size or ZeRO stage: shards are gathered here, on every rank, and sliced on load).
      for (const auto& [state_name, flat] : dp_->gather_optimizer_state(*optimizer_)) {
        if (flat.numel() == flat_->numel()) {
          for (const auto& s : flat_->slots()) c.optimizer.emplace_back(state_name + "." + s.name, flat.narrow(0, s.offset, s.numel).view(s.shape));
        } else {
          c.optimizer.emplace_back(state_name, flat);
        }
      }
    }
    c.scheduler = {{"steps_taken", scheduler_->steps_taken()}, {"state", scheduler_->state()}, {"base_lrs", base_lrs_}};
    const at::Tensor rng = at::detail::getDefaultCPUGenerator().get_state();
    c.rng = {{"cpu", hex(rng)}};
    // On a GPU also the device's generator (dropout runs there), as HF saves "cuda".
    const at::Tensor cuda_rng = device_.is_cuda() ? at::globalContext().defaultGenerator(device_.device).get_state() : at::Tensor();
    if (cuda_rng.defined()) c.rng["cuda"] = hex(cuda_rng);
    if (dp_->world() > 1) {  // every rank's generator (HF writes rng_state_<rank>.pth)
      const at::Tensor all = dp_->all_gather_rows(rng);
      c.rng["ranks"] = json::array();
      for (int r = 0; r < dp_->world(); ++r) c.rng["ranks"].push_back(hex(all[r]));
      if (cuda_rng.defined()) {
        const at::Tensor all_cuda = dp_->all_gather_rows(cuda_rng);
        c.rng["cuda_ranks"] = json::array();
        for (int r = 0; r < dp_->world(); ++r) c.rng["cuda_ranks"].push_back(hex(all_cuda[r]));
      }
    }
    if (scaler_) c.scaler = scaler_->state_dict();
    c.loop = {{"tr_loss", losses_.pending(*dp_)}, {"total_loss", losses_.total()}, {"last_logged_step", last_logged_step_}};
  }
  state_.stateful_callbacks = stateful_callbacks();
  c.trainer_state = state_.to_json();
  c.training_args = args_.to_json();
  if (!options_.recipe_path.empty()) c.copy_files.emplace_back(options_.recipe_path, "recipe.lua");
  if (!c.move_files.empty()) dp_->barrier();  // every rank's shard is written
  if (should_write()) {
    io::write_checkpoint(dir, c);
    if (!c.move_files.empty()) remove_stale_shard_dirs();
    rotate_checkpoints();
  }
  dp_->barrier();  // no rank reads a checkpoint (best model, resume) before it exists
}

// Side folders of per-rank optimizer files: the current one is empty after the move, and
// one left by a crashed save would otherwise hold a whole optimizer state forever.
void Trainer::remove_stale_shard_dirs() const {
  static const Regex pattern(R"(\.tmp-checkpoint-[0-9]+-shards)");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(args_.output_dir, ec))
    if (entry.is_directory() && pattern.full_match(entry.path().filename().string())) io::remove_all(entry.path().string());
}

void Trainer::rotate_checkpoints() {
  if (!args_.save_total_limit || *args_.save_total_limit <= 0) return;
  for (const auto& dir : io::checkpoints_to_delete(io::list_checkpoints(args_.output_dir), state_.best_model_checkpoint, *args_.save_total_limit)) {
    log::info("Deleting older checkpoint [" + dir + "] due to save_total_limit");
    remove_checkpoint(dir);
  }
}

void Trainer::remove_checkpoint(const std::string& dir) const {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) log::warn("could not delete " + dir + " (save_total_limit): " + ec.message() + "; it stays on disk");
}

// HF: at the end of training with save_total_limit 1, only the best checkpoint remains.
void Trainer::delete_all_but_best_checkpoint() {
  if (!state_.best_model_checkpoint || !args_.save_total_limit || *args_.save_total_limit != 1) return;
  for (const auto& [step, dir] : io::list_checkpoints(args_.output_dir)) {
    std::error_code ec;
    if (fs::equivalent(dir, *state_.best_model_checkpoint, ec)) continue;
    log::info("Deleting older checkpoint [" + dir + "] due to save_total_limit");
    remove_checkpoint(dir);
  }
}

void Trainer::load_best_model() {
  const std::string file = *state_.best_model_checkpoint + "/" + models::weights_file_name(*model_);
  if (!io::path_exists(file)) {
    log::warn("Could not locate the best model at " + file + "; with several nodes and no shared filesystem set save_on_each_node");
    return;
  }
  log::info("Loading best model from " + *state_.best_model_checkpoint + " (score: " +
            log::format_number(state_.best_metric.value_or(0)) + ")");
  auto report = models::load_saved_weights(*model_, *state_.best_model_checkpoint);
  if (!report.missing.empty()) log::warn("There were missing keys in the checkpoint model loaded: " + json(report.missing).dump());
  if (!report.unexpected.empty()) log::warn("There were unexpected keys in the checkpoint model loaded: " + json(report.unexpected).dump());
}

// resume_from_checkpoint = true takes the newest checkpoint in output_dir, which may be another
// run's (a reused folder): say so when the recipe or the arguments that shape training differ.
void Trainer::warn_if_another_run(const std::string& dir) const {
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return in ? ss.str() : std::string();
  };
  if (!options_.recipe_path.empty() && io::path_exists(dir + "/recipe.lua") && read(dir + "/recipe.lua") != read(options_.recipe_path))
    log::warn(dir + " was written by a different recipe than " + options_.recipe_path + " (compare " + dir + "/recipe.lua)");
  if (!io::path_exists(dir + "/training_args.json")) return;
  json saved;
  try {
    saved = io::read_json_file(dir + "/training_args.json");
  } catch (const Error&) {
    return;  // only a hint: the files the resume needs are checked where they are read
  }
  const json mine = args_.to_json();
  std::string differ;
  for (const char* key : {"learning_rate", "per_device_train_batch_size", "gradient_accumulation_steps", "seed", "data_seed", "optim",
                          "lr_scheduler_type", "weight_decay", "max_grad_norm", "warmup_steps", "num_train_epochs", "max_steps", "bf16",
                          "fp16", "label_smoothing_factor", "train_sampling_strategy"})
    if (saved.is_object() && saved.contains(key) && saved[key] != mine[key])
      differ += std::string(differ.empty() ? "" : ", ") + key + " " + saved[key].dump() + " -> " + mine[key].dump();
  if (!differ.empty()) log::warn("resuming from " + dir + ", saved with other arguments: " + differ);
}

json Trainer::stateful_callbacks() const {
  json stateful = json::object();
  for (const auto& cb : callbacks_.callbacks()) {
    json s = cb->state();
    if (!s.is_null()) stateful[cb->name()] = s;
  }
  stateful["TrainerControl"] = {{"args", control_.to_json()}, {"attributes", json::object()}};
  return stateful;
}

std::string Trainer::resume_checkpoint_path() const {
  const json& r = args_.resume_from_checkpoint;
  if (r.is_null() || (r.is_boolean() && !r.get<bool>())) return "";
  if (r.is_boolean()) {
    // The newest intact checkpoint: a damaged one (truncated, bit-flipped: manifest.h) is
    // passed over with a warning.
    const auto all = io::list_checkpoints(args_.output_dir);
    std::string newest_problem;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      const std::string problem = io::checkpoint_problem(it->second);
      if (problem.empty()) {
        if (it != all.rbegin() && dp_->rank() == 0) log::warn("resuming from " + it->second + ", the newest intact checkpoint");
        return it->second;
      }
      if (newest_problem.empty()) newest_problem = problem;
      if (dp_->rank() == 0) log::warn(it->second + " is damaged and skipped: " + problem);
    }
    throw CheckpointError("no valid checkpoint found in output directory (" + args_.output_dir + ")" +
                          (newest_problem.empty() ? "" : "; the newest is damaged: " + newest_problem));
  }
  const std::string path = r.get<std::string>();
  if (!io::is_directory(path)) throw CheckpointError("can't find a valid checkpoint at " + path + " (a checkpoint-N folder)");
  if (const std::string problem = models::missing_weights(*model_, path); !problem.empty())
    throw CheckpointError("can't find a valid checkpoint at " + path + ": " + problem);
  const std::string problem = io::checkpoint_problem(path);
  if (!problem.empty()) throw CheckpointError("the checkpoint is damaged: " + problem, path);
  return path;
}

void Trainer::load_checkpoint(const std::string& dir) {
  // Weights (HF loads them with strict=False and warns); under ZeRO-3 into whole
  // parameters, then back into this rank's shards.
  dp_->gather_params();
  auto report = models::load_saved_weights(*model_, dir);
  dp_->release_params(/*write_back=*/true);
  if (!report.missing.empty()) log::warn("There were missing keys in the checkpoint model loaded: " + json(report.missing).dump());
  if (!report.unexpected.empty()) log::warn("There were unexpected keys in the checkpoint model loaded: " + json(report.unexpected).dump());

  if (dp_->rank() == 0) warn_if_another_run(dir);
  // trainer_state.json replaces the state, as in HF; the plan's totals stay this run's.
  const TrainerState plan = state_;
  const TrainerState saved = TrainerState::from_json(io::read_json_file(dir + "/trainer_state.json"), dir + "/trainer_state.json");
  for (const auto& [name, mine, theirs] : {std::tuple<const char*, int64_t, int64_t>{"logging_steps", plan.logging_steps, saved.logging_steps},
                                          {"eval_steps", plan.eval_steps, saved.eval_steps},
                                          {"save_steps", plan.save_steps, saved.save_steps},
                                          {"per_device_train_batch_size", plan.train_batch_size, saved.train_batch_size}})
    if (mine != theirs)
      log::warn(std::string("The following arguments do not match the ones in the trainer_state.json within the checkpoint directory: ") +
                name + ": " + std::to_string(mine) + " (from args) != " + std::to_string(theirs) + " (from trainer_state.json)");
  state_ = saved;
  state_.is_world_process_zero = plan.is_world_process_zero;  // the saving rank's, not this one's
  state_.is_local_process_zero = plan.is_local_process_zero;
  state_.max_steps = plan.max_steps;
  state_.num_train_epochs = plan.num_train_epochs;
  state_.train_batch_size = plan.train_batch_size;

  // Optimizer, scheduler, loss bookkeeping and RNG (absent with save_only_model: the run
  // then continues from the weights only, as HF does).
  const json meta = io::path_exists(dir + "/optimizer.json") ? io::read_json_file(dir + "/optimizer.json") : json::object();
  const JsonFields meta_fields(meta, dir + "/optimizer.json");
  if (io::path_exists(dir + "/optimizer.safetensors") || meta.contains("shards")) {
    const std::string type = meta_fields.string("type", optimizer_->name());
    if (type != optimizer_->name()) throw CheckpointError("the checkpoint's optimizer is " + type + ", this run uses " + optimizer_->name(), dir);
    if (meta.contains("shards") && (meta_fields.integer("shards", 0) < 1 || meta_fields.integer("shards", 0) > 1000000))
      meta_fields.fail("shards", "expected a positive number of shard files, got " + meta["shards"].dump());
    if (meta.contains("shards") && dp_->sharded_state()) {
      // Sharded into sharded: each rank reads just the values it owns from the files.
      std::map<std::string, at::Tensor> local;
      for (const auto& [state_name, t] : optimizer_->state_tensors()) local[state_name] = at::zeros({t.numel()}, t.options());
      load_owned_optimizer_shards(dir, meta["shards"].get<int>(), *flat_, dp_->owned_ranges(), local);
      optimizer_->load_state_tensors(local);
    } else {
      optimizer_->load_state_tensors(dp_->slice_optimizer_state(read_whole_optimizer_state(dir, meta, *optimizer_, *flat_)));
    }
    optimizer_->set_step_count(meta_fields.integer("step", 0));
  } else {
    log::warn("no optimizer state in " + dir + " (save_only_model?): the optimizer starts fresh");
  }
  if (io::path_exists(dir + "/scheduler.json")) {
    const JsonFields sched(io::read_json_file(dir + "/scheduler.json"), dir + "/scheduler.json");
    scheduler_->set_steps_taken(sched.integer("steps_taken", 0));
    if (sched.has("state")) {
      try {
        scheduler_->load_state(sched.object("state"));
      } catch (const CheckpointError& e) {
        throw CheckpointError(e.message(), dir + "/scheduler.json");
      }
    }
  } else {
    scheduler_->set_steps_taken(state_.global_step);
  }
  if (io::path_exists(dir + "/loop_state.json")) {
    const JsonFields loop(io::read_json_file(dir + "/loop_state.json"), dir + "/loop_state.json");
    losses_.load(loop.number("tr_loss", 0.0), loop.number("total_loss", 0.0), dp_->rank());
    last_logged_step_ = loop.integer("last_logged_step", state_.global_step);
  } else {
    last_logged_step_ = state_.global_step;
  }
  if (scaler_ && io::path_exists(dir + "/scaler.json")) scaler_->load_state_dict(io::read_json_file(dir + "/scaler.json"));
  if (io::path_exists(dir + "/rng_state.json")) {
    pending_rng_ = io::read_json_file(dir + "/rng_state.json");
    // Checked now, not when the RNG is restored mid-epoch.
    const JsonFields rng(pending_rng_, dir + "/rng_state.json");
    for (const char* key : {"cpu", "cuda"}) rng.string(key, "");
    for (const char* key : {"ranks", "cuda_ranks"})
      for (const auto& s : rng.array(key))
        if (!s.is_string()) rng.fail(key, "expected a list of hex strings, found " + s.dump());
  }
  else log::info("Didn't find an RNG file, if you are resuming a training that was launched in a distributed fashion, reproducibility is not guaranteed.");

  if (args_.restore_callback_states_from_checkpoint) {
    std::vector<std::string> not_found;
    for (auto it = state_.stateful_callbacks.begin(); it != state_.stateful_callbacks.end(); ++it) {
      if (it.key() == "TrainerControl") {
        control_ = TrainerControl::from_json(JsonFields(it.value(), dir + "/trainer_state.json").object("args"), dir + "/trainer_state.json");
        continue;
      }
      bool found = false;
      for (const auto& cb : callbacks_.callbacks())
        if (cb->name() == it.key()) cb->load_state(it.value()), found = true;
      if (!found) not_found.push_back(it.key());
    }
    if (!not_found.empty()) log::warn("Checkpoint included callbacks not included in current configuration. Ignoring. (" + json(not_found).dump() + ")");
  }
}

void Trainer::restore_pending_rng() {
  if (pending_rng_.is_null()) return;
  // This rank's generator when the checkpoint has one for it, else rank 0's; on a GPU the
  // same for the device's generator.
  auto state_for = [this](const char* per_rank, const char* single) -> std::string {
    const auto r = static_cast<size_t>(dp_->rank());
    if (pending_rng_.contains(per_rank) && r < pending_rng_[per_rank].size()) return pending_rng_[per_rank][r].get<std::string>();
    return pending_rng_.contains(single) ? pending_rng_[single].get<std::string>() : std::string();
  };
  auto restore = [](at::Generator gen, const std::string& state) {
    if (state.empty()) return;
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(unhex(state, "rng_state.json"));
  };
  restore(at::detail::getDefaultCPUGenerator(), state_for("ranks", "cpu"));
  if (device_.is_cuda()) restore(at::globalContext().defaultGenerator(device_.device), state_for("cuda_ranks", "cuda"));
  pending_rng_ = nullptr;
}

}  // namespace runner::train
