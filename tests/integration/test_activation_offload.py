"""activation_offload (docs/training.md, "Activation offload"): with gradient_checkpointing,
each checkpointed block's input waits for backward in host memory. On the CPU that is where it
already is, so the test switch RUNNER_TEST_ACTIVATION_OFFLOAD=copy makes runner copy it anyway
(to a fresh CPU tensor and back): these runs take the offload path, and end with the same
weights and log_history, bit for bit, as gradient checkpointing alone, for a Llama, a GPT with
dropout and a LoRA model (frozen embeddings). The log's byte count shows which inputs went: the
blocks' hidden states only, not the cos/sin every Llama layer shares. activation_offload without
gradient_checkpointing exits 2 with one line. The GPU case (peak memory) is in test_gpu.py."""
import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, RecipeTest, read_safetensors, run, write  # noqa: E402

import numpy as np  # noqa: E402

COPY = {"RUNNER_TEST_ACTIVATION_OFFLOAD": "copy"}
B, T = 4, 16  # per-device batch and sequence length of every recipe here

DATA = f"""local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(0, 64, {{32, {T}}})
local train = data.tensors{{ input_ids = ids, labels = ids }}
local args = {{ max_steps = 3, per_device_train_batch_size = {B}, gradient_accumulation_steps = 2, learning_rate = 1e-2,
               logging_steps = 1, save_strategy = "no", report_to = "none" }}
"""
LLAMA = "models.llama{ vocab_size = 64, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 3, " \
        "num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64, attention_dropout = 0.1 }"
RECIPES = {
    "llama": DATA + f"return {{ args = args, datasets = {{ train = train }}, model = {LLAMA} }}\n",
    "gpt": DATA + "return { args = args, datasets = { train = train },\n"
                  "  model = models.gpt{ vocab_size = 64, block_size = 16, n_layer = 3, n_head = 2, n_embd = 32, dropout = 0.1 } }\n",
    "gpt_init": DATA + "return { args = args, datasets = { train = train }, model_init = function()\n"
                       "  return models.gpt{ vocab_size = 64, block_size = 16, n_layer = 3, n_head = 2, n_embd = 32, dropout = 0.1 } end }\n",
    "lora": DATA + f"local model = models.lora({LLAMA}, {{ r = 4, alpha = 8, dropout = 0.1, target_modules = {{ \"q_proj\", \"v_proj\" }} }})\n"
                   "return { args = args, datasets = { train = train }, model = model }\n",
}
# Bytes the first step (2 micro-batches) puts on the host: each block's fp32 (B, T, 32) input.
# The LoRA model's first block gets the frozen embeddings, which need no gradient: it keeps its input.
BLOCK_INPUT = B * T * 32 * 4
STEP_1_BYTES = {"llama": 2 * 3 * BLOCK_INPUT, "gpt": 2 * 3 * BLOCK_INPUT, "lora": 2 * 2 * BLOCK_INPUT}


def comparable(history):
    """log_history without the wall-clock entries."""
    return [{k: v for k, v in e.items() if not k.endswith(("_runtime", "_per_second", "_seconds"))} for e in history]


class ActivationOffload(RecipeTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.recipes = {name: write(os.path.join(cls.tmp, name + ".lua"), text) for name, text in RECIPES.items()}

    def train(self, model, name, *extra, env=None):
        out = os.path.join(self.tmp, name)
        p = subprocess.run([BINARY, self.recipes[model], "--output_dir", out, "--gradient_checkpointing", "true", *extra],
                           env=dict(os.environ, **(env or {})), capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        with open(os.path.join(out, "trainer_state.json")) as f:
            history = json.load(f)["log_history"]
        weights = "adapter_model.safetensors" if model == "lora" else "model.safetensors"
        return comparable(history), read_safetensors(os.path.join(out, weights)), p.stdout + p.stderr

    def check_same_bits(self, model):
        history, weights, _ = self.train(model, model + "_ckpt")
        offload_history, offload_weights, log = self.train(model, model + "_offload", "--activation_offload", "true", env=COPY)
        self.assertIn("activation_offload: RUNNER_TEST_ACTIVATION_OFFLOAD=copy: the inputs of 3 checkpointed blocks are copied", log)
        moved = re.search(r"activation_offload: step 1 moved (\d+) bytes \([0-9.]+ MiB\) of block inputs to host memory", log)
        self.assertIsNotNone(moved, log)
        self.assertEqual(int(moved.group(1)), STEP_1_BYTES[model])
        self.assertEqual(offload_history, history)
        self.assertEqual(sorted(offload_weights), sorted(weights))
        for k in weights:
            np.testing.assert_array_equal(offload_weights[k], weights[k], err_msg=k)

    def test_llama_trains_bit_identically(self):
        self.check_same_bits("llama")

    def test_gpt_with_dropout_trains_bit_identically(self):
        self.check_same_bits("gpt")

    def test_lora_with_frozen_embeddings_trains_bit_identically(self):
        self.check_same_bits("lora")

    def test_a_model_from_model_init_is_checkpointed_and_offloaded_too(self):
        # model_init's fresh model replaces the recipe's at train(): checkpointing (and offload)
        # must reach it. Before, it silently trained without either.
        history, weights, log = self.train("gpt_init", "gpt_init_ckpt")
        self.assertIn("Gradient checkpointing: 3 modules recompute their activations in backward", log)
        init_history, init_weights, log = self.train("gpt_init", "gpt_init_offload", "--activation_offload", "true", env=COPY)
        self.assertIn("Gradient checkpointing: 3 modules recompute their activations in backward", log)
        moved = re.search(r"activation_offload: step 1 moved (\d+) bytes", log)
        self.assertIsNotNone(moved, log)
        self.assertEqual(int(moved.group(1)), STEP_1_BYTES["gpt"])
        self.assertEqual(init_history, history)
        for k in weights:
            np.testing.assert_array_equal(init_weights[k], weights[k], err_msg=k)

    def test_the_cpu_keeps_its_activations_without_the_test_switch(self):
        _, _, log = self.train("gpt", "gpt_cpu", "--activation_offload", "true")
        self.assertIn("activation_offload has no effect on the CPU", log)
        self.assertIn("activation_offload: step 1 moved 0 bytes (0.0 MiB)", log)

    def test_offload_without_gradient_checkpointing_is_refused(self):
        for command in ("run", "check"):
            args = [self.recipes["gpt"], "--output_dir", os.path.join(self.tmp, "refused"), "--activation_offload", "true"]
            code, _, err = run(*(["check"] if command == "check" else []), *args)
            self.assertEqual(code, 2, err)
            lines = err.strip().splitlines()
            self.assertEqual(len(lines), 1, err)
            self.assertEqual(lines[0], "runner: error: command line: args.activation_offload: needs gradient_checkpointing = true "
                                       "(it moves the inputs checkpointed blocks keep for backward)")


if __name__ == "__main__":
    unittest.main()
