#include "runtime/train/run.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <c10/util/Exception.h>

#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/safetensors.h"
#include "runtime/log/log.h"
#include "runtime/device/out_of_memory.h"

namespace runner::train {

using nlohmann::json;

Phases resolve_phases(const TrainingArguments& args, const Datasets& d) {
  Phases p;
  p.train = args.do_train.value_or(d.has_train());
  p.eval = args.do_eval.value_or(d.has_eval() || args.eval_strategy != "no");
  p.predict = args.do_predict;
  if (p.train && !d.has_train()) throw RecipeError("do_train is set but the recipe has no datasets.train");
  if (p.eval && !d.has_eval())
    throw RecipeError(std::string("evaluation is on (") + (args.do_eval.value_or(false) ? "do_eval" : "eval_strategy = \"" + args.eval_strategy + "\"") +
                      ") but the recipe has no datasets.eval");
  if (p.predict && !d.test) throw RecipeError("do_predict is set but the recipe has no datasets.test");
  if (!p.train && !p.eval && !p.predict)
    throw RecipeError(d.has_train() || d.has_eval() || d.test
                          ? "do_train, do_eval and do_predict are all off: the run would do nothing"
                          : "the recipe has no datasets: nothing to train, evaluate or predict (add datasets.train, as HF's Trainer needs a train_dataset)");
  return p;
}

namespace {

// HF log_metrics: a table of the phase's metrics, keys padded; on the world's first process
// only (not on other nodes' first processes, log_on_each_node or not).
void log_metrics(const Trainer& trainer, const std::string& split, const json& metrics) {
  if (!trainer.state().is_world_process_zero) return;
  log::info("***** " + split + " metrics *****");
  size_t width = 0;
  for (auto it = metrics.begin(); it != metrics.end(); ++it) width = std::max(width, it.key().size());
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    const std::string value = it.value().is_number() ? log::format_number(it.value().get<double>()) : it.value().dump();
    log::info("  " + it.key() + std::string(width - it.key().size(), ' ') + " = " + value);
  }
}

// An out-of-memory error (CUDA's, or the CPU allocator's) becomes one line that names the
// phase and the batch size and says what to try; checkpoints already written are untouched
// (they are committed whole).
template <class F>
auto oom_guarded(const char* phase, const char* batch_arg, const int64_t& batch, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {  // also a Lua hook's (HookError) or TorchScript's (RecipeError), which wrap it
    if (!device::is_out_of_memory(e)) throw;
    const std::string what = device::out_of_memory_summary(e);
    const bool gpu = dynamic_cast<const c10::OutOfMemoryError*>(&e) || what.rfind("CUDA", 0) == 0;
    throw ArgumentError(std::string("out of ") + (gpu ? "GPU " : "") + "memory during " + phase +
                        " with " + batch_arg + " = " + std::to_string(batch) +
                        ": lower it (keeping the global batch with gradient_accumulation_steps) or set auto_find_batch_size, or use bf16, "
                        "ZeRO/FSDP sharding or CPU offload (" + what + ")");
  }
}

// The closing line: what the run left in output_dir, so a user knows where to look.
void log_outputs(const std::string& out) {
  if (!io::is_directory(out)) return;
  std::vector<std::string> found;
  for (const char* f : {"model.safetensors", "trainer_state.json", "all_results.json", "predictions.safetensors", "log_history.jsonl"})
    if (io::path_exists(out + "/" + f)) found.emplace_back(f);
  int64_t checkpoints = 0, newest = -1;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("checkpoint-", 0) != 0 || !entry.is_directory()) continue;
    const std::string digits = name.substr(11);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    ++checkpoints;
    newest = std::max<int64_t>(newest, std::stoll(digits));
  }
  if (checkpoints) found.push_back(std::to_string(checkpoints) + (checkpoints == 1 ? " checkpoint" : " checkpoints") + " (newest checkpoint-" + std::to_string(newest) + ")");
  if (io::is_directory(out + "/runs")) found.emplace_back("runs/ (TensorBoard)");
  std::string line = "outputs in " + out + ":";
  for (size_t i = 0; i < found.size(); ++i) line += (i ? ", " : " ") + found[i];
  log::info(line);
}

void save_metrics(const std::string& dir, const std::string& split, const json& metrics, json& all) {
  io::write_json_atomic(dir + "/" + split + "_results.json", metrics);
  for (auto it = metrics.begin(); it != metrics.end(); ++it) all[it.key()] = it.value();
}

}  // namespace

void run_phases(Trainer& trainer, const Phases& phases) {
  const std::string out = trainer.args().output_dir;
  const bool write = trainer.should_write();  // every rank runs the phases; one writes
  json all = json::object();
  if (phases.train) {
    const TrainingArguments& a = trainer.args();
    TrainOutput result = oom_guarded("training", "per_device_train_batch_size", a.per_device_train_batch_size, [&] { return trainer.train(); });
    if (trainer.preempted()) return;
    trainer.save_model();
    trainer.save_state();
    log_metrics(trainer, "train", result.metrics);
    if (write) save_metrics(out, "train", result.metrics, all);
  }
  if (phases.eval) {
    json metrics = oom_guarded("evaluation", "per_device_eval_batch_size", trainer.args().per_device_eval_batch_size, [&] { return trainer.evaluate(); });
    log_metrics(trainer, "eval", metrics);
    if (write) {
      io::make_dirs(out);
      save_metrics(out, "eval", metrics, all);
    }
  }
  if (phases.predict) {
    PredictionOutput p = oom_guarded("prediction", "per_device_eval_batch_size", trainer.args().per_device_eval_batch_size, [&] { return trainer.predict(); });
    log_metrics(trainer, "test", p.metrics);
    if (write) {
      io::make_dirs(out);
      save_metrics(out, "test", p.metrics, all);
      io::NamedTensors tensors;
      if (p.predictions.defined()) tensors.emplace_back("predictions", p.predictions);
      if (p.label_ids.defined()) tensors.emplace_back("label_ids", p.label_ids);
      if (!tensors.empty()) io::save_safetensors(out + "/predictions.safetensors", tensors);
    }
  }
  if (write && !all.empty()) io::write_json_atomic(out + "/all_results.json", all);
  if (write) log_outputs(out);
}

}  // namespace runner::train
