// Fuzz target: every JSON file runner reads back, from the same bytes: the Python-style JSON
// text reader (NaN / Infinity tokens), trainer_state.json (TrainerState, TrainerControl),
// the checkpoint metadata files (optimizer.json, scheduler.json, loop_state.json,
// rng_state.json, scaler.json) through the typed reads the checkpoint loader does,
// training arguments (training_args.json / a recipe's args) with finalize(), a DeepSpeed
// config, and a checkpoint folder's manifest.json.
//
// Property checked besides "no crash": what dump_json_python writes, parse_json_python reads
// back unchanged.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/core/json_fields.h"
#include "runtime/core/trainer_state.h"
#include "runtime/core/training_args.h"
#include "runtime/io/json_text.h"
#include "runtime/io/manifest.h"
#include "runtime/optim/scheduler.h"
#include "runtime/config/deepspeed_config.h"
#include "runtime/train/loss_scaler.h"
#include "tests/fuzz/fuzz_util.h"

using nlohmann::json;
using runner::fuzz::expect_errors;

namespace {

void check_round_trip(const json& j) {
  const std::string text = runner::io::dump_json_python(j);
  const json back = runner::io::parse_json_python(text);
  if (back.is_discarded() || runner::io::dump_json_python(back) != text) {
    std::fprintf(stderr, "dump_json_python/parse_json_python round trip changed the value:\n%s\n", text.c_str());
    std::abort();
  }
}

// What Trainer::load_checkpoint reads from the metadata files (runtime/train/checkpoint.cpp).
void read_checkpoint_metadata(const json& j) {
  using runner::JsonFields;
  expect_errors([&] {  // optimizer.json
    const JsonFields f(j, "optimizer.json");
    f.string("type", "adamw");
    f.integer("shards", 0);
    f.integer("step", 0);
  });
  expect_errors([&] {  // scheduler.json
    const JsonFields f(j, "scheduler.json");
    f.integer("steps_taken", 0);
    if (f.has("state")) {
      const json state = f.object("state");
      expect_errors([&] { runner::optim::make_scheduler("linear", 10, 100, json::object(), 1e-3)->load_state(state); });
      expect_errors([&] { runner::optim::PlateauScheduler(runner::optim::PlateauOptions{}, 1e-3).load_state(state); });
    }
  });
  expect_errors([&] {  // loop_state.json
    const JsonFields f(j, "loop_state.json");
    f.number("tr_loss", 0.0);
    f.number("total_loss", 0.0);
    f.integer("last_logged_step", 0);
  });
  expect_errors([&] {  // rng_state.json
    const JsonFields f(j, "rng_state.json");
    for (const char* key : {"cpu", "cuda"}) f.string(key, "");
    for (const char* key : {"ranks", "cuda_ranks"})
      for (const auto& s : f.array(key))
        if (!s.is_string()) f.fail(key, "expected a list of hex strings");
  });
  expect_errors([&] {  // scaler.json
    runner::train::LossScaler scaler;
    scaler.load_state_dict(j);
  });
}

void read_trainer_state(const json& j) {
  expect_errors([&] {
    const runner::TrainerState s = runner::TrainerState::from_json(j);
    // What runner writes back must read back as the same state.
    const json out = s.to_json();
    check_round_trip(out);
    if (runner::TrainerState::from_json(runner::io::parse_json_python(runner::io::dump_json_python(out))).to_json().dump() != out.dump()) {
      std::fprintf(stderr, "TrainerState did not survive to_json/from_json\n");
      std::abort();
    }
    // Trainer::load_checkpoint restores TrainerControl from stateful_callbacks.
    for (auto it = s.stateful_callbacks.begin(); it != s.stateful_callbacks.end(); ++it)
      if (it.key() == "TrainerControl")
        runner::TrainerControl::from_json(runner::JsonFields(it.value(), "trainer_state.json").object("args"));
  });
  expect_errors([&] { runner::TrainerControl::from_json(j); });
}

void read_training_arguments(const json& j) {
  expect_errors([&] {
    runner::TrainingArguments args = runner::TrainingArguments::from_json(j);
    args.finalize();
    (void)args.to_json();
    // The schedule and its kwargs come from the same arguments.
    auto s = runner::optim::make_scheduler(args.lr_scheduler_type, args.warmup_steps_for(100), 100, args.lr_scheduler_kwargs,
                                           args.learning_rate);
    for (int64_t step = 0; step < 3; ++step) (void)s->factor(step);
  });
}

void read_deepspeed(const json& j) {
  expect_errors([&] { runner::config::read_deepspeed_config(j, runner::TrainingArguments{}, 2); });
}

void read_manifest(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    const std::string d = runner::fuzz::scratch_dir("json") + "/checkpoint-1";
    std::filesystem::create_directories(d);
    const uint8_t model[] = "not really a model";
    runner::fuzz::write_bytes(d + "/model.safetensors", model, sizeof model - 1);
    return d;
  }();
  runner::fuzz::write_bytes(dir + "/manifest.json", data, size);
  expect_errors([&] { (void)runner::io::checkpoint_problem(dir); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Bad syntax is a discarded value, never an exception (an exception here is a finding).
  const json j = runner::io::parse_json_python(text);
  read_manifest(data, size);
  if (j.is_discarded()) return 0;
  check_round_trip(j);
  if (!j.is_object()) return 0;
  read_trainer_state(j);
  read_checkpoint_metadata(j);
  read_training_arguments(j);
  read_deepspeed(j);
  return 0;
}
