"""Multiple choice, as transformers' run_swag.py does it: every encoder family's
*ForMultipleChoice folder loads (with task = "multiple_choice", or by its architecture) and gives
transformers' logits (batch, choices) and loss; a run tokenizes each question's choices as one
batch (tok({context, ...}, {ending, ...})), pads them with data.multiple_choice_collator
(transformers' DataCollatorForMultipleChoice), learns, and what it saves loads with
AutoModelForMultipleChoice (nothing missing or unexpected) and gives runner's logits.
Exit 77 (skipped) without transformers."""
import json
import os
import re
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import check_one_line_errors, TempDir, read_safetensors, run, write  # noqa: E402

try:
    import torch
    import transformers
    from test_bert_folder import pretrained_bert_folder
except ImportError as e:
    print(f"SKIP: transformers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

transformers.logging.set_verbosity_error()


def lua_list(rows):
    """A nested Python list as a Lua table constructor."""
    return json.dumps(rows).replace("[", "{").replace("]", "}")

rng = np.random.default_rng(0)
IDS = rng.integers(4, 60, size=(2, 3, 8)).tolist()
MASK = [[[1] * 8, [1] * 6 + [0] * 2, [1] * 5 + [0] * 3], [[1] * 8, [1] * 8, [1] * 7 + [0]]]
TYPES = [[[0] * 4 + [1] * 4] * 3, [[0] * 5 + [1] * 3] * 3]
LABELS = [2, 0]

LOGITS = """
local models = require "runner.models"
local batch = { input_ids = torch.tensor(IDS), attention_mask = torch.tensor(MASK), token_type_ids = torch.tensor(TYPES), labels = torch.tensor(LABELS) }
local function list(t) local r = {} for _, row in ipairs(t:double():tolist()) do r[#r + 1] = "[" .. table.concat(row, ",") .. "]" end return "[" .. table.concat(r, ",") .. "]" end
for _, folder in ipairs{ FOLDERS } do
  local m = models.from_pretrained(folder, OPTIONS)
  local b = batch
  if folder:find("distilbert") then b = { input_ids = batch.input_ids, attention_mask = batch.attention_mask, labels = batch.labels } end
  local out = m(b)
  print("LOGITS " .. folder .. " " .. list(out.logits))
  print("LOSS " .. folder .. " " .. string.format("%.9g", out.loss:item()))
end
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

SIZES = dict(vocab_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=48, max_position_embeddings=16)

THINGS = ["bridge", "museum", "tower", "garden", "library", "market"]
PLACES = ["paris", "lagos", "kyoto", "oslo", "lima", "cairo"]

TRAIN = """local data, models = require "runner.data", require "runner.models"
local tok = data.tokenizer("pre/tokenizer.json")
local function choices(e)
  local t = tok({ e.sent1, e.sent1, e.sent1 }, { e.ending0, e.ending1, e.ending2 }, { max_length = 32 })
  return { input_ids = t.input_ids, attention_mask = t.attention_mask, token_type_ids = t.token_type_ids, labels = e.label }
end
local cols = { remove_columns = { "sent1", "ending0", "ending1", "ending2", "label" } }
return {
  args = { output_dir = "out", num_train_epochs = 3, per_device_train_batch_size = 8, learning_rate = 3e-3, logging_steps = 1,
           eval_strategy = "epoch", save_strategy = "no", report_to = "none" },
  datasets = { train = data.jsonl("train.jsonl"):map(choices, cols), eval = data.jsonl("dev.jsonl"):map(choices, cols) },
  data_collator = data.multiple_choice_collator{ pad_token_id = 0 },
  model = models.from_pretrained("pre", { task = "multiple_choice" }),
  compute_metrics = function(p) return { accuracy = p.predictions:argmax(-1):eq(p.label_ids):double():mean():item() } end,
}
"""


def swag_rows(n, seed):
    """The right ending says where the thing is; the wrong ones say it is gone."""
    r = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        thing, place = THINGS[int(r.integers(6))], PLACES[int(r.integers(6))]
        endings = [f"it is in {place}", "it is far away", "it is gone now"]
        order = r.permutation(3)
        rows.append({"sent1": f"the {thing} stands in {place} .", **{f"ending{i}": endings[int(order[i])] for i in range(3)},
                     "label": int(np.where(order == 0)[0][0])})
    return rows


class MultipleChoice(unittest.TestCase):
    def runner_outputs(self, d, folders, options='{ task = "multiple_choice" }'):
        script = (LOGITS.replace("FOLDERS", ", ".join(f'"{f}"' for f in folders)).replace("OPTIONS", options)
                  .replace("IDS", lua_list(IDS)).replace("MASK", lua_list(MASK)).replace("TYPES", lua_list(TYPES))
                  .replace("LABELS", "{" + ", ".join(map(str, LABELS)) + "}"))
        code, out, err = run("check", write(os.path.join(d, "logits.lua"), script), cwd=d)
        self.assertEqual(code, 0, err[-3000:])
        text = out + err
        return {f: (np.array(json.loads(re.search(rf"LOGITS {f} (.*)$", text, re.M).group(1))),
                    float(re.search(rf"LOSS {f} (\S+)", text).group(1))) for f in folders}

    @staticmethod
    def hf_outputs(model, distilbert=False):
        kw = dict(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK), labels=torch.tensor(LABELS))
        if not distilbert:
            kw["token_type_ids"] = torch.tensor(TYPES)
        with torch.no_grad():
            out = model(**kw)
        return out.logits.numpy(), float(out.loss)

    def test_every_family_gives_transformers_logits_and_loss(self):
        t = transformers
        with TempDir() as d:
            torch.manual_seed(0)
            models = {
                "bert": t.BertForMultipleChoice(t.BertConfig(hidden_size=32, **SIZES)),
                "roberta": t.RobertaForMultipleChoice(t.RobertaConfig(hidden_size=32, pad_token_id=1, **{**SIZES, "max_position_embeddings": 20})),
                "distilbert": t.DistilBertForMultipleChoice(t.DistilBertConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, hidden_dim=48,
                                                                                max_position_embeddings=16)),
                "albert": t.AlbertForMultipleChoice(t.AlbertConfig(hidden_size=32, embedding_size=16, **SIZES)),
                "electra": t.ElectraForMultipleChoice(t.ElectraConfig(hidden_size=32, embedding_size=16, **SIZES)),
            }
            for name, m in models.items():
                with torch.no_grad():
                    for n, p in m.named_parameters():
                        if "classifier" in n or "pooler" in n or "summary" in n:
                            p.normal_(0, 0.5)  # scores far enough apart that a wrong head shows
                m.eval().save_pretrained(os.path.join(d, name))
            got = self.runner_outputs(d, list(models), options="{}")  # by their architectures
            for name, m in models.items():
                want_logits, want_loss = self.hf_outputs(m, distilbert=name == "distilbert")
                self.assertEqual(got[name][0].shape, (2, 3), name)
                np.testing.assert_allclose(got[name][0], want_logits, rtol=1e-5, atol=1e-5, err_msg=name)
                self.assertAlmostEqual(got[name][1], want_loss, places=5, msg=name)

    def test_a_run_learns_and_saves_what_transformers_loads(self):
        with TempDir() as d:
            texts = [f"the {t} stands in {p} . it is in {p} . it is far away . it is gone now" for t in THINGS for p in PLACES]
            pretrained_bert_folder(os.path.join(d, "pre"), texts, lowercase=True, vocab_size=80)
            write(os.path.join(d, "train.jsonl"), "".join(json.dumps(r) + "\n" for r in swag_rows(96, seed=1)))
            write(os.path.join(d, "dev.jsonl"), "".join(json.dumps(r) + "\n" for r in swag_rows(24, seed=2)))
            code, out, err = run(write(os.path.join(d, "r.lua"), TRAIN), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "trainer_state.json")) as f:
                history = json.load(f)["log_history"]
            losses = [e["loss"] for e in history if "loss" in e]
            self.assertLess(sum(losses[-5:]) / 5, 0.8 * sum(losses[:5]) / 5, losses)
            self.assertEqual(len([e for e in history if "eval_accuracy" in e]), 3)
            with open(os.path.join(d, "out", "config.json")) as f:
                self.assertEqual(json.load(f)["architectures"], ["BertForMultipleChoice"])
            self.assertIn("classifier.weight", read_safetensors(os.path.join(d, "out", "model.safetensors")))
            hf, info = transformers.AutoModelForMultipleChoice.from_pretrained(os.path.join(d, "out"), output_loading_info=True)
            self.assertEqual((list(info["missing_keys"]), list(info["unexpected_keys"])), ([], []))
            got = self.runner_outputs(d, ["out"], options="{}")["out"]
            want_logits, want_loss = self.hf_outputs(hf.eval())
            np.testing.assert_allclose(got[0], want_logits, rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(got[1], want_loss, places=5)

    def test_bad_input_is_one_line_exit_2(self):
        with TempDir() as d:
            transformers.BertForMultipleChoice(transformers.BertConfig(hidden_size=32, **SIZES)).save_pretrained(os.path.join(d, "mc"))
            cases = {
                'models.from_pretrained("mc")({ input_ids = torch.zeros(2, 5):long() })': "reads input_ids (batch, choices, tokens)",
                'models.from_pretrained("mc", { num_labels = 3 })': "is a multiple-choice model",
                'models.lora(models.from_pretrained("mc"), { r = 4, target_modules = { "query" } })': "LoRA of a multiple-choice model",
                'data.multiple_choice_collator{}({ { input_ids = torch.zeros(4):long() } })': "must be (choices, tokens)",
                'data.multiple_choice_collator{}({ { input_ids = torch.zeros(2, 3):long() }, { input_ids = torch.zeros(3, 3):long() } })':
                    "every example needs 2 choices",
            }
            check_one_line_errors(self, d, cases)


if __name__ == "__main__":
    unittest.main()
