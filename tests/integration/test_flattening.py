"""Padding-free batches, as transformers' DataCollatorWithFlattening makes them: data.flattening_collator
lays a batch out exactly as transformers does (input_ids, labels with each example's first token
set to the separator, position_ids restarting per example), a Llama-family folder gives on it
the loss transformers gives each example on its own (its flash-attention path), which is also
the loss of the same examples padded; a recipe trains on it;
and a model whose attention spans the whole row (models.gpt) is refused with one line.
Exit 77 (skipped) without transformers."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, run, write  # noqa: E402

try:
    import torch
    import transformers
    from transformers import DataCollatorWithFlattening
except ImportError as e:
    print(f"SKIP: transformers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

transformers.logging.set_verbosity_error()

# Five examples of different lengths with labels (prompts masked to -100), and the same
# without: transformers reads labels only when the first example has them.
EXAMPLES = [
    {"input_ids": [5, 17, 40, 9, 33, 3], "labels": [-100, -100, 40, 9, 33, 3]},
    {"input_ids": [12, 8], "labels": [-100, 8]},
    {"input_ids": [61, 7, 7, 30, 2, 45, 19, 4, 22], "labels": [61, 7, 7, 30, 2, 45, 19, 4, 22]},
    {"input_ids": [14, 50, 26, 9], "labels": [-100, -100, 26, 9]},
    {"input_ids": [33], "labels": [33]},
]
PLAIN = [{"input_ids": e["input_ids"]} for e in EXAMPLES]


def lua_examples(examples):
    rows = []
    for e in examples:
        fields = [f"input_ids = torch.tensor{{ {', '.join(map(str, e['input_ids']))} }}"]
        if "labels" in e:
            fields.append(f"labels = torch.tensor{{ {', '.join(map(str, e['labels']))} }}")
        rows.append("{ " + ", ".join(fields) + " }")
    return "{ " + ", ".join(rows) + " }"


LOSSES = """
local data, models = require "runner.data", require "runner.models"
local examples = EXAMPLES
local flat = data.flattening_collator{}(examples)
local function list(t) return "[" .. table.concat(t:reshape{ -1 }:tolist(), ",") .. "]" end
for _, k in ipairs{ "input_ids", "labels", "position_ids" } do print("FLAT " .. k .. " " .. list(flat[k])) end
local plain = data.flattening_collator{ separator_id = -7 }(PLAIN_EXAMPLES)
for _, k in ipairs{ "input_ids", "labels", "position_ids" } do print("PLAIN " .. k .. " " .. list(plain[k])) end
local m = models.from_pretrained("llama")
print("LOSS flat " .. string.format("%.9g", m(flat).loss:item()))
local padded = data.lm_collator{}(examples)
print("LOSS padded " .. string.format("%.9g", m(padded).loss:item()))
return {}
"""

TRAIN = """
local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local rows = {}
for i = 1, 64 do
  local n, row = 4 + i % 9, {}
  for j = 1, n do row[j] = (i * 3 + j * 5) % 60 + 2 end
  rows[i] = { input_ids = row }
end
return {
  args = { output_dir = "out", max_steps = 24, learning_rate = 3e-3, per_device_train_batch_size = 8, logging_steps = 1,
           save_strategy = "no", report_to = "none" },
  datasets = { train = data.table(rows) },
  data_collator = data.flattening_collator{},
  model = MODEL,
}
"""


class Flattening(unittest.TestCase):
    def test_layout_and_loss_equal_transformers(self):
        with TempDir() as d:
            torch.manual_seed(0)
            config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                                              num_key_value_heads=2, max_position_embeddings=64)
            hf = transformers.LlamaForCausalLM(config).eval()
            hf.save_pretrained(os.path.join(d, "llama"))
            code, out, err = run("check", write(os.path.join(d, "losses.lua"), LOSSES.replace("PLAIN_EXAMPLES", lua_examples(PLAIN)).replace("EXAMPLES", lua_examples(EXAMPLES))), cwd=d)
            self.assertIn("LOSS padded", out + err, err[-3000:])
            text = out + err
            want = DataCollatorWithFlattening(return_tensors="pt")([dict(e) for e in EXAMPLES])
            plain = DataCollatorWithFlattening(return_tensors="pt", separator_id=-7)([dict(e) for e in PLAIN])
            for k in ("input_ids", "labels", "position_ids"):
                got = json.loads(re.search(rf"FLAT {k} (.*)$", text, re.M).group(1))
                self.assertEqual(got, want[k].reshape(-1).tolist(), k)
                got = json.loads(re.search(rf"PLAIN {k} (.*)$", text, re.M).group(1))
                self.assertEqual(got, plain[k].reshape(-1).tolist(), k)
            # What flash-attention's varlen path gives transformers on this batch: each example on
            # its own (transformers' eager and SDPA attention let a flattened row attend across
            # examples), the mean over every labelled token.
            total, count = 0.0, 0
            with torch.no_grad():
                for e in EXAMPLES:
                    logits = hf(input_ids=torch.tensor([e["input_ids"]])).logits[0, :-1]
                    target = torch.tensor(e["labels"][1:])
                    total += float(torch.nn.functional.cross_entropy(logits, target, ignore_index=-100, reduction="sum"))
                    count += int((target != -100).sum())
            self.assertAlmostEqual(float(re.search(r"LOSS flat (\S+)", text).group(1)), total / count, places=5)
            # The same examples padded, one per row: the same tokens are predicted, so the same mean loss.
            self.assertAlmostEqual(float(re.search(r"LOSS padded (\S+)", text).group(1)), total / count, places=5)

    def test_a_recipe_trains_on_it_and_gpt_is_refused(self):
        with TempDir() as d:
            llama = ('models.llama{ vocab_size = 64, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2, '
                     'num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64 }')
            code, out, err = run(write(os.path.join(d, "llama.lua"), TRAIN.replace("MODEL", llama)), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "trainer_state.json")) as f:
                losses = [e["loss"] for e in json.load(f)["log_history"] if "loss" in e]
            self.assertEqual(len(losses), 24)
            self.assertLess(sum(losses[-4:]) / 4, 0.8 * sum(losses[:4]) / 4)
            gpt = "models.gpt{ vocab_size = 64, block_size = 64, n_layer = 1, n_head = 2, n_embd = 16 }"
            code, out, err = run(write(os.path.join(d, "gpt.lua"), TRAIN.replace("MODEL", gpt).replace('"out"', '"gpt"')), cwd=d)
            self.assertEqual(code, 2, err[-3000:])
            self.assertIn("packs several sequences per row", err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)


if __name__ == "__main__":
    unittest.main()
