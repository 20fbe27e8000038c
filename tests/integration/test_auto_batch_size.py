"""auto_find_batch_size on the CPU, through an injected allocation failure
(RUNNER_FAULT_OOM_BATCH_ABOVE=N makes a training micro-batch of more than N examples fail as
the CPU allocator does): the batch is halved until it fits, each retry logged; training then
equals a run given the found size; under mpiexec a failure on one rank makes every rank
halve; resuming starts from the checkpoint's size; without the flag the error is one line. A
size that fits the trial step but not the loop's first step (RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE,
striking after forward) makes one process start the loop over at half the size.
(The GPU variant, a real out-of-memory under a memory cap, is in test_gpu.py.)"""
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, read_safetensors, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

RECIPE = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(1)
return {
  args = { num_train_epochs = 2, per_device_train_batch_size = 64, learning_rate = 0.05, logging_steps = 2,
           save_strategy = "epoch", report_to = "none" },
  datasets = { train = data.synthetic.classification{n = 96, features = 6, classes = 3, seed = 2} },
  model = models.mlp{sizes = {6, 16, 3}, input = "x", dropout = 0.1},
}
"""


def launch(n, *args, env_extra=None):
    env = {**os.environ, **(env_extra or {})}
    cmd = [BINARY, *args] if n == 1 else [MPIEXEC, "-n", str(n), BINARY, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    return p.returncode, p.stdout, p.stderr


def load_json(path):
    with open(path) as f:
        return json.load(f)


class AutoFindBatchSize(unittest.TestCase):
    def setUp(self):
        self.tmp = TempDir().__enter__()
        self.recipe = write(os.path.join(self.tmp, "r.lua"), RECIPE)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def equals_a_run_given(self, found, size):
        """`found`'s weights and log history are those of a run given per_device_train_batch_size = size."""
        given = os.path.join(self.tmp, f"given_{size}")
        code, _, err = launch(1, self.recipe, "--output_dir", given, "--per_device_train_batch_size", str(size))
        self.assertEqual(code, 0, err)
        self.same_weights(found, given)

        def untimed(path):
            history = load_json(os.path.join(path, "trainer_state.json"))["log_history"]
            return [{k: v for k, v in e.items() if "runtime" not in k and "per_second" not in k and "wait" not in k} for e in history]
        self.assertEqual(untimed(found), untimed(given))
        return given

    def same_weights(self, a, b):
        wa = read_safetensors(os.path.join(a, "model.safetensors"))
        wb = read_safetensors(os.path.join(b, "model.safetensors"))
        self.assertEqual(sorted(wa), sorted(wb))
        for k in wa:
            self.assertEqual(wa[k].tobytes(), wb[k].tobytes(), k)

    def test_halves_until_a_step_fits_then_trains_as_if_given_that_size(self):
        found = os.path.join(self.tmp, "found")
        code, out, err = launch(1, self.recipe, "--output_dir", found, "--auto_find_batch_size",
                                env_extra={"RUNNER_FAULT_OOM_BATCH_ABOVE": "10"})
        self.assertEqual(code, 0, err)
        for bs, nxt in ((64, 32), (32, 16), (16, 8)):
            self.assertIn(f"auto_find_batch_size: per_device_train_batch_size = {bs} ran out of memory; retrying with {nxt} "
                          "(DefaultCPUAllocator: can't allocate memory", out)
        self.assertIn("auto_find_batch_size: training with per_device_train_batch_size = 8 (started from 64)", out)
        state = load_json(os.path.join(found, "trainer_state.json"))
        self.assertEqual(state["train_batch_size"], 8)
        self.assertEqual(state["global_step"], 24)  # 96 / 8 × 2 epochs
        self.assertEqual(load_json(os.path.join(found, "training_args.json"))["per_device_train_batch_size"], 8)

        # The probes leave no trace: weights, generators and data order are those of a run given 8.
        given = self.equals_a_run_given(found, 8)

        # Resuming starts from the checkpoint's batch size: no retries.
        os.remove(os.path.join(found, "model.safetensors"))
        code, out, err = launch(1, self.recipe, "--output_dir", found, "--auto_find_batch_size", "--resume_from_checkpoint",
                                os.path.join(found, "checkpoint-12"), env_extra={"RUNNER_FAULT_OOM_BATCH_ABOVE": "10"})
        self.assertEqual(code, 0, err)
        self.assertNotIn("ran out of memory", out)
        self.assertIn("auto_find_batch_size: training with per_device_train_batch_size = 8\n", out)
        self.same_weights(found, given)

    def test_without_it_the_error_is_one_line_naming_the_batch_size(self):
        code, out, err = launch(1, self.recipe, "--output_dir", os.path.join(self.tmp, "o"),
                                env_extra={"RUNNER_FAULT_OOM_BATCH_ABOVE": "10"})
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("runner: error: out of memory during training with per_device_train_batch_size = 64: lower it", err)
        self.assertIn("auto_find_batch_size", err)

    def test_nothing_fits(self):
        code, _, err = launch(1, self.recipe, "--output_dir", os.path.join(self.tmp, "o"), "--auto_find_batch_size",
                              env_extra={"RUNNER_FAULT_OOM_BATCH_ABOVE": "0"})
        self.assertEqual(code, 2, err)
        self.assertIn("even per_device_train_batch_size = 1 runs out of memory", err)

    def test_a_size_the_trial_fits_but_the_first_step_does_not_starts_over_at_half(self):
        # Seen on an H200 under a 2 GB cap: the trial step fitted, the loop's first step did not.
        found = os.path.join(self.tmp, "over")
        code, out, err = launch(1, self.recipe, "--output_dir", found, "--auto_find_batch_size",
                                env_extra={"RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE": "10"})
        self.assertEqual(code, 0, err)
        self.assertIn("auto_find_batch_size: training with per_device_train_batch_size = 64\n", out)  # the trial step fitted
        for bs, nxt in ((64, 32), (32, 16), (16, 8)):
            self.assertIn(f"auto_find_batch_size: per_device_train_batch_size = {bs} ran out of memory in the first training step; "
                          f"starting over with {nxt} (DefaultCPUAllocator: can't allocate memory", out)
        self.assertIn("auto_find_batch_size: training with per_device_train_batch_size = 8 (started from 64)", out)
        state = load_json(os.path.join(found, "trainer_state.json"))
        self.assertEqual((state["train_batch_size"], state["global_step"]), (8, 24))
        # The failed starts leave no trace (the fault strikes after forward: dropout drew from
        # the generator): weights and log history are those of a run given 8.
        self.equals_a_run_given(found, 8)

    def test_a_start_over_reruns_what_train_does_before_its_loop(self):
        # HF reruns its whole inner training loop: on_train_begin and eval_on_start come again
        # (and the first attempt's evaluation leaves no entry), so the history is a given run's.
        with_eval = write(os.path.join(self.tmp, "with_eval.lua"), RECIPE.replace(
            "datasets = { train = data.synthetic.classification{n = 96, features = 6, classes = 3, seed = 2} },",
            "datasets = { train = data.synthetic.classification{n = 96, features = 6, classes = 3, seed = 2},\n"
            "               eval = data.synthetic.classification{n = 24, features = 6, classes = 3, seed = 3} },"))
        self.recipe = with_eval
        found = os.path.join(self.tmp, "eval_over")
        code, out, err = launch(1, with_eval, "--output_dir", found, "--auto_find_batch_size", "--eval_on_start", "true",
                                env_extra={"RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE": "10"})
        self.assertEqual(code, 0, err)
        self.assertIn("starting over with 32", out)
        history = load_json(os.path.join(found, "trainer_state.json"))["log_history"]
        self.assertEqual([e["step"] for e in history if "eval_loss" in e][:1], [0], history)  # eval_on_start, once
        given = os.path.join(self.tmp, "eval_given")
        code, _, err = launch(1, with_eval, "--output_dir", given, "--per_device_train_batch_size", "8", "--eval_on_start", "true")
        self.assertEqual(code, 0, err)

        def untimed(path):
            h = load_json(os.path.join(path, "trainer_state.json"))["log_history"]
            return [{k: v for k, v in e.items() if "runtime" not in k and "per_second" not in k and "wait" not in k} for e in h]
        self.assertEqual(untimed(found), untimed(given))
        self.same_weights(found, given)

    def test_an_out_of_memory_error_through_a_lua_hook_starts_over_too(self):
        # The error reaches the loop wrapped (a Lua error, then HookError) when it strikes in
        # code a recipe's training_step calls: recognised by its message, as the search does.
        hooked = write(os.path.join(self.tmp, "hooked.lua"), RECIPE.replace(
            "model = models.mlp{", "training_step = function(model, inputs, ctx)\n"
            "    local out = model(inputs)\n    ctx.backward(out.loss)\n    return out.loss\n  end,\n  model = models.mlp{"))
        found = os.path.join(self.tmp, "hooked_over")
        code, out, err = launch(1, hooked, "--output_dir", found, "--auto_find_batch_size", env_extra={"RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE": "10"})
        self.assertEqual(code, 0, err)
        self.assertIn("auto_find_batch_size: per_device_train_batch_size = 64 ran out of memory in the first training step; starting over with 32", out)
        self.assertIn("auto_find_batch_size: training with per_device_train_batch_size = 8 (started from 64)", out)
        given = os.path.join(self.tmp, "hooked_given")
        code, _, err = launch(1, hooked, "--output_dir", given, "--per_device_train_batch_size", "8")
        self.assertEqual(code, 0, err)
        self.same_weights(found, given)
        # Without the flag, the wrapped error is still the one out-of-memory line, exit 2.
        code, _, err = launch(1, hooked, "--output_dir", os.path.join(self.tmp, "hooked_plain"), env_extra={"RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE": "10"})
        self.assertEqual(code, 2, err)
        self.assertIn("out of memory during training with per_device_train_batch_size = 64", err)

    def test_no_start_over_without_the_flag_or_on_several_ranks(self):
        code, _, err = launch(1, self.recipe, "--output_dir", os.path.join(self.tmp, "o"),
                              env_extra={"RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE": "10"})
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("out of memory during training with per_device_train_batch_size = 64", err)
        # Two ranks: the others would wait in a collective the failing rank left, so the error stands.
        code, out, err = launch(2, self.recipe, "--output_dir", os.path.join(self.tmp, "o2"), "--auto_find_batch_size",
                                env_extra={"RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE": "10"})
        self.assertEqual(code, 2, err)
        self.assertNotIn("starting over", out)
        self.assertIn("out of memory during training with per_device_train_batch_size = 64", err)

    def test_ranks_agree_when_only_one_runs_out_of_memory(self):
        found = os.path.join(self.tmp, "found2")
        code, out, err = launch(2, self.recipe, "--output_dir", found, "--auto_find_batch_size", "--per_device_train_batch_size", "32",
                                env_extra={"RUNNER_FAULT_OOM_BATCH_ABOVE": "10", "RUNNER_FAULT_OOM_RANK": "1"})
        self.assertEqual(code, 0, err)
        self.assertIn("per_device_train_batch_size = 32 ran out of memory on rank 1; retrying with 16", out)
        self.assertIn("per_device_train_batch_size = 16 ran out of memory on rank 1; retrying with 8", out)
        self.assertIn("training with per_device_train_batch_size = 8 (started from 32)", out)
        self.assertEqual(load_json(os.path.join(found, "trainer_state.json"))["train_batch_size"], 8)
        given = os.path.join(self.tmp, "given2")
        code, _, err = launch(2, self.recipe, "--output_dir", given, "--per_device_train_batch_size", "8")
        self.assertEqual(code, 0, err)
        self.same_weights(found, given)

    def test_refused_where_backward_runs_collectives(self):
        code, _, err = launch(2, self.recipe, "--output_dir", os.path.join(self.tmp, "z3"), "--auto_find_batch_size",
                              "--deepspeed", '{"zero_optimization": {"stage": 3}}')
        self.assertEqual(code, 2, err)
        self.assertIn("args.auto_find_batch_size: not available with ZeRO-2/3 or FSDP sharding over several ranks", err)


if __name__ == "__main__":
    unittest.main()
