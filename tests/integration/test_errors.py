"""Acceptance #2.5: bad input → one line `runner: error: <file>:<line>: <message>`, exit 2,
and nothing already in output_dir is changed."""
import hashlib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, run, write  # noqa: E402

GOOD = """local data = require "runner.data"
return {
  args = { max_steps = 3, per_device_train_batch_size = 4, learning_rate = 0.1, save_strategy = "no" },
  datasets = { train = data.tensors{ x = torch.randn(16, 2), labels = torch.randn(16, 1) } },
  model = nn.Linear(2, 1),
  compute_loss = function(model, inputs, ctx)
    return F.mse_loss(model(inputs.x), inputs.labels)
  end,
}
"""


def digest(folder):
    h = {}
    for root, _, files in os.walk(folder):
        for f in files:
            if f == ".runner.lock":  # the lock of the output folder (outputs.md) holds the last run's pid
                continue
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                h[os.path.relpath(p, folder)] = hashlib.sha256(fh.read()).hexdigest()
    return h


class BadInput(unittest.TestCase):
    def check(self, recipe_text, expected, extra_args=(), replace=None):
        with TempDir() as tmp:
            out = os.path.join(tmp, "out")
            good = write(os.path.join(tmp, "good.lua"), GOOD)
            code, _, err = run(good, "--output_dir", out)
            self.assertEqual(code, 0, err)
            before = digest(out)
            bad = write(os.path.join(tmp, "bad.lua"), recipe_text)
            code, stdout, stderr = run(bad, "--output_dir", out, *extra_args)
            self.assertEqual(code, 2, stderr)
            lines = stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, stderr)
            self.assertTrue(lines[0].startswith("runner: error: "), lines[0])
            self.assertIn(expected.replace("BAD", bad), lines[0])
            self.assertEqual(digest(out), before, "output_dir changed")

    def test_unknown_argument_in_recipe_suggests_closest(self):
        text = GOOD.replace("learning_rate = 0.1", "lerning_rate = 0.1")
        self.check(text, "BAD:3: args.lerning_rate: unknown argument; did you mean 'learning_rate'?")

    def test_unknown_argument_on_command_line(self):
        self.check(GOOD, "command line: --lerning_rate: unknown argument; did you mean 'learning_rate'?", ("--lerning_rate", "0.1"))

    def test_fp16_without_a_gpu_names_the_argument(self):
        if "GPU 0:" in run("--version")[1]:
            self.skipTest("this machine has a GPU: fp16 is valid here")
        self.check(GOOD, "command line: args.fp16: fp16 mixed precision needs a CUDA device", ("--fp16",))
        self.check(GOOD.replace("save_strategy = \"no\"", "save_strategy = \"no\", fp16 = true"),
                   "BAD:3: args.fp16: fp16 mixed precision needs a CUDA device")

    def test_a_local_rank_that_disagrees_with_the_process_is_refused(self):
        # Launchers of torch set local_rank; runner reads ranks from MPI: a different value is an error.
        self.check(GOOD, "args.local_rank = 3, but this process's local rank is 0 (MPI or LOCAL_RANK decide it)", ("--local_rank", "3"))

    def test_nccl_without_a_gpu_names_the_argument(self):
        if "GPU 0:" in run("--version")[1]:
            self.skipTest("this machine has a GPU")
        self.check(GOOD, "args.ddp_backend: \"nccl\" needs GPU tensors", ("--ddp_backend", "nccl"))

    def test_a_recipe_without_datasets_is_an_error(self):
        text = GOOD.replace("  datasets = { train = data.tensors{ x = torch.randn(16, 2), labels = torch.randn(16, 1) } },\n", "")
        self.check(text, "the recipe has no datasets: nothing to train, evaluate or predict")

    def test_output_dir_that_is_a_file_is_found_before_training(self):
        with TempDir() as tmp:
            good = write(os.path.join(tmp, "good.lua"), GOOD)
            path = write(os.path.join(tmp, "taken"), "not a folder")
            for command in ((good,), ("check", good)):
                code, _, err = run(*command, "--output_dir", path)
                self.assertEqual(code, 2, err)
                self.assertEqual(err.strip().splitlines(), [f'runner: error: command line: args.output_dir: "{path}" is a file, not a folder'])
            with open(path) as f:
                self.assertEqual(f.read(), "not a folder")

    def test_wrong_type(self):
        text = GOOD.replace("max_steps = 3", "max_steps = 'three'")
        self.check(text, "BAD:3: args.max_steps: expected an integer, got \"three\"")

    def test_wrong_type_on_command_line(self):
        self.check(GOOD, "command line: --max_steps: expected a number, got \"many\"", ("--max_steps", "many"))

    def test_lua_syntax_error(self):
        text = GOOD.replace("model = nn.Linear(2, 1),", "model = nn.Linear(2, 1)) ,")
        self.check(text, "BAD:5: '}' expected")

    def test_runtime_error_inside_compute_loss(self):
        text = GOOD.replace("inputs.labels)", "inputs.lables)")
        self.check(text, "BAD:7: expected a tensor, got nil")

    def test_error_raised_by_the_hook(self):
        text = GOOD.replace("    return F.mse_loss", "    error('custom failure')\n    return F.mse_loss")
        self.check(text, "BAD:7: custom failure")

    def test_ids_outside_the_models_tables_are_one_line_naming_the_field(self):
        # On a GPU such an id is a device-side assert that poisons the CUDA context; runner
        # checks the host batch before the copy, on every device, in training and evaluation.
        gpt = """local data, models = require "runner.data", require "runner.models"
local good = torch.randint(0, 16, {8, 6})
local ids = good:clone()
ids:select(0, 5):narrow(0, 2, 1):fill_(IDS)
local labels = ids:clone()
labels:select(0, 0):narrow(0, 0, 1):fill_(LABEL)
return {
  args = { max_steps = 2, per_device_train_batch_size = 4, save_strategy = "no", eval_strategy = "steps", eval_steps = 1 },
  datasets = { train = data.tensors{ input_ids = good, labels = good },
               eval = data.tensors{ input_ids = ids, labels = labels } },
  model = models.gpt{ vocab_size = 16, block_size = 8, n_layer = 1, n_head = 2, n_embd = 8 },
}
"""
        self.check(gpt.replace("IDS", "16").replace("LABEL", "-100"),
                   "the batch field input_ids holds 16, outside GPT2LMHeadModel's range [0, 16) set by vocab_size = 16")
        self.check(gpt.replace("IDS", "3").replace("LABEL", "-7"),
                   "the batch field labels holds -7, outside GPT2LMHeadModel's range [0, 16) (or -100, ignored) set by vocab_size = 16")
        mlp = """local data, models = require "runner.data", require "runner.models"
local labels = torch.tensor({0, 1, 2, 3, 1, 0, 2, 1})
return {
  args = { max_steps = 2, per_device_train_batch_size = 4, save_strategy = "no" },
  datasets = { train = data.tensors{ x = torch.randn(8, 4), labels = labels } },
  model = models.mlp{ sizes = {4, 8, 3} },
}
"""
        self.check(mlp, "the batch field labels holds 3, outside MLP's range [0, 3) (or -100, ignored) set by sizes[3] = 3 classes")

    def test_errors_without_a_position_get_one(self):
        # error() with a table carries no position; an ATen error names neither model nor field;
        # a loss of several values is named as such (they were "error object is not a string",
        # "mat1 and mat2 must have the same dtype" and "the loss must be a scalar tensor").
        self.check(GOOD.replace('local data = require "runner.data"', 'local data = require "runner.data"\nerror({ code = 1 })'),
                   "BAD:2: error() raised a table, not a message")
        no_loss = GOOD[:GOOD.index("  compute_loss")] + "}\n"
        self.check(no_loss.replace("x = torch.randn(16, 2)", "x = torch.randn(16, 2):double()"),
                   "the model (Linear) on batch field 'x' (Double [4, 2]): mat1 and mat2 must have the same dtype")
        self.check(GOOD.replace("return F.mse_loss(model(inputs.x), inputs.labels)", "return model(inputs.x)"),
                   "the training loss must be one value (a scalar tensor), got shape [4, 1] from compute_loss, training_step or the model")

    def test_missing_data_file(self):
        text = GOOD.replace("local data = require \"runner.data\"",
                            "local data = require \"runner.data\"\nlocal rows = data.jsonl('no_such_file.jsonl')")
        self.check(text, "BAD:2: no_such_file.jsonl: cannot open: No such file or directory")

    def test_invalid_combination_points_at_the_key(self):
        text = GOOD.replace("max_steps = 3,", "max_steps = 3, logging_steps = 2.5,")
        self.check(text, "BAD:3: args.logging_steps: must be an integer if bigger than 1")

    def test_numbers_out_of_range_are_refused(self):
        # Casting inf or 1e30 to an integer is undefined behaviour; NaN passes every "< 0" check.
        self.check(GOOD, "command line: args.max_steps: inf is out of range", ("--max_steps", "inf"))
        self.check(GOOD, "command line: args.max_steps: 1e+30 is out of range", ("--max_steps", "1e30"))
        self.check(GOOD, "command line: args.learning_rate: expected a finite number, got nan", ("--learning_rate", "nan"))
        self.check(GOOD.replace("max_steps = 3", "max_steps = math.huge"), "BAD:3: args.max_steps: inf is out of range")
        self.check(GOOD.replace("model = nn.Linear(2, 1),", "model = nn.Linear(2, math.huge),"),
                   "BAD:5: nn.Linear out_features: expected an integer, got math.huge")
        self.check(GOOD.replace("model = nn.Linear(2, 1),", "model = require('runner.models').gpt{vocab_size = 8, block_size = 4, "
                                "n_layer = 1, n_head = 1, n_embd = 1e30},"),
                   "BAD:5: models.gpt: option 'n_embd' must be an integer, got 1e+30")
        self.check(GOOD, "command line: args.ddp_timeout: must be > 0 seconds", ("--ddp_timeout", "0"))
        # finite, but beyond float32: the step's kernels would overflow (an "internal error", exit 1)
        self.check(GOOD, "command line: args.max_grad_norm: 1e+300 is beyond float32's range", ("--max_grad_norm", "1e300"))
        self.check(GOOD, "args.optim_args.momentum: must be a finite number, got nan", ("--optim", "sgd", "--optim_args", "momentum=nan"))

    def test_label_smoothing_that_a_recipe_loss_makes_moot_is_said(self):
        """HF smooths only its own default loss: with the recipe's compute_loss the setting
        changes nothing, which a warning says instead of ignoring it silently."""
        with TempDir() as tmp:
            good = write(os.path.join(tmp, "good.lua"), GOOD)
            code, out, err = run(good, "--output_dir", os.path.join(tmp, "out"), "--label_smoothing_factor", "0.1")
            self.assertEqual(code, 0, err)
            self.assertEqual((out + err).count("label_smoothing_factor = 0.1 has no effect: the recipe's compute_loss computes the loss"), 1, err)
            code, out, err = run(good, "--output_dir", os.path.join(tmp, "out2"))
            self.assertNotIn("label_smoothing_factor", out + err)

    def test_a_recipe_key_is_not_read_as_a_regular_expression(self):
        self.check(GOOD.replace("  model = ", '  ["mod(el"] = 1,\n  model = '), "unknown recipe field 'mod(el'")

    def test_an_invalid_parameter_group_pattern_names_the_group(self):
        text = GOOD.replace("  model = ", "  create_optimizer = function(model, args) return { type = \"adamw_torch\", lr = 0.1, "
                            "groups = { { match = \"(bias\" } } } end,\n  model = ")
        self.check(text, "BAD:5: create_optimizer: group match \"(bias\" is not a valid regular expression")

    def test_deepspeed_values_of_the_wrong_type_fail_before_training(self):
        ds = '{"zero_optimization": {"stage": 0}, "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": "ten"}}}'
        self.check(GOOD, "args.deepspeed: scheduler.params.warmup_num_steps: expected a non-negative number, got \"ten\"",
                   ("--deepspeed", ds))
        ds = '{"optimizer": {"type": 7}}'
        self.check(GOOD, "args.deepspeed: a value has the wrong type", ("--deepspeed", ds))
        # 1e3 is a number of steps, as DeepSpeed reads it.
        with TempDir() as tmp:
            good = write(os.path.join(tmp, "good.lua"), GOOD)
            ds = '{"scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 1e3}}}'
            code, _, err = run(good, "--output_dir", os.path.join(tmp, "o"), "--deepspeed", ds)
            self.assertEqual(code, 0, err)

    def test_recipes_cannot_run_programs_or_load_native_code(self):
        # Always true for recipes (shared files from others): each attempt is a clear error at its line.
        for code, expected in (('os.execute("touch /tmp/pwned")', "BAD:2: os.execute is not available to recipes"),
                               ('io.popen("ls")', "BAD:2: 'io' is not available to recipes"),
                               ('package.loadlib("libc.so.6", "system")', "BAD:2: 'package' is not available to recipes"),
                               ('debug.getinfo(1)', "BAD:2: 'debug' is not available to recipes"),
                               ('require("ffi")', "BAD:2: module 'ffi' is not available to recipes"),
                               ('loadstring("return 1")', "BAD:2: 'loadstring' is not available to recipes")):
            with self.subTest(code=code):
                self.check(GOOD.replace('local data = require "runner.data"', 'local data = require "runner.data"\n' + code), expected)

    def test_sandbox_keeps_file_access_inside_the_recipe_and_output_folders(self):
        reader = 'local data = require "runner.data"\nlocal rows = data.jsonl("/etc/hostname.jsonl")'
        self.check(GOOD.replace('local data = require "runner.data"', reader),
                   'BAD:2: data.jsonl: "/etc/hostname.jsonl" is outside the folders a sandboxed recipe may use', ("--sandbox",))
        # The recipe-level opt-in: a first line "-- runner: sandbox".
        self.check("-- runner: sandbox\n" + GOOD.replace('local data = require "runner.data"', reader),
                   'BAD:3: data.jsonl: "/etc/hostname.jsonl" is outside the folders a sandboxed recipe may use')
        with TempDir() as tmp:
            rows = write(os.path.join(tmp, "rows.jsonl"), "".join(f'{{"x": [{i}.5, 1.5], "labels": [0.5]}}\n' for i in range(16)))
            text = GOOD.replace("data.tensors{ x = torch.randn(16, 2), labels = torch.randn(16, 1) }", f'data.jsonl("{rows}")')
            ok = write(os.path.join(tmp, "ok.lua"), text)
            code, _, err = run(ok, "--output_dir", os.path.join(tmp, "out"), "--sandbox")
            self.assertEqual(code, 0, err)  # a file in the recipe's folder is fine
            elsewhere = os.path.join(tmp, "elsewhere")
            os.makedirs(elsewhere)
            moved = write(os.path.join(elsewhere, "ok.lua"), text)
            code, _, err = run(moved, "--output_dir", os.path.join(tmp, "out2"), "--sandbox")
            self.assertEqual(code, 2, err)
            code, _, err = run(moved, "--output_dir", os.path.join(tmp, "out3"), "--sandbox", "--allow_path", tmp)
            self.assertEqual(code, 0, err)

    def test_missing_recipe(self):
        code, _, stderr = run("/no/such/recipe.lua")
        self.assertEqual(code, 2)
        self.assertEqual(stderr.strip(), "runner: error: /no/such/recipe.lua: cannot read the recipe: No such file or directory")


if __name__ == "__main__":
    unittest.main()
