// Turning a command line into a ready-to-train run: the recipe loaded, the arguments
// resolved (defaults < recipe < command line < accelerate config fill-ins), the data
// parallel plan, the device and the Trainer's options. `runner RECIPE`, `runner check` and
// every trial of `runner search` go through it.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "bindings/lua/lua_state.h"
#include "bindings/lua/recipe.h"
#include "runtime/cli/command_line.h"
#include "runtime/dist/world.h"
#include "runtime/device/device.h"
#include "runtime/config/parallel_config.h"
#include "runtime/train/run.h"

namespace runner::cli {

struct PreparedRun {
  std::unique_ptr<lua::LuaState> lua;
  lua::Recipe recipe;
  TrainingArguments args;
  train::Phases phases;
  config::ParallelPlan parallel;
  device::DevicePlan device;
  std::string backend;
};

// Loads and checks everything (throws the located one-line errors). `adjust` runs once the
// command line has been applied, before the arguments are finalized: a search trial sets
// its values there. `single_process`: train this run alone even under mpiexec (the search
// spreads trials over the ranks).
void prepare_run(const CommandLine& cl, PreparedRun& p, const dist::World& world,
                 const std::function<void(PreparedRun&)>& adjust = {}, bool single_process = false);

// Rank 0's clock becomes every rank's template time (strftime_now in chat templates), before
// any recipe builds a dataset. A collective: every rank calls it at the same point.
void share_template_time(const dist::World& world);

// Every rank built the same datasets: their sizes and fingerprints (data::fingerprint) are
// compared over the ranks (a collective); a difference is a DataError naming the dataset and
// the ranks, on every rank alike.
void check_datasets_agree(const train::Datasets& datasets, const dist::World& world);

// The Trainer's options for a prepared run (and ds_config.json written, as DeepSpeed does).
// `single_process`: no communicator, whatever the world.
train::TrainerOptions make_trainer_options(const CommandLine& cl, PreparedRun& p, const dist::World& world, bool single_process);

}  // namespace runner::cli
