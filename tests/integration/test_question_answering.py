"""Extractive question answering, as transformers' run_qa.py does it: every encoder family's
*ForQuestionAnswering folder loads (with task = "question_answering", or by its architecture) and
gives transformers' start/end logits and loss, an answer outside the window included;
data.qa_features cuts long contexts into the windows transformers' tokenizer gives
(truncation="only_second", stride, return_overflowing_tokens) and labels them as run_qa.py's
prepare_train_features does from transformers' offsets; data.qa_predictions turns logits back into
the answer texts; a run trains a BERT on SQuAD rows written by `datasets` (Parquet), reports
eval_exact_match / eval_f1, and what it saves loads with AutoModelForQuestionAnswering; a LoRA
run's adapter loads with peft. Exit 77 (skipped) without transformers."""
import json
import os
import re
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import check_one_line_errors, TempDir, read_safetensors, run, write  # noqa: E402

try:
    import datasets
    import peft
    import torch
    import transformers
    from test_bert_folder import IDS, MASK, TYPES, lua_list, pretrained_bert_folder
except ImportError as e:
    print(f"SKIP: transformers, peft or datasets not installed ({e}); scripts/setup installs them")
    sys.exit(77)

transformers.logging.set_verbosity_error()

# Start/end positions: in the window, and past it (7 → clamped to 8 = T, ignored by the loss).
STARTS, ENDS = [1, 20], [3, 2]

LOGITS = """
local models = require "runner.models"
local batch = { input_ids = torch.tensor(IDS), attention_mask = torch.tensor(MASK), token_type_ids = torch.tensor(TYPES),
                start_positions = torch.tensor(STARTS), end_positions = torch.tensor(ENDS) }
local function list(t) local r = {} for _, row in ipairs(t:double():tolist()) do r[#r + 1] = "[" .. table.concat(row, ",") .. "]" end return "[" .. table.concat(r, ",") .. "]" end
for _, folder in ipairs{ FOLDERS } do
  local m = models.from_pretrained(folder, OPTIONS)
  local b = batch
  if folder:find("distilbert") then b = { input_ids = batch.input_ids, attention_mask = batch.attention_mask, start_positions = batch.start_positions, end_positions = batch.end_positions } end
  local out = m(b)
  print("START " .. folder .. " " .. list(out.start_logits))
  print("END " .. folder .. " " .. list(out.end_logits))
  print("STACKED " .. folder .. " " .. tostring(out.logits:size(2)))
  print("LOSS " .. folder .. " " .. string.format("%.9g", out.loss:item()))
end
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

SIZES = dict(vocab_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=48, max_position_embeddings=16)

PLACES = ["Zürich", "Paris", "Lagos", "Kyoto", "Québec", "Oslo", "Lima", "Cairo"]
THINGS = ["bridge", "museum", "tower", "garden", "library", "market", "station", "harbour"]


def squad_rows(n, seed):
    """SQuAD-shaped rows (datasets' columns): long contexts of many sentences, the answer a
    place somewhere in them, some non-ASCII, some unanswerable when asked."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        k = int(rng.integers(6, 12))
        facts = [(THINGS[int(rng.integers(len(THINGS)))], PLACES[int(rng.integers(len(PLACES)))]) for _ in range(k)]
        thing, place = facts[int(rng.integers(k))]
        context = " ".join(f"The old {t} stands in {p}, near the river." for t, p in facts)
        sentence = f"The old {thing} stands in {place}"
        start = context.index(sentence) + len(sentence) - len(place)
        rows.append({"id": f"q{i}", "title": "t", "context": context, "question": f"  Where does the old {thing} stand?",
                     "answers": {"text": [place], "answer_start": [start]}})
    return rows


def tokenizer_texts():
    return [f"The old {t} stands in {p}, near the river. Where does the old {t} stand?" for t in THINGS for p in PLACES]


def run_qa_positions(tok, row, max_length, stride):
    """transformers' run_qa.py prepare_train_features on transformers' tokenizer: its windows and
    the start/end token of the first answer in each (the [CLS] index when the window lacks it)."""
    enc = tok(row["question"].lstrip(), row["context"], truncation="only_second", max_length=max_length, stride=stride,
              return_overflowing_tokens=True, return_offsets_mapping=True)
    out = []
    for i, ids in enumerate(enc["input_ids"]):
        offsets, seq = enc["offset_mapping"][i], enc.sequence_ids(i)
        cls = ids.index(tok.cls_token_id)
        start_char = row["answers"]["answer_start"][0]
        end_char = start_char + len(row["answers"]["text"][0])
        first = seq.index(1)
        last = len(seq) - 1 - seq[::-1].index(1)
        if not (offsets[first][0] <= start_char and offsets[last][1] >= end_char):
            out.append((ids, enc["token_type_ids"][i], cls, cls))
            continue
        s = first
        while s < len(offsets) and offsets[s][0] <= start_char:
            s += 1
        e = last
        while offsets[e][1] >= end_char:
            e -= 1
        out.append((ids, enc["token_type_ids"][i], s - 1, e + 1))
    return out


FEATURES = """local data = require "runner.data"
local tok = data.tokenizer("pre/tokenizer.json")
local ds = data.qa_features{ path = "rows.jsonl", tokenizer = tok, max_length = 40, doc_stride = 12 }
for i = 0, #ds - 1 do
  local f = ds:get(i)
  print("FEATURE " .. i .. " " .. table.concat(f.input_ids:tolist(), ",") .. " | " .. table.concat(f.token_type_ids:tolist(), ",") ..
        " | " .. f.start_positions:item() .. " " .. f.end_positions:item())
end
-- Logits that peak at each feature's labelled span (the [CLS] elsewhere) give back the answers.
local rows = {}
for i = 0, #ds - 1 do
  local f = ds:get(i)
  local len, s, e = f.input_ids:size(0), f.start_positions:item(), f.end_positions:item()
  local row = {}
  for t = 0, 39 do
    local start, stop = -100, -100  -- columns past the feature, as evaluation pads them
    if t < len then start, stop = (t == s) and (s == 0 and 1 or 10) or 0, (t == e) and (e == 0 and 1 or 10) or 0 end
    row[#row + 1] = { start, stop }
  end
  rows[#rows + 1] = row
end
local logits = torch.tensor(rows)
for _, p in ipairs(data.qa_predictions(ds, logits)) do print("ANSWER " .. p.id .. " " .. p.prediction_text) end
local m = data.qa_metrics(ds, logits)
print(string.format("METRICS %.6f %.6f", m.exact_match, m.f1))
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""


class QuestionAnswering(unittest.TestCase):
    def runner_outputs(self, d, folders, options="{ task = \"question_answering\" }"):
        script = (LOGITS.replace("FOLDERS", ", ".join(f'"{f}"' for f in folders)).replace("OPTIONS", options)
                  .replace("IDS", lua_list(IDS)).replace("MASK", lua_list(MASK)).replace("TYPES", lua_list(TYPES))
                  .replace("STARTS", lua_list([STARTS])[1:-1]).replace("ENDS", lua_list([ENDS])[1:-1]))
        code, out, err = run("check", write(os.path.join(d, "logits.lua"), script), cwd=d)
        self.assertEqual(code, 0, err[-3000:])
        text = out + err
        got = {}
        for f in folders:
            start = np.array(json.loads(re.search(rf"START {f} (.*)$", text, re.M).group(1)))
            end = np.array(json.loads(re.search(rf"END {f} (.*)$", text, re.M).group(1)))
            self.assertEqual(re.search(rf"STACKED {f} (\S+)", text).group(1), "2")
            got[f] = start, end, float(re.search(rf"LOSS {f} (\S+)", text).group(1))
        return got

    def test_every_family_gives_transformers_logits_and_loss(self):
        t = transformers
        with TempDir() as d:
            torch.manual_seed(0)
            models = {
                "bert": t.BertForQuestionAnswering(t.BertConfig(hidden_size=32, **SIZES)),
                "roberta": t.RobertaForQuestionAnswering(t.RobertaConfig(hidden_size=32, pad_token_id=1, **{**SIZES, "max_position_embeddings": 20})),
                "distilbert": t.DistilBertForQuestionAnswering(t.DistilBertConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, hidden_dim=48,
                                                                                  max_position_embeddings=16, qa_dropout=0.3)),
                "albert": t.AlbertForQuestionAnswering(t.AlbertConfig(hidden_size=32, embedding_size=16, **SIZES)),
                "electra": t.ElectraForQuestionAnswering(t.ElectraConfig(hidden_size=32, embedding_size=16, **SIZES)),
            }
            for name, m in models.items():
                with torch.no_grad():
                    for n, p in m.named_parameters():
                        if n.startswith("qa_outputs"):
                            p.normal_(0, 0.5)  # logits far enough apart that a wrong head or position shows
                m.eval().save_pretrained(os.path.join(d, name))
            # Loaded by their architecture (no task), and a BertForPreTraining folder given the task (a new head, no pooler).
            transformers.BertForPreTraining(transformers.BertConfig(hidden_size=32, **SIZES)).save_pretrained(os.path.join(d, "pre"))
            got = self.runner_outputs(d, list(models), options="{}")
            got.update(self.runner_outputs(d, ["pre"]))
            for name, m in models.items():
                kw = dict(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK),
                          start_positions=torch.tensor(STARTS), end_positions=torch.tensor(ENDS))
                if name != "distilbert":
                    kw["token_type_ids"] = torch.tensor(TYPES)
                with torch.no_grad():
                    out = m(**kw)
                np.testing.assert_allclose(got[name][0], out.start_logits.numpy(), rtol=1e-5, atol=1e-5, err_msg=name)
                np.testing.assert_allclose(got[name][1], out.end_logits.numpy(), rtol=1e-5, atol=1e-5, err_msg=name)
                self.assertAlmostEqual(got[name][2], float(out.loss), places=5, msg=name)
            self.assertTrue(np.isfinite(got["pre"][2]))

    def test_features_are_transformers_windows_labelled_as_run_qa_and_predictions_give_the_answers(self):
        with TempDir() as d:
            pretrained_bert_folder(os.path.join(d, "pre"), tokenizer_texts(), lowercase=False, vocab_size=120)
            rows = squad_rows(12, seed=1)
            write(os.path.join(d, "rows.jsonl"), "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
            code, out, err = run("check", write(os.path.join(d, "f.lua"), FEATURES), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            text = out + err
            got = [(list(map(int, m.group(2).split(","))), list(map(int, m.group(3).split(","))), int(m.group(4)), int(m.group(5)))
                   for m in re.finditer(r"FEATURE (\d+) (\S+) \| (\S+) \| (\d+) (\d+)", text)]
            tok = transformers.BertTokenizerFast(tokenizer_file=os.path.join(d, "pre", "tokenizer.json"))
            want = [f for r in rows for f in run_qa_positions(tok, r, 40, 12)]
            self.assertGreater(len(want), len(rows) + 6)  # long contexts: several windows each
            self.assertEqual(len(got), len(want))
            for i, (g, w) in enumerate(zip(got, want)):
                self.assertEqual(g, w, f"feature {i}")
            self.assertTrue(any(w[2] == 0 for w in want) and any(w[2] > 0 for w in want))
            answers = dict(re.findall(r"ANSWER (\S+) (.*)$", text, re.M))
            self.assertEqual(answers, {r["id"]: r["answers"]["text"][0] for r in rows})
            self.assertEqual(re.search(r"METRICS (\S+) (\S+)", text).groups(), ("100.000000", "100.000000"))

    def test_a_run_on_datasets_parquet_reports_squad_scores_and_saves_what_transformers_loads(self):
        with TempDir() as d:
            pretrained_bert_folder(os.path.join(d, "pre"), tokenizer_texts(), lowercase=False, vocab_size=120)
            datasets.Dataset.from_list(squad_rows(48, seed=2)).to_parquet(os.path.join(d, "train.parquet"))
            write(os.path.join(d, "dev.jsonl"), "".join(json.dumps(r) + "\n" for r in squad_rows(8, seed=3)))
            write(os.path.join(d, "r.lua"), TRAIN.replace("MODEL", 'models.from_pretrained("pre", { task = "question_answering" })'))
            code, out, err = run(os.path.join(d, "r.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "trainer_state.json")) as f:
                history = json.load(f)["log_history"]
            losses = [e["loss"] for e in history if "loss" in e]
            self.assertLess(losses[-1], 0.8 * losses[0], losses)
            evals = [e for e in history if "eval_f1" in e]
            self.assertEqual(len(evals), 2)
            for e in evals:
                self.assertTrue(0 <= e["eval_exact_match"] <= e["eval_f1"] <= 100 and "eval_loss" in e, e)
            weights = read_safetensors(os.path.join(d, "out", "model.safetensors"))
            self.assertIn("qa_outputs.weight", weights)
            self.assertFalse(any(k.startswith("bert.pooler") or k.startswith("cls.") for k in weights))
            with open(os.path.join(d, "out", "config.json")) as f:
                self.assertEqual(json.load(f)["architectures"], ["BertForQuestionAnswering"])
            hf, info = transformers.AutoModelForQuestionAnswering.from_pretrained(os.path.join(d, "out"), output_loading_info=True)
            self.assertEqual((info["missing_keys"], info["unexpected_keys"]), (set(), set()) if isinstance(info["missing_keys"], set) else ([], []))
            got = self.runner_outputs(d, ["out"], options="{}")["out"]
            with torch.no_grad():
                want = hf.eval()(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK), token_type_ids=torch.tensor(TYPES))
            np.testing.assert_allclose(got[0], want.start_logits.numpy(), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(got[1], want.end_logits.numpy(), rtol=1e-5, atol=1e-5)

    def test_lora_adapters_record_the_span_head_and_load_in_peft(self):
        with TempDir() as d:
            pretrained_bert_folder(os.path.join(d, "pre"), tokenizer_texts(), lowercase=False, vocab_size=120)
            write(os.path.join(d, "dev.jsonl"), "".join(json.dumps(r) + "\n" for r in squad_rows(8, seed=3)))
            datasets_free = TRAIN.replace('data.qa_features{ dataset = data.parquet{ path = "train.parquet" },', 'data.qa_features{ path = "dev.jsonl",')
            write(os.path.join(d, "r.lua"), datasets_free.replace(
                "MODEL", 'models.lora(models.from_pretrained("pre", { task = "question_answering" }), { r = 4, alpha = 8, target_modules = { "query", "value" } })'))
            code, out, err = run(os.path.join(d, "r.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "adapter_config.json")) as f:
                config = json.load(f)
            self.assertEqual(config["task_type"], "QUESTION_ANS")
            self.assertIn("qa_outputs", config["modules_to_save"])
            base = transformers.AutoModelForQuestionAnswering.from_pretrained(os.path.join(d, "pre"))
            model = peft.PeftModel.from_pretrained(base, os.path.join(d, "out")).eval()
            self.assertIsInstance(model, peft.PeftModelForQuestionAnswering)
            got = self.runner_outputs(d, ["out"], options="{}")["out"]  # runner loads the adapter folder onto its base
            # The adapted transformers model itself: PeftModelForQuestionAnswering.forward (peft 0.21) drops
            # token_type_ids on the way to it.
            with torch.no_grad():
                want = model.get_base_model()(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK), token_type_ids=torch.tensor(TYPES))
            np.testing.assert_allclose(got[0], want.start_logits.numpy(), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(got[1], want.end_logits.numpy(), rtol=1e-5, atol=1e-5)

    def test_bad_input_is_one_line_exit_2(self):
        with TempDir() as d:
            pretrained_bert_folder(os.path.join(d, "pre"), tokenizer_texts(), lowercase=False, vocab_size=120)
            good = squad_rows(2, seed=4)
            write(os.path.join(d, "good.jsonl"), "".join(json.dumps(r) + "\n" for r in good))
            write(os.path.join(d, "noq.jsonl"), json.dumps(good[0]) + "\n" + json.dumps({k: v for k, v in good[1].items() if k != "question"}) + "\n")
            write(os.path.join(d, "far.jsonl"), json.dumps({**good[0], "answers": {"text": ["Oslo"], "answer_start": [100000]}}) + "\n")
            cases = {
                'data.qa_features{ path = "good.jsonl" }': "data.qa_features: needs tokenizer",
                'data.qa_features{ path = "noq.jsonl", tokenizer = tok }': 'noq.jsonl:2: needs a string "question"',
                'data.qa_features{ path = "far.jsonl", tokenizer = tok }': "far.jsonl:1: answer \"Oslo\" at character 100000 runs outside its context",
                'data.qa_features{ path = "good.jsonl", tokenizer = tok, max_length = 8 }': "leaves no room for the second text",
                'data.qa_features{ path = "good.jsonl", tokenizer = tok, max_length = 24, doc_stride = 20 }': "stride 20 must be less than",
                'data.qa_features{ path = "good.jsonl", tokenizer = tok, doc_strid = 8 }': "doc_stride",
                'data.qa_metrics(data.tensors{ x = torch.zeros(2, 1) }, torch.zeros(2, 4, 2))': "must be the data.qa_features dataset",
                'data.qa_metrics(data.qa_features{ path = "good.jsonl", tokenizer = tok }, torch.zeros(3, 4, 2))': "one row per feature",
                'models.from_pretrained("pre", { task = "question_answering", num_labels = 3 })': "num_labels and labels are for a classifier",
            }
            check_one_line_errors(self, d, cases, preamble='local tok = data.tokenizer("pre/tokenizer.json")\n')


TRAIN = """local data, models = require "runner.data", require "runner.models"
local tok = data.tokenizer("pre/tokenizer.json")
local train = data.qa_features{ dataset = data.parquet{ path = "train.parquet" }, tokenizer = tok, max_length = 40, doc_stride = 12 }
local eval = data.qa_features{ path = "dev.jsonl", tokenizer = tok, max_length = 40, doc_stride = 12 }
return {
  args = { output_dir = "out", num_train_epochs = 2, per_device_train_batch_size = 8, learning_rate = 5e-3, eval_strategy = "epoch",
           save_strategy = "no", logging_steps = 1, report_to = "none" },
  datasets = { train = train, eval = eval },
  data_collator = data.pad_collator{ pad_token_id = 0 },
  model = MODEL,
  compute_metrics = function(p) return data.qa_metrics(eval, p.predictions) end,
}
"""


if __name__ == "__main__":
    unittest.main()
