"""cuda_graphs (#25): the whole training step as one static program that a CUDA graph
captures. On a CPU machine RUNNER_TEST_STEP_GRAPH=eager runs that program eagerly instead of
capturing it, so everything around the capture is tested here against the plain step: the
batches copied into fixed input buffers, the host facts naming them, the learning rate and
step count read from device tensors, the losses and gradient norm taken from the program's
outputs. The windows a graph cannot replay (a short last batch, a changed label count) run
eagerly with one line each, and runs that cannot capture at all say why once. The capture and
replay themselves run on a GPU: test_gpu.py, test_cuda_graphs_replay_equals_the_static_step."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, SOURCE, RecipeTest, read_safetensors, write  # noqa: E402

import subprocess  # noqa: E402

HELLO = os.path.join(SOURCE, "recipes", "hello_gpt.lua")
STATIC = {"RUNNER_TEST_STEP_GRAPH": "eager"}

# A tiny GPT on 30 sequences in order: with batch 4 the epoch ends on a batch of 2 (step 8),
# and the second batch of each epoch (steps 2 and 10) has ignored labels, so its label count
# (the loss weights) differs from the captured step's.
GPT = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(5)
local ids = torch.randint(0, 17, {30, 8})
local labels = ids:clone()
labels:narrow(0, 4, 4):narrow(1, 5, 3):fill_(-100)
return {
  args = { max_steps = 12, per_device_train_batch_size = 4, learning_rate = 0.01, logging_steps = 1, save_strategy = "no",
           report_to = "none", lr_scheduler_type = "cosine", warmup_steps = 2, max_grad_norm = 0.5,
           train_sampling_strategy = "sequential" },
  datasets = { train = data.tensors{ input_ids = ids, labels = labels } },
  model = models.gpt{ vocab_size = 17, block_size = 8, n_layer = 1, n_head = 2, n_embd = 16 },
}
"""


def run(args, env=None):
    p = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=600, env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


def history(out):
    with open(os.path.join(out, "trainer_state.json")) as f:
        return [{k: v for k, v in e.items() if k in ("loss", "grad_norm", "learning_rate", "step")} for e in json.load(f)["log_history"]]


class StepGraph(RecipeTest):
    RECIPE = GPT

    def assert_same_run(self, a, b):
        wa, wb = read_safetensors(os.path.join(a, "model.safetensors")), read_safetensors(os.path.join(b, "model.safetensors"))
        self.assertEqual(sorted(wa), sorted(wb))
        for k in wa:
            self.assertTrue((wa[k] == wb[k]).all(), f"{k} differs")
        self.assertEqual(history(a), history(b))

    def test_the_static_step_equals_the_plain_step(self):
        # hello_gpt: dropout (the RNG), a cosine schedule with warm-up, clipping, fused AdamW,
        # the fused linear + cross-entropy; with and without gradient accumulation.
        for ga in ("1", "2"):
            with self.subTest(gradient_accumulation_steps=ga):
                common = ["--steps", "16", "--batch_size", "8", "--sample_chars", "5", "--eval_strategy", "no", "--logging_steps", "1",
                          "--gradient_accumulation_steps", ga, "--warmup_steps", "3"]
                plain, static = os.path.join(self.tmp, "plain" + ga), os.path.join(self.tmp, "static" + ga)
                code, out, err = run([HELLO, "--output_dir", plain, *common])
                self.assertEqual(code, 0, err)
                code, out, err = run([HELLO, "--output_dir", static, "--cuda_graphs", "true", *common], env=STATIC)
                self.assertEqual(code, 0, err)
                self.assertIn("cuda_graphs: 16 steps ran the static step program eagerly (RUNNER_TEST_STEP_GRAPH), 0 ran eagerly", out)
                self.assert_same_run(plain, static)

    def test_windows_a_graph_cannot_replay_run_eagerly_and_say_why(self):
        plain, static = os.path.join(self.tmp, "gpt_plain"), os.path.join(self.tmp, "gpt_static")
        code, _, err = run([self.recipe, "--output_dir", plain])
        self.assertEqual(code, 0, err)
        code, out, err = run([self.recipe, "--output_dir", static, "--cuda_graphs", "true"], env=STATIC)
        self.assertEqual(code, 0, err)
        self.assertIn("cuda_graphs: step 2 runs eagerly: its label count differs from the captured step's, and the loss weights are part of "
                      "the graph (num_items_in_batch 16, captured 28; said once)", out)
        self.assertIn("cuda_graphs: step 8 runs eagerly: its batch fields, shapes, dtypes or masks differ from the captured step's "
                      "(micro-batch 1; said once)", out)
        self.assertEqual(out.count("runs eagerly:"), 2, out)
        self.assertIn("cuda_graphs: 9 steps ran the static step program eagerly (RUNNER_TEST_STEP_GRAPH), 3 ran eagerly (1: its batch", out)
        self.assertIn("; 2: its label count", out)
        self.assert_same_run(plain, static)
        # A window of another length: gradient accumulation over the short end of the epoch.
        plain, static = os.path.join(self.tmp, "gpt_ga_plain"), os.path.join(self.tmp, "gpt_ga_static")
        args = ["--gradient_accumulation_steps", "3", "--max_steps", "5"]
        code, _, err = run([self.recipe, "--output_dir", plain, *args])
        self.assertEqual(code, 0, err)
        code, out, err = run([self.recipe, "--output_dir", static, "--cuda_graphs", "true", *args], env=STATIC)
        self.assertEqual(code, 0, err)
        self.assertIn("cuda_graphs: step 3 runs eagerly: its window has another number of micro-batches than the captured step "
                      "(2, captured 3; said once)", out)
        self.assert_same_run(plain, static)

    def test_runs_that_cannot_capture_say_why_once_and_train(self):
        hooks = write(os.path.join(self.tmp, "hooks.lua"), GPT.replace(
            "  model = models.gpt", "  compute_loss = function(model, inputs) return model(inputs).loss end,\n  model = models.gpt"))
        callback = write(os.path.join(self.tmp, "callback.lua"), GPT.replace(
            "  model = models.gpt", "  callbacks = { { name = \"Peek\", on_optimizer_step = function() end } },\n  model = models.gpt"))
        lua_forward = write(os.path.join(self.tmp, "lua_forward.lua"), GPT.replace(
            "model = models.gpt{ vocab_size = 17, block_size = 8, n_layer = 1, n_head = 2, n_embd = 16 },",
            "model = nn.Module{ gpt = models.gpt{ vocab_size = 17, block_size = 8, n_layer = 1, n_head = 2, n_embd = 16 },\n"
            "                   forward = function(self, batch) return self.gpt(batch) end },"))
        cases = [
            ("cpu", self.recipe, [], {}, "the model trains on the CPU, and CUDA graphs need a GPU"),
            ("optim", self.recipe, ["--optim", "adamw_torch"], STATIC, 'optim = "adamw_torch" takes its learning rate from the host'),
            ("policy", self.recipe, ["--nonfinite_policy", "skip"], STATIC, 'nonfinite_policy = "skip" reads the gradient norm on the host'),
            ("determinism", self.recipe, ["--full_determinism", "true"], STATIC, "full_determinism reseeds every micro-step"),
            ("checkpointing", self.recipe, ["--gradient_checkpointing", "true"], STATIC, "gradient_checkpointing saves and restores the dropout"),
            ("hooks", hooks, [], STATIC, "the recipe's compute_loss ("),
            ("callback", callback, [], STATIC, "callback Peek handles on_pre_optimizer_step / on_optimizer_step"),
            ("lua_forward", lua_forward, [], STATIC, "the model's Module has a forward written in Lua"),
        ]
        for name, recipe, extra, env, why in cases:
            with self.subTest(name):
                code, out, err = run([recipe, "--output_dir", os.path.join(self.tmp, "why_" + name), "--cuda_graphs", "true", *extra], env=env)
                self.assertEqual(code, 0, err)
                lines = [line for line in out.splitlines() if "cuda_graphs" in line]
                self.assertEqual(len(lines), 1, out)
                self.assertIn("cuda_graphs: every step runs eagerly: " + why, lines[0])


if __name__ == "__main__":
    unittest.main()
