"""Masked language modelling, as transformers' run_mlm.py does it: every encoder family's
*ForMaskedLM folder (and a BertForPreTraining folder, whose next-sentence head is dropped) loads
with task = "masked_lm" and gives transformers' logits and loss; data.mlm_collator with a
transformers tokenizer folder masks only what DataCollatorForLanguageModeling may mask (never the
tokenizer's special tokens or padding), with its mask token and about mlm_probability of the
tokens; a run trains a pretrained BERT on it and what the Trainer writes loads with
AutoModelForMaskedLM (nothing missing or unexpected) and gives runner's logits.
Exit 77 (skipped) without transformers."""
import json
import os
import re
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, read_safetensors, run, write  # noqa: E402

try:
    import torch
    import transformers
    from test_bert_folder import IDS, MASK, TYPES, lua_list, pretrained_bert_folder
except ImportError as e:
    print(f"SKIP: transformers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

transformers.logging.set_verbosity_error()

LABELS = [[-100, 17, -100, -100, 33, -100, -100, -100], [-100, -100, 61, 12, -100, 44, -100, -100]]

# Prints each folder's masked-LM logits (flattened to rows of the vocabulary) and loss.
LOGITS = """
local models = require "runner.models"
local batch = { input_ids = torch.tensor(IDS), attention_mask = torch.tensor(MASK), token_type_ids = torch.tensor(TYPES),
                labels = torch.tensor(LABELS) }
local function list(t) local r = {} for _, row in ipairs(t:double():tolist()) do r[#r + 1] = "[" .. table.concat(row, ",") .. "]" end return "[" .. table.concat(r, ",") .. "]" end
for _, folder in ipairs{ FOLDERS } do
  local m = models.from_pretrained(folder, { task = "masked_lm" })
  local b = batch
  if folder == "distilbert" then b = { input_ids = batch.input_ids, attention_mask = batch.attention_mask, labels = batch.labels } end
  local out = m(b)
  print("LOGITS " .. folder .. " " .. list(out.logits:reshape{ -1, out.logits:size(2) }))
  print("LOSS " .. folder .. " " .. string.format("%.9g", out.loss:item()))
end
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

SIZES = dict(vocab_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=48, max_position_embeddings=16)


def hf_models():
    """One random *ForMaskedLM per family, head biases non-zero so their tie is exercised."""
    t = transformers
    return {
        "bert": t.BertForMaskedLM(t.BertConfig(hidden_size=32, **SIZES)),
        "roberta": t.RobertaForMaskedLM(t.RobertaConfig(hidden_size=32, pad_token_id=1, **{**SIZES, "max_position_embeddings": 20})),
        "distilbert": t.DistilBertForMaskedLM(t.DistilBertConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, hidden_dim=48,
                                                                  max_position_embeddings=16)),
        "albert": t.AlbertForMaskedLM(t.AlbertConfig(hidden_size=32, embedding_size=16, **SIZES)),
        "electra": t.ElectraForMaskedLM(t.ElectraConfig(hidden_size=32, embedding_size=16, **SIZES)),
    }


class MaskedLm(unittest.TestCase):
    def runner_outputs(self, d, folders):
        script = (LOGITS.replace("FOLDERS", ", ".join(f'"{f}"' for f in folders)).replace("IDS", lua_list(IDS))
                  .replace("MASK", lua_list(MASK)).replace("TYPES", lua_list(TYPES)).replace("LABELS", lua_list(LABELS)))
        code, out, err = run("check", write(os.path.join(d, "logits.lua"), script), cwd=d)
        self.assertEqual(code, 0, err[-3000:])
        text = out + err
        got = {}
        for f in folders:
            logits = np.array(json.loads(re.search(rf"LOGITS {f} (.*)$", text, re.M).group(1)))
            got[f] = logits, float(re.search(rf"LOSS {f} (\S+)", text).group(1))
        return got

    @staticmethod
    def hf_outputs(model, distilbert=False):
        kw = dict(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK), labels=torch.tensor(LABELS))
        if not distilbert:
            kw["token_type_ids"] = torch.tensor(TYPES)
        with torch.no_grad():
            out = model(**kw)
        return out.logits.reshape(-1, out.logits.shape[-1]).numpy(), float(out.loss)

    def test_every_family_gives_transformers_logits_and_loss(self):
        with TempDir() as d:
            torch.manual_seed(0)
            models = hf_models()
            for name, m in models.items():
                with torch.no_grad():
                    for n, p in m.named_parameters():
                        if n.endswith("bias"):
                            p.normal_(0, 0.5)  # the decoder's bias too (tied to the head's bias where transformers ties it)
                m.eval().save_pretrained(os.path.join(d, name))
            # A BertForPreTraining folder (bert-base-uncased's shape): its MLM head is kept, the NSP head dropped.
            transformers.BertForPreTraining(transformers.BertConfig(hidden_size=32, **SIZES)).save_pretrained(os.path.join(d, "pre"))
            models["pre"] = transformers.BertForMaskedLM.from_pretrained(os.path.join(d, "pre")).eval()
            got = self.runner_outputs(d, list(models))
            for name, m in models.items():
                want_logits, want_loss = self.hf_outputs(m, distilbert=name == "distilbert")
                np.testing.assert_allclose(got[name][0], want_logits, rtol=1e-5, atol=1e-5, err_msg=name)
                self.assertAlmostEqual(got[name][1], want_loss, places=5, msg=name)

    def test_mlm_collator_with_a_tokenizer_folder_and_a_training_run_transformers_loads(self):
        texts = [f"the {a} cat sat on the {b} mat near the {c} door" for a in ("red", "big", "old", "shy")
                 for b in ("blue", "flat", "warm") for c in ("green", "open", "front", "back")]
        with TempDir() as d:
            pretrained_bert_folder(os.path.join(d, "pre"), texts, lowercase=True, vocab_size=120)
            # tokenizer_config.json as transformers writes it (mask_token, pad_token, ...).
            hf_tok = transformers.BertTokenizerFast(tokenizer_file=os.path.join(d, "pre", "tokenizer.json"))
            hf_tok.save_pretrained(os.path.join(d, "pre"))
            write(os.path.join(d, "train.jsonl"), "".join(json.dumps({"text": t}) + "\n" for t in texts * 4))
            recipe = """local data, models = require "runner.data", require "runner.models"
local tok = data.tokenizer("pre/tokenizer.json")
local ds = data.jsonl("train.jsonl"):map(function(e) local t = tok(e.text, { max_length = 24 }) return { input_ids = t.input_ids, attention_mask = t.attention_mask } end, { remove_columns = { "text" } })
local collator = data.mlm_collator{ tokenizer = tok, mlm_probability = 0.3 }
local sample = {}
for i = 0, 63 do sample[#sample + 1] = ds:get(i) end
local b = collator(sample)
local function list(t) local r = {} for _, row in ipairs(t:double():tolist()) do r[#r + 1] = "[" .. table.concat(row, ",") .. "]" end return "[" .. table.concat(r, ",") .. "]" end
print("PADDED " .. list(data.pad_collator{ pad_token_id = tok:token_to_id("[PAD]") }(sample).input_ids))
print("INPUTS " .. list(b.input_ids))
print("LABELS " .. list(b.labels))
return {
  args = { output_dir = "out", max_steps = 40, learning_rate = 3e-3, per_device_train_batch_size = 16, report_to = "none",
           save_strategy = "no", logging_steps = 10, eval_strategy = "steps", eval_steps = 40, per_device_eval_batch_size = 16 },
  datasets = { train = ds, eval = ds:select{ 0, 1, 2, 3, 4, 5, 6, 7 } },
  data_collator = collator,
  model = models.from_pretrained("pre", { task = "masked_lm" }),
}
"""
            code, out, err = run(write(os.path.join(d, "mlm.lua"), recipe), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            text = out + err
            padded, inputs, labels = (np.array(json.loads(re.search(rf"{k} (.*)$", text, re.M).group(1))) for k in ("PADDED", "INPUTS", "LABELS"))
            picked = labels != -100
            special = np.isin(padded, hf_tok.all_special_ids)
            self.assertFalse((picked & special).any())  # never a special token or padding
            self.assertTrue((labels[picked] == padded[picked]).all())
            self.assertTrue((inputs[~picked] == padded[~picked]).all())
            self.assertAlmostEqual(picked.sum() / (~special).sum(), 0.3, delta=0.05)
            masked = (inputs == hf_tok.mask_token_id) & picked
            self.assertAlmostEqual(masked.sum() / picked.sum(), 0.8, delta=0.08)

            losses = [float(x) for x in re.findall(r"'loss': ([0-9.]+)", text)]
            self.assertGreaterEqual(len(losses), 3, text[-2000:])
            self.assertLess(losses[-1], 0.8 * losses[0])
            self.assertIn("eval_loss", text)

            names = set(read_safetensors(os.path.join(d, "out", "model.safetensors")))
            self.assertTrue(any(n.startswith("cls.predictions.transform.") for n in names))
            self.assertFalse(any(n.startswith(("cls.seq_relationship", "bert.pooler")) for n in names))
            hf, info = transformers.AutoModelForMaskedLM.from_pretrained(os.path.join(d, "out"), output_loading_info=True)
            self.assertEqual(type(hf).__name__, "BertForMaskedLM")
            self.assertEqual((info["missing_keys"], info["unexpected_keys"]), (set(), set()) if isinstance(info["missing_keys"], set) else ([], []))
            got = self.runner_outputs(d, ["out"])["out"]
            want = self.hf_outputs(hf.eval())
            # The ids of the shared batch are < 64, inside this vocabulary too.
            np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(got[1], want[1], places=5)

    def test_a_lua_collator_wrapping_it_keeps_each_batchs_draws(self):
        """A recipe's data_collator function calling data.mlm_collator: the built-in collator
        draws by the batch's epoch and dataset indices, as it does unwrapped, not as a fresh
        call with epoch 0 and indices 0, 1, ... (every batch of identical examples would then
        get identical masks)."""
        with TempDir() as d:
            recipe = """local data = require "runner.data"
local mlm = data.mlm_collator{ mask_token_id = 4, vocab_size = 64, mlm_probability = 0.3 }
local function list(t) local r = {} for _, row in ipairs(t:tolist()) do r[#r + 1] = "[" .. table.concat(row, ",") .. "]" end return "[" .. table.concat(r, ",") .. "]" end
return {
  args = { output_dir = "out", num_train_epochs = 2, per_device_train_batch_size = 4, learning_rate = 1e-3, report_to = "none", save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = torch.arange(10, 42):reshape{ 1, 32 }:expand{ 16, 32 }:contiguous() } },
  data_collator = function(examples) local b = mlm(examples) print("LABELS " .. list(b.labels)) return b end,
  model = (require "runner.models").encoder_classifier{ task = "masked_lm", vocab_size = 64, max_position_embeddings = 32, n_layer = 1,
                                                       n_head = 2, hidden_size = 16, intermediate_size = 32 },
}
"""
            code, out, err = run(write(os.path.join(d, "wrapped.lua"), recipe), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            batches = re.findall(r"LABELS (.*)$", out + err, re.M)
            self.assertEqual(len(batches), 8)
            self.assertEqual(len(set(batches)), 8)  # every batch its own masks
            rows = [row for b in batches for row in json.loads(b)]
            self.assertEqual(len({json.dumps(r) for r in rows}), 32)  # and every example in every epoch
            # total_flos is the Trainer's floating_point_ops of each step's batch (8 steps of 4 × 32
            # tokens): 6 · tokens · num_parameters(exclude_embeddings=True).
            with open(os.path.join(d, "out", "trainer_state.json")) as f:
                total_flos = json.load(f)["total_flos"]
            hf = transformers.AutoModelForMaskedLM.from_pretrained(os.path.join(d, "out"))
            self.assertEqual(total_flos, 8 * 6 * 4 * 32 * hf.num_parameters(exclude_embeddings=True))

    def test_bad_settings_are_one_line(self):
        with TempDir() as d:
            torch.manual_seed(0)
            transformers.GPT2LMHeadModel(transformers.GPT2Config(n_embd=16, n_layer=1, n_head=2, vocab_size=64, n_positions=16)).save_pretrained(os.path.join(d, "gpt2"))
            transformers.BertForMaskedLM(transformers.BertConfig(hidden_size=32, **SIZES)).save_pretrained(os.path.join(d, "bert"))
            from tokenizers import Tokenizer, models as tmodels
            Tokenizer(tmodels.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]")).save(os.path.join(d, "tokenizer.json"))
            cases = {
                'models.from_pretrained("bert", { task = "masked_lm", num_labels = 3 })': "num_labels and labels are for a classifier",
                'models.from_pretrained("gpt2", { task = "masked_lm" })': "are for a classification model",
                'models.encoder_classifier{ vocab_size = 64, task = "masked_lm", labels = { "a", "b" } }': "num_labels and labels are for a classifier",
                'models.encoder_classifier{ vocab_size = 64, task = "mlm" }': 'task must be "sequence_classification", "token_classification", "masked_lm", "question_answering" or "multiple_choice"',
                'data.mlm_collator{ tokenizer = data.tokenizer("tokenizer.json") }': "the tokenizer has no mask token",
                'data.mlm_collator{ mask_token_id = 4, vocab_size = 64, mlm_probability = 1.5 }': "data.mlm_collator: mlm_probability must be in [0, 1]",
                'data.mlm_collator{ vocab_size = 64 }': "give tokenizer = data.tokenizer(...), or mask_token_id and vocab_size",
                'models.lora(models.from_pretrained("bert", { task = "masked_lm" }), { r = 4 })':
                    "LoRA of a masked language model (BertForMaskedLM) is not supported",
            }
            for i, (code_line, message) in enumerate(cases.items()):
                script = f'local data, models = require "runner.data", require "runner.models"\nlocal x = {code_line}\nreturn {{}}\n'
                code, _, err = run("check", write(os.path.join(d, f"bad{i}.lua"), script), cwd=d)
                self.assertEqual(code, 2, (code_line, err))
                self.assertIn(message, err, code_line)
                self.assertIn(f"bad{i}.lua:2", err, code_line)


if __name__ == "__main__":
    unittest.main()
