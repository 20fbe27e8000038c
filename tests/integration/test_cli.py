"""The CLI contract: help, version, args, check (precedence defaults < recipe < command line)."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, SOURCE, TempDir, run, write  # noqa: E402

RECIPE = """return {
  args = { learning_rate = 0.01, num_train_epochs = 2 },
  datasets = { train = (require "runner.data").tensors{ x = torch.zeros(4, 1), labels = torch.zeros(4, 1) } },
  model = nn.Linear(1, 1),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
}
"""


class Cli(unittest.TestCase):
    def test_the_same_command_gives_the_same_weights(self):
        # The recipe builds its model without torch.manual_seed: runner seeds the generators
        # from --seed (default 42) before the recipe runs, so runs repeat; --seed changes them.
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE.replace("nn.Linear(1, 1)", "nn.Sequential{nn.Linear(1, 8), nn.Linear(8, 1)}"))
            weights = []
            for name, extra in (("a", ()), ("b", ()), ("c", ("--seed", "7"))):
                out = os.path.join(tmp, name)
                code, _, err = run(recipe, "--output_dir", out, "--max_steps", "1", *extra)
                self.assertEqual(code, 0, err)
                with open(os.path.join(out, "model.safetensors"), "rb") as f:
                    weights.append(f.read())
            self.assertEqual(weights[0], weights[1])
            self.assertNotEqual(weights[0], weights[2])

    def test_help_and_version(self):
        code, out, _ = run("--help")
        self.assertEqual(code, 0)
        self.assertIn("usage: runner RECIPE.lua", out)
        code, out, _ = run("--version")
        self.assertEqual(code, 0)
        self.assertRegex(out, r"^runner \d+\.\d+\.\d+")

    def test_a_mistyped_or_unknown_flag_is_named_with_a_suggestion(self):
        # As an HF user meets the command line: a bare unknown flag is reported as unknown by
        # its name (never "needs a value", never an error about the next token), v4 names
        # work from the command line, and --help works anywhere.
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE)
            out_dir = os.path.join(tmp, "o")
            for line, message in (
                (("--foo",), "runner: error: command line: --foo: unknown argument (runner args lists"),
                (("--foo", "--max_steps", "3"), "runner: error: command line: --foo: unknown argument"),
                (("--no_cud", "--max_steps", "3"), "--no_cud: unknown argument; did you mean 'no_cuda'?"),
                (("--lerning_rate", "0.1"), "--lerning_rate: unknown argument; did you mean 'learning_rate'?"),
                (("--max_steps", "--logging_steps", "1"), "command line:5: --max_steps needs a value"),
            ):
                code, _, err = run("check", recipe, "--output_dir", out_dir, *line)
                self.assertEqual(code, 2, (line, err))
                self.assertIn(message, err, line)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
            code, out, err = run("check", recipe, "--no_cuda", "--max_steps", "3", "--evaluation_strategy", "no",
                                 "--output_dir", out_dir)
            self.assertEqual(code, 0, err)
            args = json.loads(out)
            self.assertEqual((args["use_cpu"], args["max_steps"], args["eval_strategy"]), (True, 3, "no"))
            self.assertIn("evaluation_strategy is a transformers v4 name", err)
            code, out, _ = run(recipe, "--max_steps", "3", "--help")
            self.assertEqual(code, 0)
            self.assertIn("usage: runner RECIPE.lua", out)
            self.assertFalse(os.path.exists(out_dir))

    def test_progress_lines_bar_and_closing_summary(self):
        # Not a terminal (a pipe, a cluster log): a plain progress line per tenth of the run
        # (step/total, it/s, ETA, loss), none with disable_tqdm; at the end the metrics table
        # and where the outputs are.
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE)
            out_dir = os.path.join(tmp, "o")
            code, out, err = run(recipe, "--output_dir", out_dir, "--max_steps", "20", "--logging_steps", "5", "--save_steps", "10")
            self.assertEqual(code, 0, err)
            lines = [l for l in out.splitlines() if "] step " in l]
            self.assertEqual([l.split("] step ")[1].split(" ")[0] for l in lines], [f"{2 * k}/20" for k in range(1, 11)], out)
            self.assertRegex(lines[-1], r"step 20/20 \(100%\), [0-9.]+ (it/s|s/it), elapsed \d\d:\d\d, ETA \d\d:\d\d, loss [0-9.]+$")
            self.assertIn("***** train metrics *****", out)
            self.assertIn(f"outputs in {out_dir}: model.safetensors, trainer_state.json, all_results.json, 2 checkpoints (newest checkpoint-20)",
                          out.splitlines()[-1])
            code, out, err = run(recipe, "--output_dir", os.path.join(tmp, "p"), "--max_steps", "20", "--disable_tqdm", "true")
            self.assertEqual(code, 0, err)
            self.assertNotIn("] step ", out)

            # On a terminal: the bar, redrawn in place, with the evaluation's own bar.
            import pty
            import subprocess
            recipe = write(os.path.join(tmp, "e.lua"), RECIPE.replace(
                "datasets = {", 'datasets = { eval = (require "runner.data").tensors{ x = torch.zeros(4, 1), labels = torch.zeros(4, 1) },'))
            leader, follower = pty.openpty()
            p = subprocess.Popen([BINARY, recipe, "--output_dir", os.path.join(tmp, "q"), "--max_steps", "20", "--eval_strategy", "steps",
                                  "--eval_steps", "10", "--logging_steps", "5"],
                                 stdout=follower, stderr=subprocess.PIPE, env={**os.environ, "TERM": "xterm"})
            os.close(follower)
            screen = b""
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                screen += chunk
            with p.stderr:
                self.assertEqual(p.wait(timeout=120), 0, p.stderr.read())
            os.close(leader)
            screen = screen.decode()
            self.assertIn("100%|##############################| 20/20 [", screen)
            self.assertRegex(screen, r"eval 100%\|#+\| 1/1 \[")
            self.assertRegex(screen, r"it/s, loss [0-9.]+\]")
            self.assertNotIn("] step ", screen)

    def test_args_lists_every_argument(self):
        code, out, _ = run("args")
        self.assertEqual(code, 0)
        self.assertIn("--learning_rate (Float, default 5e-05)", out)
        self.assertIn("--eval_strategy (Str, default \"no\")", out)

    def test_docs_arguments_md_is_generated_from_the_table(self):
        code, out, _ = run("args", "--markdown")
        self.assertEqual(code, 0)
        with open(os.path.join(SOURCE, "docs/arguments.md")) as f:
            self.assertEqual(f.read(), out, "docs/arguments.md is stale: regenerate with `build/runner args --markdown > docs/arguments.md`")

    def test_check_prints_resolved_arguments_with_precedence(self):
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE)
            code, out, err = run("check", recipe, "--learning_rate", "0.5", "--output_dir", os.path.join(tmp, "o"))
            self.assertEqual(code, 0, err)
            args = json.loads(out)
            self.assertEqual(args["learning_rate"], 0.5)       # command line beats recipe
            self.assertEqual(args["num_train_epochs"], 2.0)    # recipe beats default
            self.assertEqual(args["per_device_train_batch_size"], 8)  # default
            self.assertFalse(os.path.exists(os.path.join(tmp, "o")), "check must not train or write")

    def test_check_refuses_the_optimizer_and_schedule_options_training_would(self):
        # runner check is what CI runs on recipes: options the optimizer or the schedule refuse
        # when training starts must not pass it (they did: check stopped after the arguments).
        cases = [(("--optim_args", "foo=1"), "args.optim_args: adamw_torch_fused has no option 'foo'"),
                 (("--optim", "sgd", "--optim_args", "momentum=abc"), "args.optim_args.momentum: must be a number"),
                 (("--lr_scheduler_kwargs", '{"foo": 1}'), "args.lr_scheduler_kwargs.foo: not an option of linear")]
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE)
            for extra, message in cases:
                code, out, err = run("check", recipe, "--output_dir", os.path.join(tmp, "o"), *extra)
                self.assertEqual(code, 2, err)
                self.assertIn(message, err.strip().splitlines()[-1])
                self.assertEqual(out, "")
            code, _, err = run("check", recipe, "--output_dir", os.path.join(tmp, "o"), "--optim", "sgd", "--optim_args", "momentum=0.9")
            self.assertEqual(code, 0, err)

    def test_use_cache_warns_that_training_builds_no_cache(self):
        # HF's use_cache cannot change a training run (its forward builds no cache); runner
        # generates with a cache whatever it says.
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE)
            code, _, err = run("check", recipe, "--use_cache", "true", "--output_dir", os.path.join(tmp, "o"))
            self.assertEqual(code, 0, err)
            self.assertIn("args.use_cache has no effect: the training forward builds no key/value cache", err)

    def test_readme_recipe_runs(self):
        with open(os.path.join(SOURCE, "README.md")) as f:
            readme = f.read()
        block = readme.split("```lua\n", 1)[1].split("```", 1)[0]
        self.assertLessEqual(len(block.strip().splitlines()), 16, "the README promises a ~15-line recipe")
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "regression.lua"), block)
            code, out, err = run(recipe, "--output_dir", os.path.join(tmp, "o"))
            self.assertEqual(code, 0, err)
            self.assertTrue(os.path.exists(os.path.join(tmp, "o", "model.safetensors")))

    def test_log_level_hides_info_lines(self):
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE)
            code, out, err = run(recipe, "--output_dir", os.path.join(tmp, "o"), "--max_steps", "1")
            self.assertEqual(code, 0, err)
            self.assertIn("***** Running training *****", out)
            code, out, err = run(recipe, "--output_dir", os.path.join(tmp, "o"), "--max_steps", "1", "--log_level", "error")
            self.assertEqual(code, 0, err)
            self.assertNotIn("***** Running training *****", out)

    def test_usage_errors_exit_2(self):
        code, _, err = run("check")
        self.assertEqual(code, 2)
        self.assertIn("missing the recipe file", err)


if __name__ == "__main__":
    unittest.main()
