// runner search RECIPE: HF's Trainer.hyperparameter_search (optuna backend) for a recipe
// that declares hp_space. Each trial reloads the recipe (a fresh model, as HF's model_init
// gives), sets the trial's values on top of the recipe and command line, trains into
// output_dir/run-<n>/ and scores the last evaluation with compute_objective. Intermediate
// evaluations feed the median pruner, which stops a trial that trails the others. Under
// mpiexec the trials are spread over the ranks, each trained by one rank alone; the ranks
// exchange results after every round, so the sampler of round r sees rounds 0..r-1.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <c10/util/Exception.h>

#include "bindings/lua/lua_hooks.h"
#include "bindings/lua/search_hooks.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/prepare_run.h"
#include "runtime/core/errors.h"
#include "runtime/core/v4_arguments.h"
#include "runtime/io/atomic_file.h"
#include "runtime/log/log.h"
#include "runtime/search/pareto.h"
#include "runtime/search/pruner.h"
#include "runtime/search/sampler.h"
#include "runtime/search/trial_json.h"

namespace runner::cli {

using nlohmann::json;
using search::Trial;

namespace {

// The samplers draw from (seed, trial number, parameter name), so a sampler made for each
// trial on any rank gives what one shared sampler would.
std::unique_ptr<search::Sampler> make_sampler(const lua::SearchSettings& s, uint64_t seed) {
  if (s.sampler == "random") return search::make_random_sampler(seed);
  if (s.sampler == "grid") return search::make_grid_sampler();
  return search::make_tpe_sampler(seed, s.directions);
}

// Reports each evaluation's objective to the trial and stops training when the pruner says
// the trial trails the others at this step (HF: trial.report + should_prune). With several
// named eval sets the evaluate event comes once per set: the objective sees their metrics
// merged, once per evaluation, as HF's _report_to_hp_search does.
class PruningCallback : public Callback {
 public:
  PruningCallback(Trial& trial, const std::vector<Trial>& history, const lua::LuaSearchHooks& hooks, bool prune, size_t eval_sets)
      : trial_(trial), history_(history), hooks_(hooks), prune_(prune), eval_sets_(std::max<size_t>(eval_sets, 1)) {}
  std::string name() const override { return "HyperparameterSearchCallback"; }
  void on_event(Event e, const TrainingArguments&, const TrainerState& state, TrainerControl& control, const json& set_metrics) override {
    if (e != Event::kEvaluate || !during_training) return;
    for (auto it = set_metrics.begin(); it != set_metrics.end(); ++it) merged_[it.key()] = it.value();
    if (++sets_seen_ < eval_sets_) return;
    sets_seen_ = 0;
    const json metrics = std::exchange(merged_, json::object());
    last_metrics = metrics;
    const std::vector<double> v = hooks_.objective(metrics);
    if (v.size() != 1) return;  // optuna reports and prunes single objectives only
    trial_.intermediate[state.global_step] = v[0];
    if (prune_ && pruner_.should_prune(history_, trial_, state.global_step, hooks_.settings().directions[0])) {
      pruned = true;
      control.should_training_stop = true;
      log::info("trial " + std::to_string(trial_.number) + " pruned at step " + std::to_string(state.global_step) + " (objective " +
                log::format_number(v[0]) + " trails the median of the other trials)");
    }
  }
  bool pruned = false;
  bool during_training = true;  // an evaluation after train() is not reported (HF reports from the training loop only)
  json last_metrics;

 private:
  Trial& trial_;
  const std::vector<Trial>& history_;
  const lua::LuaSearchHooks& hooks_;
  bool prune_;
  size_t eval_sets_, sets_seen_ = 0;
  json merged_ = json::object();
  search::MedianPruner pruner_;
};

struct TrialResult {
  Trial trial;
  std::optional<int64_t> grid_size;
};

TrialResult run_trial(const CommandLine& cl, int number, const std::vector<Trial>& history, const lua::SearchSettings& settings,
                      uint64_t seed, const std::string& base_dir) {
  const dist::World& world = dist::world();
  TrialResult out;
  Trial& t = out.trial;
  t.number = number;
  auto sampler = make_sampler(settings, seed);
  json params;
  PreparedRun p;
  prepare_run(cl, p, world, [&](PreparedRun& pr) {
    params = pr.recipe.search->space(number, [&](const std::string& name, const search::Distribution& d) -> json {
      if (const json* v = t.param(name)) {  // optuna: the same name again gives the same value
        if (t.distributions.at(name) != d) throw std::invalid_argument("parameter '" + name + "' suggested twice with different ranges");
        return *v;
      }
      json v = sampler->sample(history, t, name, d);
      t.params.emplace_back(name, v);
      t.distributions[name] = d;
      return v;
    });
    auto hooks = std::static_pointer_cast<lua::LuaHooks>(pr.recipe.hooks);
    for (auto it = params.begin(); it != params.end(); ++it) {
      if (find_arg_field(it.key()) || find_v4_argument(it.key())) {
        pr.args.set(it.key(), *it);
      } else if (!hooks->has("model_init")) {
        // HF warns and skips such keys; with no model_init to read them that would be a
        // setting accepted and ignored.
        throw RecipeError("hp_space: '" + it.key() + "' is not a training argument (runner args lists them); model settings are read by model_init(params)",
                          cl.recipe);
      }
    }
    if (hooks->has("model_init")) hooks->set_model_init_argument(params);
    pr.args.output_dir = base_dir + "/run-" + std::to_string(number);
  }, /*single_process=*/true);
  out.grid_size = sampler->grid_size();

  const bool prune = settings.pruner == "median" && settings.directions.size() == 1;
  const size_t eval_sets = (p.recipe.datasets.eval ? 1 : 0) + p.recipe.datasets.named_evals.size();
  auto pruning = std::make_shared<PruningCallback>(t, history, *p.recipe.search, prune, eval_sets);
  p.recipe.callbacks.push_back(pruning);
  train::TrainerOptions options = make_trainer_options(cl, p, world, /*single_process=*/true);
  options.trial_params = params;  // trainer_state.json: is_hyper_param_search, trial_params (HF)
  train::Trainer trainer(p.args, p.recipe.model, p.recipe.datasets, p.recipe.hooks, p.recipe.callbacks, options);
  log::info("trial " + std::to_string(number) + ": " + params.dump() + " → " + p.args.output_dir);
  trainer.train();
  pruning->during_training = false;
  trainer.save_model();
  trainer.save_state();
  if (pruning->pruned) {
    t.state = Trial::State::kPruned;
    return out;
  }
  // HF: the objective of the last evaluation during training, else of an evaluation now.
  json metrics = pruning->last_metrics;
  if (metrics.is_null()) {
    if (!p.recipe.datasets.has_eval())
      throw RecipeError("runner search scores each trial by evaluating it: give datasets.eval (or compute_objective over evaluation metrics)", cl.recipe);
    metrics = trainer.evaluate();
  }
  t.values = p.recipe.search->objective(metrics);
  t.state = Trial::State::kComplete;
  return out;
}

// Six significant digits in the table (hp_search.json keeps every digit).
std::string value_text(const json& v) {
  if (!v.is_number_float()) return v.is_string() ? v.get<std::string>() : v.dump();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
  return buf;
}

// The summary table (one row per trial) and the best trial(s), printed and saved.
void report(const std::vector<Trial>& trials, const lua::SearchSettings& s, const std::string& base_dir) {
  std::vector<std::string> names;
  for (const auto& t : trials)
    for (const auto& [k, v] : t.params)
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  std::vector<int> best;
  if (s.directions.size() == 1) {
    const int b = search::best_trial(trials, s.directions[0]);
    if (b >= 0) best.push_back(b);
  } else {
    best = search::pareto_front(trials, s.directions);
  }
  // Columns as wide as their widest cell.
  std::vector<std::vector<std::string>> rows{{"trial", "state", "objective"}};
  for (const auto& n : names) rows[0].push_back(n);
  for (const auto& t : trials) {
    std::string objective;
    for (size_t i = 0; i < t.values.size(); ++i) objective += (i ? ", " : "") + value_text(t.values[i]);
    std::vector<std::string> row{std::to_string(t.number), search::state_name(t.state), objective.empty() ? "-" : objective};
    for (const auto& n : names) row.push_back(t.param(n) ? value_text(*t.param(n)) : "-");
    if (std::find(best.begin(), best.end(), t.number) != best.end()) row.push_back("<- best");
    rows.push_back(row);
  }
  std::vector<size_t> width(3 + names.size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::ostringstream table;
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      table << (c ? "  " : "") << row[c];
      if (c + 1 < row.size() && c < width.size()) table << std::string(width[c] - row[c].size(), ' ');
    }
    table << "\n";
  }
  json summary = {{"directions", json::array()}, {"sampler", s.sampler}, {"pruner", s.pruner}, {"trials", json::array()}};
  for (auto d : s.directions) summary["directions"].push_back(search::direction_name(d));
  for (const auto& t : trials) {
    json row = search::trial_to_json(t);
    row["run_dir"] = base_dir + "/run-" + std::to_string(t.number);
    summary["trials"].push_back(row);
  }
  json best_rows = json::array();
  for (int b : best) best_rows.push_back(summary["trials"][static_cast<size_t>(b)]);
  if (s.directions.size() == 1) summary["best_trial"] = best_rows.empty() ? json() : best_rows[0];
  else summary["best_trials"] = best_rows;
  io::make_dirs(base_dir);
  io::write_json_atomic(base_dir + "/hp_search.json", summary);
  std::cout << "***** hyperparameter search: " << trials.size() << " trials *****\n" << table.str();
  if (!best.empty()) {
    const Trial& t = trials[static_cast<size_t>(best[0])];
    std::cout << (best.size() == 1 ? "best trial: " : "Pareto-optimal trials: ");
    if (best.size() == 1) {
      std::cout << t.number << " (" << base_dir << "/run-" << t.number << ")";
    } else {
      for (size_t i = 0; i < best.size(); ++i) std::cout << (i ? ", " : "") << best[i];
    }
    std::cout << "\nsummary: " << base_dir << "/hp_search.json\n";
  }
  std::cout.flush();
}

}  // namespace

int search(const CommandLine& cl) {
  const dist::World& world = dist::world();
  // The recipe once, to read the search's settings (every rank reads the same).
  PreparedRun first;
  agree_on_setup(world, [&] {
    prepare_run(cl, first, world, {}, /*single_process=*/true);
    if (!first.recipe.search->has_space())
      throw RecipeError("runner search needs hp_space = function(trial) return { learning_rate = trial:suggest_float(...), ... } end",
                        cl.recipe);
  });
  const lua::SearchSettings settings = first.recipe.search->settings();
  const std::string base_dir = first.args.output_dir;
  const uint64_t seed = settings.seed.value_or(static_cast<uint64_t>(first.args.seed));
  first = PreparedRun{};
  if (world.rank == 0)
    log::info("hyperparameter search: " + std::to_string(settings.n_trials) + " trials, " + settings.sampler + " sampler, " +
              settings.pruner + " pruner" + (world.size > 1 ? ", spread over " + std::to_string(world.size) + " ranks" : ""));

  std::vector<Trial> history;
  std::optional<int64_t> grid_size;
  for (int start = 0; start < settings.n_trials && !(grid_size && start >= *grid_size); start += world.size) {
    const int number = start + world.rank;
    std::string mine;  // this rank's finished trial, as JSON ("" when it had none this round)
    if (number < settings.n_trials && !(grid_size && number >= *grid_size)) {
      TrialResult r = run_trial(cl, number, history, settings, seed, base_dir);
      json j = search::trial_to_json(r.trial);
      if (r.grid_size) j["grid_size"] = *r.grid_size;
      mine = j.dump();
    }
    for (const std::string& s : dist::all_gather_strings(mine)) {
      if (s.empty()) continue;
      const json j = json::parse(s);
      if (j.contains("grid_size")) grid_size = j["grid_size"].get<int64_t>();
      history.push_back(search::trial_from_json(j));
    }
    std::sort(history.begin(), history.end(), [](const Trial& a, const Trial& b) { return a.number < b.number; });
  }
  if (world.rank == 0) report(history, settings, base_dir);
  return 0;
}

}  // namespace runner::cli
