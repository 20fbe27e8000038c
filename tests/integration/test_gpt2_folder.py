"""A GPT-2 trained by runner is a Hugging Face model folder (model.safetensors + config.json, in
the output and every checkpoint): transformers' from_pretrained loads it with the logits
runner computes, and models.from_pretrained reads it back. Exit 77 (skipped) without
transformers."""
import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, run, write  # noqa: E402

try:
    import torch
    import transformers
    from transformers import AutoModelForCausalLM
except ImportError as e:
    print(f"SKIP: transformers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

transformers.logging.set_verbosity_error()

TRAIN = """
local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(0, 64, {32, 16})
return {
  args = { output_dir = "out", max_steps = 6, learning_rate = 3e-3, per_device_train_batch_size = 8,
           save_strategy = "steps", save_steps = 6, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.gpt{ vocab_size = 64, block_size = 16, n_layer = 2, n_head = 2, n_embd = 32, dropout = 0.1 },
}
"""

# The logits of a fixed batch from the folder, as one JSON line.
LOGITS = """
local POSITIONS = nil
local data, models = require "runner.data", require "runner.models"
local model = models.from_pretrained("out")
local batch = { input_ids = torch.tensor{ { 5, 17, 40, 2, 33, 9, 60, 1 } } }
if POSITIONS then batch.position_ids = torch.tensor{ POSITIONS } end
local logits = model(batch).logits
local row = {}
for t = 0, 7 do
  for v = 0, 63 do row[#row + 1] = string.format("%.9g", logits:select(0, 0):select(0, t):select(0, v):item()) end
end
print("LOGITS [" .. table.concat(row, ",") .. "]")
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""


class Gpt2Folder(unittest.TestCase):
    def test_transformers_loads_runner_gpt2_with_the_same_logits(self):
        with TempDir() as d:
            code, out, err = run(write(os.path.join(d, "train.lua"), TRAIN), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            for folder in ("out", "out/checkpoint-6"):
                with open(os.path.join(d, folder, "config.json")) as f:
                    self.assertEqual(json.load(f)["model_type"], "gpt2")
            hf = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out"), dtype=torch.float32).eval()
            self.assertEqual(type(hf).__name__, "GPT2LMHeadModel")
            self.assertAlmostEqual(hf.config.resid_pdrop, 0.1)
            with torch.no_grad():
                expected = hf(torch.tensor([[5, 17, 40, 2, 33, 9, 60, 1]])).logits[0].numpy().reshape(-1)
            write(os.path.join(d, "logits.lua"), LOGITS)
            code, out, err = run("check", "logits.lua", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            line = next(l for l in (out + err).splitlines() if "LOGITS [" in l)
            got = np.array(json.loads(line[line.index("LOGITS [") + 7:]))
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)

            # position_ids index the position embeddings, as HF's (two packed sequences here).
            positions = [0, 1, 2, 3, 0, 1, 2, 3]
            with torch.no_grad():
                packed = hf(torch.tensor([[5, 17, 40, 2, 33, 9, 60, 1]]), position_ids=torch.tensor([positions])).logits[0]
            self.assertGreater(float((packed.reshape(-1) - torch.tensor(expected)).abs().max()), 1e-3)
            write(os.path.join(d, "logits.lua"), LOGITS.replace("local POSITIONS = nil", f"local POSITIONS = {{ {', '.join(map(str, positions))} }}"))
            code, out, err = run("check", "logits.lua", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            line = next(l for l in (out + err).splitlines() if "LOGITS [" in l)
            np.testing.assert_allclose(np.array(json.loads(line[line.index("LOGITS [") + 7:])), packed.numpy().reshape(-1), rtol=1e-5, atol=1e-5)

            # A position past the table (block_size 16): in training, one line naming the field
            # (the Trainer checks the host batch, so a GPU never sees it).
            bad = TRAIN.replace("data.tensors{ input_ids = ids, labels = ids }",
                                "data.tensors{ input_ids = ids, labels = ids, position_ids = torch.arange(0, 16):add(1):expand(32, 16):contiguous() }")
            self.assertNotEqual(bad, TRAIN)
            code, out, err = run(write(os.path.join(d, "bad.lua"), bad), "--output_dir", "bad", cwd=d)
            self.assertEqual(code, 2, err[-2000:])
            self.assertIn("position_ids", err.strip().splitlines()[-1])
            self.assertIn("block_size = 16", err.strip().splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
