#include <ATen/CPUGeneratorImpl.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <exception>
#include <mutex>
#include <optional>

#include "runtime/core/errors.h"
#include "runtime/core/regex.h"
#include "runtime/dist/world.h"
#include "runtime/core/json_fields.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/safetensors.h"
#include "runtime/io/checkpoint.h"
#include "runtime/io/manifest.h"
#include "runtime/log/log.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/saved_model.h"
#include "runtime/train/stream_training.h"
#include "runtime/train/optimizer_shards.h"
#include "runtime/train/checkpointer.h"
#include "runtime/train/model_weights.h"
#include "runtime/train/async_save.h"

#include "runtime/dist/flight_recorder.h"

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

void remove_checkpoint(const std::string& dir) {  // a failure is reported, not fatal
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) log::warn("could not delete " + dir + " (save_total_limit): " + ec.message() + "; it stays on disk");
}

// Side folders of per-rank optimizer files: the current one is empty after the move, and
// one left by a crashed save would otherwise hold a whole optimizer state forever.
void remove_stale_shard_dirs(const std::string& output_dir) {
  static const Regex pattern(R"(\.tmp-checkpoint-[0-9]+-shards)");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(output_dir, ec))
    if (entry.is_directory() && pattern.full_match(entry.path().filename().string())) io::remove_all(entry.path().string());
}

// save_total_limit, with the best checkpoint as it was when the save started (a background
// save commits later, while training has moved on).
void rotate_checkpoints(const std::string& output_dir, const std::optional<std::string>& best, const std::optional<int64_t>& limit,
                        const std::string& written) {
  if (!limit || *limit <= 0) return;
  for (const auto& dir : io::checkpoints_to_delete(io::list_checkpoints(output_dir), best, *limit, written)) {
    log::info("Deleting older checkpoint [" + dir + "] due to save_total_limit");
    remove_checkpoint(dir);
  }
}

}  // namespace

void Checkpointer::save() {
  wait_for_save();  // save_async: at most one save in flight, a new one waits for the previous
  const bool async = ctx_.args.save_async;
  // What the background thread writes must not change under it: host copies. The
  // synchronous save writes before training goes on, so it copies only the weights it did.
  auto keep = [async](const at::Tensor& t) { return async ? host_copy(t) : t; };
  SaveJob job;
  dist::Phase phase("save");
  const std::string dir = ctx_.args.output_dir + "/checkpoint-" + std::to_string(ctx_.loop.state.global_step);
  job.dir = dir;
  // HF: best_model_checkpoint points at checkpoint-<best_global_step> once it exists; this
  // checkpoint counts, since it is committed below together with its trainer_state.json.
  if (ctx_.loop.state.best_global_step) {
    const std::string best = ctx_.args.output_dir + "/checkpoint-" + std::to_string(*ctx_.loop.state.best_global_step);
    if (*ctx_.loop.state.best_global_step == ctx_.loop.state.global_step || io::is_directory(best)) ctx_.loop.state.best_model_checkpoint = best;
  }
  io::CheckpointContents& c = job.contents;
  if (std::optional<models::SavedModel> saved = writer_weights(ctx_, async)) {
    c.model = std::move(saved->weights);
    c.model_file = saved->weights_file;
    c.model_config_file = saved->config_file;
    c.model_config = std::move(saved->config);
    c.generation_config = std::move(saved->generation_config);
    for (const auto& f : saved->tokenizer_files) c.copy_files.emplace_back(f, std::filesystem::path(f).filename().string());
  }
  // Sharded state is saved shard by shard (optimizer_shards.h), every rank its own file at
  // once, into a side folder every rank can reach, then moved into the checkpoint by the
  // writer. save_on_each_node gathers instead: another node's shard files would not be on
  // this node's disk.
  const bool sharded = ctx_.dp.sharded_state() && !ctx_.args.save_on_each_node;
  const std::string shard_dir = ctx_.args.output_dir + "/.tmp-checkpoint-" + std::to_string(ctx_.loop.state.global_step) + "-shards";
  if (!ctx_.args.save_only_model && ctx_.opt.optimizer) {
    c.optimizer_meta = {{"type", ctx_.opt.optimizer->name()}, {"step", ctx_.opt.optimizer->step_count()}};
    if (sharded) {
      io::make_dirs(shard_dir);  // every rank: idempotent, and no wait on another node's view
      std::map<std::string, at::Tensor> local = ctx_.opt.optimizer->state_tensors();
      local["param"] = ctx_.opt.optimizer->params().data();
      for (auto& [name, t] : local) t = keep(t);
      job.shard_path = shard_dir + "/" + shard_file_name(ctx_.dp.rank(), ctx_.dp.world());
      job.layout = ctx_.opt.flat.get();
      job.owned = ctx_.dp.owned_ranges();
      job.shard = std::move(local);
      for (int r = 0; r < ctx_.dp.world(); ++r) c.move_files.push_back(shard_dir + "/" + shard_file_name(r, ctx_.dp.world()));
      c.optimizer_meta["shards"] = ctx_.dp.world();
    } else {
      // Per-parameter tensors under their model names where the state is per element, so a
      // checkpoint does not depend on the flat layout (parameter order, grouping, world
      // size or ZeRO stage: shards are gathered here, into the writer's host memory, and
      // sliced on load).
      const std::map<std::string, at::Tensor> live = ctx_.opt.optimizer->state_tensors();
      for (const auto& [state_name, gathered] : ctx_.dp.gather_optimizer_state(*ctx_.opt.optimizer, ctx_.should_write())) {
        // Gathered state is a host copy already; the live state needs one to be kept.
        const auto it = live.find(state_name);
        const bool is_live = gathered.defined() && it != live.end() && gathered.is_alias_of(it->second);
        const at::Tensor flat = is_live ? keep(gathered) : gathered;
        if (flat.numel() == ctx_.opt.flat->numel()) {
          for (const auto& s : ctx_.opt.flat->slots()) c.optimizer.emplace_back(state_name + "." + s.name, flat.narrow(0, s.offset, s.numel).view(s.shape));
        } else {
          c.optimizer.emplace_back(state_name, flat);
        }
      }
    }
    c.scheduler = {{"steps_taken", ctx_.opt.scheduler->steps_taken()}, {"state", ctx_.opt.scheduler->state()}, {"base_lrs", ctx_.opt.base_lrs}};
    const at::Tensor rng = at::detail::getDefaultCPUGenerator().get_state();
    c.rng = {{"cpu", hex(rng)}};
    // On a GPU also the device's generator (dropout runs there), as HF saves "cuda".
    const at::Tensor cuda_rng = ctx_.device.is_cuda() ? at::globalContext().defaultGenerator(ctx_.device.device).get_state() : at::Tensor();
    if (cuda_rng.defined()) c.rng["cuda"] = hex(cuda_rng);
    if (ctx_.dp.world() > 1) {  // every rank's generator (HF writes rng_state_<rank>.pth)
      const at::Tensor all = ctx_.dp.all_gather_rows(rng);
      c.rng["ranks"] = json::array();
      for (int r = 0; r < ctx_.dp.world(); ++r) c.rng["ranks"].push_back(hex(all[r]));
      if (cuda_rng.defined()) {
        const at::Tensor all_cuda = ctx_.dp.all_gather_rows(cuda_rng);
        c.rng["cuda_ranks"] = json::array();
        for (int r = 0; r < ctx_.dp.world(); ++r) c.rng["cuda_ranks"].push_back(hex(all_cuda[r]));
      }
    }
    if (ctx_.opt.scaler) c.scaler = ctx_.opt.scaler->state_dict();
    if (ctx_.loop.stream) c.stream = gather_stream_state(*ctx_.loop.stream, ctx_.dp);  // collective: every rank
    c.loop = {{"tr_loss", ctx_.loop.losses.pending(ctx_.dp)}, {"total_loss", ctx_.loop.losses.total()}, {"last_logged_step", ctx_.loop.last_logged_step},
              {"metrics", ctx_.loop.metrics.state(ctx_.dp)}};
  }
  ctx_.loop.state.stateful_callbacks = stateful_callbacks();
  c.trainer_state = ctx_.loop.state.to_json();
  c.training_args = ctx_.args.to_json();
  if (!ctx_.options.recipe_path.empty()) c.copy_files.emplace_back(ctx_.options.recipe_path, "recipe.lua");
  job.writer = ctx_.should_write();
  const bool moved = !c.move_files.empty();
  job.after_commit = [out = ctx_.args.output_dir, best = ctx_.loop.state.best_model_checkpoint, limit = ctx_.args.save_total_limit, moved, async, dir] {
    if (moved) remove_stale_shard_dirs(out);
    rotate_checkpoints(out, best, limit, dir);
    if (async) log::info("Checkpoint " + dir + " written in the background and committed");
  };
  if (async) {
    if (job.writer) log::info("Saving checkpoint-" + std::to_string(ctx_.loop.state.global_step) + " in the background (" + dir + ")");
    background_.start(std::move(job));  // every rank's files in parallel; the writer commits
    return;
  }
  if (!job.shard_path.empty()) save_optimizer_shard(job.shard_path, *job.layout, job.owned, job.shard);  // every rank at once
  if (moved) ctx_.dp.barrier();  // every rank's shard is written
  if (job.writer) {
    io::write_checkpoint(dir, c);
    job.after_commit();
  }
  ctx_.dp.barrier();  // no rank reads a checkpoint (best model, resume) before it exists
}

void Checkpointer::wait_for_save() {
  // Every rank started the same saves (a save is collective), so every rank waits here.
  if (background_.wait()) ctx_.dp.barrier();  // no rank reads the checkpoint before it exists
}

void Checkpointer::check_background_save() { background_.check(); }

// HF: at the end of training with save_total_limit 1, only the best checkpoint remains.
void Checkpointer::delete_all_but_best() {
  if (!ctx_.loop.state.best_model_checkpoint || !ctx_.args.save_total_limit || *ctx_.args.save_total_limit != 1) return;
  // A best folder that is gone would make every checkpoint "not the best".
  if (!io::is_directory(*ctx_.loop.state.best_model_checkpoint)) return;
  for (const auto& [step, dir] : io::list_checkpoints(ctx_.args.output_dir)) {
    std::error_code ec;
    if (fs::equivalent(dir, *ctx_.loop.state.best_model_checkpoint, ec)) continue;
    log::info("Deleting older checkpoint [" + dir + "] due to save_total_limit");
    remove_checkpoint(dir);
  }
}

void Checkpointer::load_best_model() {
  // Every rank calls this with load_best_model_at_end, and a rank may lack the folder (the
  // best checkpoint is named where it exists): under ZeRO-3 loading is collective, so all
  // ranks load or none does; otherwise each rank loads what it sees, as HF's ranks do.
  const std::optional<std::string>& best = ctx_.loop.state.best_model_checkpoint;
  const std::string file = best ? *best + "/" + models::weights_file_name(*ctx_.model) : "";
  std::vector<double> missing = {best && io::path_exists(file) ? 0.0 : 1.0};
  if (ctx_.dp.lockstep()) ctx_.dp.sum(missing);
  if (missing[0] > 0) {
    if (best) log::warn("Could not locate the best model at " + file + "; with several nodes and no shared filesystem set save_on_each_node");
    return;
  }
  log::info("Loading best model from " + *best + " (score: " + log::format_number(ctx_.loop.state.best_metric.value_or(0)) + ")");
  load_model_weights(ctx_, *best);
}

// resume_from_checkpoint = true takes the newest checkpoint in output_dir, which may be another
// run's (a reused folder): say so when the recipe or the arguments that shape training differ.
void Checkpointer::warn_if_another_run(const std::string& dir) const {
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return in ? ss.str() : std::string();
  };
  if (!ctx_.options.recipe_path.empty() && io::path_exists(dir + "/recipe.lua") && read(dir + "/recipe.lua") != read(ctx_.options.recipe_path))
    log::warn(dir + " was written by a different recipe than " + ctx_.options.recipe_path + " (compare " + dir + "/recipe.lua)");
  if (!io::path_exists(dir + "/training_args.json")) return;
  json saved;
  try {
    saved = io::read_json_file(dir + "/training_args.json");
  } catch (const Error&) {
    return;  // only a hint: the files the resume needs are checked where they are read
  }
  const json mine = ctx_.args.to_json();
  std::string differ;
  for (const char* key : {"learning_rate", "per_device_train_batch_size", "gradient_accumulation_steps", "seed", "data_seed", "optim",
                          "lr_scheduler_type", "weight_decay", "max_grad_norm", "warmup_steps", "num_train_epochs", "max_steps", "bf16",
                          "fp16", "label_smoothing_factor", "train_sampling_strategy"})
    if (saved.is_object() && saved.contains(key) && saved[key] != mine[key])
      differ += std::string(differ.empty() ? "" : ", ") + key + " " + saved[key].dump() + " -> " + mine[key].dump();
  if (!differ.empty()) log::warn("resuming from " + dir + ", saved with other arguments: " + differ);
}

json Checkpointer::stateful_callbacks() const {
  json stateful = json::object();
  for (const auto& cb : ctx_.callbacks.callbacks()) {
    json s = cb->state();
    if (!s.is_null()) stateful[cb->name()] = s;
  }
  stateful["TrainerControl"] = {{"args", ctx_.loop.control.to_json()}, {"attributes", json::object()}};
  return stateful;
}

std::string Checkpointer::resume_path() const {
  if (resume_) return *resume_;
  if (ctx_.dp.world() == 1) return *(resume_ = local_resume_path());
  // Each rank looks at output_dir itself: on node-local disks (save_on_each_node) or a
  // filesystem whose listings lag behind another node's commit, ranks could take different
  // checkpoints (or none) and train on from different states. They compare their choices:
  // a rank's error, or any difference, stops every rank (the lowest such rank says why).
  std::string mine;
  std::exception_ptr failed;
  try {
    mine = local_resume_path();
  } catch (const Error&) {
    failed = std::current_exception();
  }
  const std::vector<std::string> all = dist::all_gather_strings(failed ? std::string("!") : "+" + mine);
  const int rank = ctx_.dp.rank();
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r] == "!") {
      if (static_cast<int>(r) == rank) std::rethrow_exception(failed);
      throw CheckpointError("");  // quiet: rank r says it
    }
  for (size_t r = 1; r < all.size(); ++r)
    if (all[r] != all[0]) {
      auto choice = [](const std::string& c) { return c.size() > 1 ? c.substr(1) : std::string("none (a fresh start)"); };
      throw CheckpointError(rank != 0 ? "" : "the ranks would resume from different checkpoints: rank 0 from " + choice(all[0]) + ", rank " +
                                                 std::to_string(r) + " from " + choice(all[r]) +
                                                 "; every rank must see the same checkpoints (on node-local disks, give "
                                                 "resume_from_checkpoint a checkpoint every node holds)");
    }
  return *(resume_ = mine);
}

std::string Checkpointer::local_resume_path() const {
  const json& r = ctx_.args.resume_from_checkpoint;
  if (r.is_null() || (r.is_boolean() && !r.get<bool>())) return "";
  // "auto": as true when output_dir holds a checkpoint, a fresh start when it holds none, so
  // one command line serves a job's first start and its restarts (runner launch
  // --max_restarts, a requeued sbatch script).
  const bool if_any = r.is_string() && r.get<std::string>() == "auto";
  if (r.is_boolean() || if_any) {
    // The newest intact checkpoint: a damaged one (truncated, bit-flipped: manifest.h) is
    // passed over with a warning.
    const auto all = io::list_checkpoints(ctx_.args.output_dir);
    if (all.empty() && if_any) return "";
    std::string newest_problem;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      const std::string problem = io::checkpoint_problem(it->second);
      if (problem.empty()) {
        if (it != all.rbegin() && ctx_.dp.rank() == 0) log::warn("resuming from " + it->second + ", the newest intact checkpoint");
        return it->second;
      }
      if (newest_problem.empty()) newest_problem = problem;
      if (ctx_.dp.rank() == 0) log::warn(it->second + " is damaged and skipped: " + problem);
    }
    throw CheckpointError("no valid checkpoint found in output directory (" + ctx_.args.output_dir + ")" +
                          (newest_problem.empty() ? "" : "; the newest is damaged: " + newest_problem));
  }
  const std::string path = r.get<std::string>();
  if (!io::is_directory(path)) throw CheckpointError("can't find a valid checkpoint at " + path + " (a checkpoint-N folder)");
  if (const std::string problem = models::missing_weights(*ctx_.model, path); !problem.empty())
    throw CheckpointError("can't find a valid checkpoint at " + path + ": " + problem);
  const std::string problem = io::checkpoint_problem(path);
  if (!problem.empty()) throw CheckpointError("the checkpoint is damaged: " + problem, path);
  return path;
}

void Checkpointer::load(const std::string& dir) {
  // Weights (HF loads them with strict=False and warns); under ZeRO-3 into whole
  // parameters, then back into this rank's shards.
  load_model_weights(ctx_, dir);

  if (ctx_.dp.rank() == 0) warn_if_another_run(dir);
  // trainer_state.json replaces the state, as in HF; the plan's totals stay this run's.
  const TrainerState plan = ctx_.loop.state;
  const TrainerState saved = TrainerState::from_json(io::read_json_file(dir + "/trainer_state.json"), dir + "/trainer_state.json");
  for (const auto& [name, mine, theirs] : {std::tuple<const char*, int64_t, int64_t>{"logging_steps", plan.logging_steps, saved.logging_steps},
                                          {"eval_steps", plan.eval_steps, saved.eval_steps},
                                          {"save_steps", plan.save_steps, saved.save_steps},
                                          {"per_device_train_batch_size", plan.train_batch_size, saved.train_batch_size}})
    if (mine != theirs)
      log::warn(std::string("The following arguments do not match the ones in the trainer_state.json within the checkpoint directory: ") +
                name + ": " + std::to_string(mine) + " (from args) != " + std::to_string(theirs) + " (from trainer_state.json)");
  ctx_.loop.state = saved;
  if (saved.best_model_checkpoint && !io::is_directory(*saved.best_model_checkpoint)) {  // HF: a moved or pruned run folder
    log::warn("The best checkpoint " + *saved.best_model_checkpoint + " recorded in the resumed state does not exist anymore. Ignoring it for this run.");
    ctx_.loop.state.best_model_checkpoint.reset();
  }
  ctx_.loop.state.is_world_process_zero = plan.is_world_process_zero;  // the saving rank's, not this one's
  ctx_.loop.state.is_local_process_zero = plan.is_local_process_zero;
  ctx_.loop.state.max_steps = plan.max_steps;
  ctx_.loop.state.num_train_epochs = plan.num_train_epochs;
  ctx_.loop.state.train_batch_size = plan.train_batch_size;

  // Optimizer, scheduler, loss bookkeeping and RNG (absent with save_only_model: the run
  // then continues from the weights only, as HF does).
  const json meta = io::path_exists(dir + "/optimizer.json") ? io::read_json_file(dir + "/optimizer.json") : json::object();
  const JsonFields meta_fields(meta, dir + "/optimizer.json");
  if (io::path_exists(dir + "/optimizer.safetensors") || meta.contains("shards")) {
    const std::string type = meta_fields.string("type", ctx_.opt.optimizer->name());
    if (type != ctx_.opt.optimizer->name()) throw CheckpointError("the checkpoint's optimizer is " + type + ", this run uses " + ctx_.opt.optimizer->name(), dir);
    if (meta.contains("shards") && (meta_fields.integer("shards", 0) < 1 || meta_fields.integer("shards", 0) > 1000000))
      meta_fields.fail("shards", "expected a positive number of shard files, got " + meta["shards"].dump());
    if (meta.contains("shards") && ctx_.dp.sharded_state()) {
      // Sharded into sharded: each rank reads just the values it owns from the files.
      std::map<std::string, at::Tensor> local;
      // Read on the host and copied up once per state: not a second copy of this rank's
      // optimizer state on the GPU, nor a small copy per file range.
      for (const auto& [state_name, t] : ctx_.opt.optimizer->state_tensors())
        local[state_name] = at::zeros({t.numel()}, t.options().device(at::kCPU));
      load_owned_optimizer_shards(dir, meta["shards"].get<int>(), *ctx_.opt.flat, ctx_.dp.owned_ranges(), local);
      ctx_.opt.optimizer->load_state_tensors(local);
    } else {
      ctx_.opt.optimizer->load_state_tensors(ctx_.dp.slice_optimizer_state(read_whole_optimizer_state(dir, meta, *ctx_.opt.optimizer, *ctx_.opt.flat)));
    }
    ctx_.opt.optimizer->set_step_count(meta_fields.integer("step", 0));
  } else {
    log::warn("no optimizer state in " + dir + " (save_only_model?): the optimizer starts fresh");
  }
  if (io::path_exists(dir + "/scheduler.json")) {
    const JsonFields sched(io::read_json_file(dir + "/scheduler.json"), dir + "/scheduler.json");
    ctx_.opt.scheduler->set_steps_taken(sched.integer("steps_taken", 0));
    if (sched.has("state")) {
      try {
        ctx_.opt.scheduler->load_state(sched.object("state"));
      } catch (const CheckpointError& e) {
        throw CheckpointError(e.message(), dir + "/scheduler.json");
      }
    }
  } else {
    ctx_.opt.scheduler->set_steps_taken(ctx_.loop.state.global_step);
  }
  if (io::path_exists(dir + "/loop_state.json")) {
    const JsonFields loop(io::read_json_file(dir + "/loop_state.json"), dir + "/loop_state.json");
    ctx_.loop.losses.load(loop.number("tr_loss", 0.0), loop.number("total_loss", 0.0), ctx_.dp.rank());
    ctx_.loop.last_logged_step = loop.integer("last_logged_step", ctx_.loop.state.global_step);
    if (loop.has("metrics")) ctx_.loop.metrics.load(loop.raw("metrics"), ctx_.dp.rank());
  } else {
    ctx_.loop.last_logged_step = ctx_.loop.state.global_step;
  }
  if (ctx_.opt.scaler && io::path_exists(dir + "/scaler.json")) ctx_.opt.scaler->load_state_dict(io::read_json_file(dir + "/scaler.json"));
  if (io::path_exists(dir + "/rng_state.json")) {
    ctx_.loop.pending_rng = io::read_json_file(dir + "/rng_state.json");
    // Checked now, not when the RNG is restored mid-epoch.
    const JsonFields rng(ctx_.loop.pending_rng, dir + "/rng_state.json");
    for (const char* key : {"cpu", "cuda"}) rng.string(key, "");
    for (const char* key : {"ranks", "cuda_ranks"})
      for (const auto& s : rng.array(key))
        if (!s.is_string()) rng.fail(key, "expected a list of hex strings, found " + s.dump());
  }
  else log::info("Didn't find an RNG file, if you are resuming a training that was launched in a distributed fashion, reproducibility is not guaranteed.");

  if (ctx_.args.restore_callback_states_from_checkpoint) {
    std::vector<std::string> not_found;
    for (auto it = ctx_.loop.state.stateful_callbacks.begin(); it != ctx_.loop.state.stateful_callbacks.end(); ++it) {
      if (it.key() == "TrainerControl") {
        ctx_.loop.control = TrainerControl::from_json(JsonFields(it.value(), dir + "/trainer_state.json").object("args"), dir + "/trainer_state.json");
        continue;
      }
      bool found = false;
      for (const auto& cb : ctx_.callbacks.callbacks())
        if (cb->name() == it.key()) cb->load_state(it.value()), found = true;
      if (!found) not_found.push_back(it.key());
    }
    if (!not_found.empty()) log::warn("Checkpoint included callbacks not included in current configuration. Ignoring. (" + json(not_found).dump() + ")");
  }
}

void Checkpointer::restore_pending_rng() {
  if (ctx_.loop.pending_rng.is_null()) return;
  // This rank's generator when the checkpoint has one for it, else rank 0's; on a GPU the
  // same for the device's generator.
  auto state_for = [this](const char* per_rank, const char* single) -> std::string {
    const auto r = static_cast<size_t>(ctx_.dp.rank());
    if (ctx_.loop.pending_rng.contains(per_rank) && r < ctx_.loop.pending_rng[per_rank].size()) return ctx_.loop.pending_rng[per_rank][r].get<std::string>();
    return ctx_.loop.pending_rng.contains(single) ? ctx_.loop.pending_rng[single].get<std::string>() : std::string();
  };
  auto restore = [](at::Generator gen, const std::string& state) {
    if (state.empty()) return;
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(unhex(state, "rng_state.json"));
  };
  restore(at::detail::getDefaultCPUGenerator(), state_for("ranks", "cpu"));
  if (ctx_.device.is_cuda()) restore(at::globalContext().defaultGenerator(ctx_.device.device), state_for("cuda_ranks", "cuda"));
  ctx_.loop.pending_rng = nullptr;
}

void Checkpointer::save_model(const std::string& dir) const {
  // Collective (ZeRO-3 gathers a unit at a time); the writing process saves the consolidated model.
  if (ctx_.should_write()) models::materialize(*ctx_.model);  // saved without training: weights still in their files load first
  const std::optional<models::SavedModel> saved = writer_weights(ctx_, /*snapshot=*/false);
  if (!saved) return;
  const std::string out = dir.empty() ? ctx_.args.output_dir : dir;
  io::make_dirs(out);
  // HF save_pretrained writes the config beside the weights: transformers (or peft, for
  // LoRA adapters) then loads the folder.
  io::save_safetensors(out + "/" + saved->weights_file, saved->weights, {{"format", "pt"}});
  io::write_json_atomic(out + "/training_args.json", ctx_.args.to_json());
  if (!saved->config.is_null()) io::write_json_atomic(out + "/" + saved->config_file, saved->config);
  if (!saved->generation_config.is_null()) io::write_json_atomic(out + "/generation_config.json", saved->generation_config);
  for (const auto& f : saved->tokenizer_files) {
    const std::string to = out + "/" + std::filesystem::path(f).filename().string();
    std::error_code ec;
    if (!std::filesystem::equivalent(f, to, ec)) io::copy_file_atomic(f, to);  // equivalent: output_dir is the model's own folder
  }
}

void Checkpointer::save_state() const {
  if (!ctx_.should_write()) return;
  io::make_dirs(ctx_.args.output_dir);
  io::write_json_atomic(ctx_.args.output_dir + "/trainer_state.json", ctx_.loop.state.to_json());
}

}  // namespace runner::train
