"""gradient_checkpointing (docs/training.md): the same losses and weights as without it, and
a lower peak resident memory (ru_maxrss of the runner process), on a GPT whose activations
dominate its memory. The distributed equivalence is in test_distributed.py."""
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, read_safetensors, write  # noqa: E402

import numpy as np  # noqa: E402

RECIPE = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(0, 64, {96, 256})
return {
  args = { max_steps = 3, per_device_train_batch_size = 32, learning_rate = 1e-3, logging_steps = 1, save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.gpt{ vocab_size = 64, block_size = 256, n_layer = 6, n_head = 4, n_embd = 64, dropout = 0.1 },
}
"""


class GradientCheckpointing(unittest.TestCase):
    def setUp(self):
        self.tmp = TempDir().__enter__()
        self.recipe = write(os.path.join(self.tmp, "gpt.lua"), RECIPE)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def train(self, name, *extra):
        out = os.path.join(self.tmp, name)
        pid = os.fork()
        if pid == 0:  # the child becomes runner, so wait4 reports runner's own peak
            fd = os.open(os.path.join(self.tmp, name + ".log"), os.O_WRONLY | os.O_CREAT)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execv(BINARY, [BINARY, self.recipe, "--output_dir", out, *extra])
        _, status, usage = os.wait4(pid, 0)
        with open(os.path.join(self.tmp, name + ".log")) as f:
            log = f.read()
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, log[-3000:])
        with open(os.path.join(out, "trainer_state.json")) as f:
            losses = [e["loss"] for e in json.load(f)["log_history"] if "loss" in e]
        return out, losses, usage.ru_maxrss / 1024, log

    def test_same_losses_and_weights_with_less_peak_memory(self):
        plain, plain_losses, plain_rss, _ = self.train("plain")
        ckpt, ckpt_losses, ckpt_rss, log = self.train("ckpt", "--gradient_checkpointing", "true")
        self.assertIn("Gradient checkpointing: 6 modules recompute their activations in backward", log)
        np.testing.assert_allclose(ckpt_losses, plain_losses, rtol=1e-6)
        a, b = read_safetensors(os.path.join(plain, "model.safetensors")), read_safetensors(os.path.join(ckpt, "model.safetensors"))
        for k in a:
            np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-7, err_msg=k)
        print(f"\npeak RSS: {plain_rss:.0f} MiB without, {ckpt_rss:.0f} MiB with gradient checkpointing")
        # Six blocks' activations (~40 MiB each here) against their inputs only.
        self.assertLess(ckpt_rss, plain_rss - 100, (plain_rss, ckpt_rss))

    def test_bad_settings_are_refused(self):
        p = subprocess.run([BINARY, self.recipe, "--output_dir", os.path.join(self.tmp, "bad"), "--gradient_checkpointing", "true",
                            "--gradient_checkpointing_kwargs", '{"preserve_rng_state": false}'], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("gradient_checkpointing_kwargs: unknown key 'preserve_rng_state'", p.stderr)
        lin = write(os.path.join(self.tmp, "lin.lua"), RECIPE.replace(
            'models.gpt{ vocab_size = 64, block_size = 256, n_layer = 6, n_head = 4, n_embd = 64, dropout = 0.1 }',
            'models.linear{ input = "input_ids", in_features = 256, out_features = 1 }'))
        p = subprocess.run([BINARY, lin, "--output_dir", os.path.join(self.tmp, "lin"), "--gradient_checkpointing", "true"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("args.gradient_checkpointing: this model", p.stderr)


if __name__ == "__main__":
    unittest.main()
