"""runner search: HF's hyperparameter_search for a recipe with hp_space. The TPE sampler finds
the known optimum of a synthetic objective; the grid sampler covers its grid once; the median
pruner stops trials that trail; several directions give the Pareto front; under mpiexec the
trials are spread over the ranks; every trial trains in output_dir/run-<n>/ and the summary
is printed and saved in hp_search.json."""
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

# The objective is a known function of the trial's values (x, lr): (x - 2)^2 + (log10(lr) + 3)^2,
# computed by compute_metrics from what model_init was given, so its optimum is known exactly:
# x = 2, lr = 1e-3, objective 0. learning_rate is a real argument too (the training uses it).
SYNTHETIC = """local data = require "runner.data"
local chosen = {}
local x = torch.rand(32, 1)
return {
  args = { max_steps = 2, per_device_train_batch_size = 8, eval_strategy = "steps", eval_steps = 1, save_strategy = "no",
           report_to = "none", logging_steps = 1 },
  datasets = { train = data.tensors{ x = x, labels = x * 2 }, eval = data.tensors{ x = x, labels = x * 2 } },
  model_init = function(params) chosen = params or {} ; return nn.Linear(1, 1) end,
  compute_loss = function(model, inputs)
    local out = model(inputs.x)
    return F.mse_loss(out, inputs.labels), out
  end,
  compute_metrics = function(p)
    return { synthetic = (chosen.x - 2) ^ 2 + (math.log10(chosen.learning_rate) + 3) ^ 2 }
  end,
  hp_space = function(trial)
    return { x = trial:suggest_float("x", -5, 5), learning_rate = trial:suggest_float("learning_rate", 1e-6, 1, {log = true}) }
  end,
  compute_objective = function(metrics) return metrics.eval_synthetic end,
  n_trials = N_TRIALS,
  direction = "minimize",
  hp_sampler = "SAMPLER",
  hp_pruner = "PRUNER",
  hp_seed = 1,
}
"""


def search(recipe, out, *extra, ranks=1):
    cmd = [BINARY, "search", recipe, "--output_dir", out, *extra]
    if ranks > 1:
        cmd = [MPIEXEC, "-n", str(ranks), *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def load(out):
    with open(os.path.join(out, "hp_search.json")) as f:
        return json.load(f)


def synthetic(params):
    import math
    return (params["x"] - 2) ** 2 + (math.log10(params["learning_rate"]) + 3) ** 2


class Search(unittest.TestCase):
    def setUp(self):
        self.tmp = TempDir().__enter__()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def recipe(self, n_trials=40, sampler="tpe", pruner="none", text=SYNTHETIC):
        body = text.replace("N_TRIALS", str(n_trials)).replace("SAMPLER", sampler).replace("PRUNER", pruner)
        return write(os.path.join(self.tmp, f"{sampler}_{pruner}_{n_trials}.lua"), body)

    def test_tpe_finds_the_known_optimum_and_beats_random(self):
        results = {}
        for sampler in ("tpe", "random"):
            out = os.path.join(self.tmp, sampler)
            code, stdout, err = search(self.recipe(sampler=sampler), out)
            self.assertEqual(code, 0, err[-3000:])
            summary = load(out)
            self.assertEqual(len(summary["trials"]), 40)
            for t in summary["trials"]:
                self.assertEqual(t["state"], "complete")
                self.assertAlmostEqual(t["values"][0], synthetic(t["params"]), places=4)  # the objective is what the trial scored
                self.assertTrue(os.path.exists(os.path.join(out, f"run-{t['number']}", "trainer_state.json")))
                args = json.load(open(os.path.join(out, f"run-{t['number']}", "trainer_state.json")))
                self.assertEqual(args["global_step"], 2)
            best = summary["best_trial"]
            self.assertEqual(best["values"][0], min(t["values"][0] for t in summary["trials"]))
            self.assertIn(f"best trial: {best['number']} ({out}/run-{best['number']})", stdout)
            self.assertIn("***** hyperparameter search: 40 trials *****", stdout)
            results[sampler] = best["values"][0]
        # The optimum is 0 at x = 2, lr = 1e-3: TPE gets close, and closer than random search.
        self.assertLess(results["tpe"], 0.5, results)
        self.assertLess(results["tpe"], results["random"], results)

    def test_trials_use_their_learning_rate(self):
        out = os.path.join(self.tmp, "lr")
        code, _, err = search(self.recipe(n_trials=3, sampler="random"), out)
        self.assertEqual(code, 0, err[-3000:])
        for t in load(out)["trials"]:
            with open(os.path.join(out, f"run-{t['number']}", "trainer_state.json")) as f:
                history = json.load(f)["log_history"]
            self.assertAlmostEqual(history[0]["learning_rate"], t["params"]["learning_rate"] * 1.0, delta=t["params"]["learning_rate"] * 1e-6)
            with open(os.path.join(out, f"run-{t['number']}", "trainer_state.json")) as f:
                state = json.load(f)
            self.assertTrue(state["is_hyper_param_search"])  # HF marks a trial's state so
            self.assertEqual(state["trial_params"], t["params"])

    def test_the_objective_sees_every_named_eval_set_at_once(self):
        """HF reports the merged metrics of all eval sets once per evaluation; the objective of
        two named sets read only the last set's metrics (a nil field, exit 2)."""
        named = SYNTHETIC.replace("eval = data.tensors{ x = x, labels = x * 2 } },",
                                  "eval = { clean = data.tensors{ x = x, labels = x * 2 }, noisy = data.tensors{ x = x, labels = x * 3 } } },")
        named = named.replace("compute_objective = function(metrics) return metrics.eval_synthetic end,",
                              "compute_objective = function(metrics) return metrics.eval_clean_loss + metrics.eval_noisy_loss end,")
        self.assertNotEqual(named, SYNTHETIC)
        out = os.path.join(self.tmp, "named")
        code, _, err = search(self.recipe(n_trials=2, sampler="random", text=named), out)
        self.assertEqual(code, 0, err[-3000:])
        for t in load(out)["trials"]:
            with open(os.path.join(out, f"run-{t['number']}", "trainer_state.json")) as f:
                history = json.load(f)["log_history"]
            last = {k: v for e in history if e["step"] == 2 for k, v in e.items()}
            self.assertAlmostEqual(t["values"][0], last["eval_clean_loss"] + last["eval_noisy_loss"], places=6)
            self.assertEqual(sorted(t["intermediate_values"]), ["1", "2"])  # one report per evaluation, not per set

    def test_grid_covers_each_point_once(self):
        grid = SYNTHETIC.replace(
            'return { x = trial:suggest_float("x", -5, 5), learning_rate = trial:suggest_float("learning_rate", 1e-6, 1, {log = true}) }',
            'return { x = trial:suggest_int("x", 1, 3), learning_rate = trial:suggest_categorical("learning_rate", {0.01, 0.001}) }')
        out = os.path.join(self.tmp, "grid")
        code, stdout, err = search(self.recipe(n_trials=20, sampler="grid", text=grid), out)
        self.assertEqual(code, 0, err[-3000:])
        points = sorted((t["params"]["x"], t["params"]["learning_rate"]) for t in load(out)["trials"])
        self.assertEqual(points, sorted((x, lr) for x in (1, 2, 3) for lr in (0.01, 0.001)))  # 6 trials, not 20
        self.assertEqual(load(out)["best_trial"]["params"], {"x": 2, "learning_rate": 0.001})

    def test_median_pruner_stops_trials_that_trail(self):
        # Four evaluations per trial; after 5 finished trials, one whose objective is worse than
        # the median of the others at the same step is stopped there.
        pruned_recipe = SYNTHETIC.replace("max_steps = 2", "max_steps = 4")
        out = os.path.join(self.tmp, "pruned")
        code, stdout, err = search(self.recipe(n_trials=16, sampler="random", pruner="median", text=pruned_recipe), out)
        self.assertEqual(code, 0, err[-3000:])
        trials = load(out)["trials"]
        pruned = [t for t in trials if t["state"] == "pruned"]
        self.assertTrue(pruned, "no trial was pruned")
        # optuna's MedianPruner: complete trials only, against the trial's best value so far
        for t in pruned:
            step = max(int(s) for s in t["intermediate_values"])
            with open(os.path.join(out, f"run-{t['number']}", "trainer_state.json")) as f:
                self.assertLess(json.load(f)["global_step"], 4)  # stopped early
            complete = [u for u in trials if u["number"] < t["number"] and u["state"] == "complete"]
            self.assertGreaterEqual(len(complete), 5, "nothing is pruned before 5 trials have completed")
            earlier = sorted(u["intermediate_values"][str(step)] for u in complete if str(step) in u["intermediate_values"])
            median = (earlier[(len(earlier) - 1) // 2] + earlier[len(earlier) // 2]) / 2
            self.assertGreater(min(t["intermediate_values"].values()), median)
        self.assertIn("pruned at step", stdout)

    def test_several_directions_give_the_pareto_front(self):
        two = SYNTHETIC.replace('compute_objective = function(metrics) return metrics.eval_synthetic end,',
                                'compute_objective = function(metrics) return { metrics.eval_synthetic, metrics.eval_loss } end,')
        two = two.replace('direction = "minimize",', 'direction = {"minimize", "maximize"},')
        out = os.path.join(self.tmp, "pareto")
        code, stdout, err = search(self.recipe(n_trials=12, sampler="tpe", text=two), out)
        self.assertEqual(code, 0, err[-3000:])
        summary = load(out)
        front = {t["number"] for t in summary["best_trials"]}
        self.assertTrue(front)
        values = {t["number"]: t["values"] for t in summary["trials"]}
        for n, (a, b) in values.items():
            dominated = any(a2 <= a and b2 >= b and (a2 < a or b2 > b) for m, (a2, b2) in values.items() if m != n)
            self.assertEqual(n not in front, dominated, n)
        self.assertIn("Pareto-optimal trials:", stdout)

    def test_trials_spread_over_mpi_ranks(self):
        out = os.path.join(self.tmp, "mpi")
        code, stdout, err = search(self.recipe(n_trials=6, sampler="tpe"), out, ranks=2)
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn("spread over 2 ranks", stdout)
        trials = load(out)["trials"]
        self.assertEqual([t["number"] for t in trials], list(range(6)))
        self.assertEqual(len({(t["params"]["x"], t["params"]["learning_rate"]) for t in trials}), 6, "each trial its own values")
        for t in trials:
            self.assertEqual(t["state"], "complete")
            self.assertTrue(os.path.exists(os.path.join(out, f"run-{t['number']}", "trainer_state.json")))

    def test_mistakes_are_clear(self):
        no_space = write(os.path.join(self.tmp, "plain.lua"), SYNTHETIC.replace("hp_space =", "unused_space =")
                         .replace("N_TRIALS", "2").replace("SAMPLER", "tpe").replace("PRUNER", "none"))
        code, _, err = search(no_space, os.path.join(self.tmp, "x"))
        self.assertEqual(code, 2, err)
        self.assertIn("unknown recipe field 'unused_space'", err)
        missing = write(os.path.join(self.tmp, "missing.lua"), SYNTHETIC.replace("  hp_space =", "  unused = nil, hp_space_ =")
                        .replace("N_TRIALS", "2").replace("SAMPLER", "tpe").replace("PRUNER", "none"))
        code, _, err = search(missing, os.path.join(self.tmp, "x"))
        self.assertEqual(code, 2, err)
        for bad, message in (('hp_sampler = "tpe"', 'hp_sampler = "cmaes"'), ('direction = "minimize"', 'direction = "down"')):
            path = write(os.path.join(self.tmp, "bad.lua"), SYNTHETIC.replace("N_TRIALS", "2").replace("SAMPLER", "tpe")
                         .replace("PRUNER", "none").replace(bad.replace("tpe", "SAMPLER") if False else bad, message))
            code, _, err = search(path, os.path.join(self.tmp, "x"))
            self.assertEqual(code, 2, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        grid_float = self.recipe(n_trials=2, sampler="grid")
        code, _, err = search(grid_float, os.path.join(self.tmp, "x"))
        self.assertEqual(code, 2, err)
        self.assertIn("grid search needs discrete values", err)


if __name__ == "__main__":
    unittest.main()
