"""Acceptance (#4.3): a module scripted in Python trains under the runner with the same loss
curve and final weights as the same module trained in a plain PyTorch loop from the same
initial weights and data order."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, read_safetensors, run, write  # noqa: E402

import torch  # noqa: E402

sys.path.insert(0, os.path.join(SOURCE, "scripts"))
from make_tiny_torchscript import TinyClassifier  # noqa: E402

RECIPE = """local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"
local opt = recipe.options{ module = "", rows = "" }
return {
  args = { max_steps = 12, per_device_train_batch_size = 8, learning_rate = 0.1, optim = "sgd",
           lr_scheduler_type = "constant", max_grad_norm = 0, logging_steps = 1, save_strategy = "no",
           train_sampling_strategy = "sequential" },
  datasets = { train = data.jsonl(opt.rows) },
  model = models.torchscript(opt.module),
}
"""


class TorchScriptTraining(unittest.TestCase):
    def test_loss_curve_and_weights_match_pytorch(self):
        with TempDir() as tmp:
            torch.manual_seed(0)
            module = torch.jit.script(TinyClassifier(4, 3))
            path = os.path.join(tmp, "m.pt")
            module.save(path)
            x = torch.randn(64, 4)
            y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
            with open(os.path.join(tmp, "rows.jsonl"), "w") as f:
                for i in range(64):
                    f.write(json.dumps({"x": [round(v, 6) for v in x[i].tolist()], "labels": int(y[i])}) + "\n")
            x = torch.tensor([[round(v, 6) for v in row] for row in x.tolist()])  # what the jsonl holds

            recipe = write(os.path.join(tmp, "r.lua"), RECIPE)
            out = os.path.join(tmp, "out")
            code, stdout, stderr = run(recipe, "--output_dir", out, "--module", path, "--rows", os.path.join(tmp, "rows.jsonl"))
            self.assertEqual(code, 0, stderr)
            with open(os.path.join(out, "trainer_state.json")) as f:
                runner_losses = [e["loss"] for e in json.load(f)["log_history"] if "loss" in e]

            ref = torch.jit.load(path)
            opt = torch.optim.SGD(ref.parameters(), lr=0.1)
            losses = []
            for step in range(12):
                i = (step % 8) * 8
                loss, _ = ref(x[i:i + 8], y[i:i + 8])
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(round(loss.item(), 4))
            self.assertEqual(len(runner_losses), 12)
            for a, b in zip(runner_losses, losses):
                self.assertAlmostEqual(a, b, delta=1.5e-4)
            self.assertGreater(losses[0] - losses[-1], 0.05, "the reference did not learn: the comparison would be weak")
            weights = read_safetensors(os.path.join(out, "model.safetensors"))
            for name, p in ref.named_parameters():
                got = torch.from_numpy(weights[name].copy())
                self.assertTrue(torch.allclose(got, p.detach(), rtol=1e-5, atol=1e-6), name)


if __name__ == "__main__":
    unittest.main()
