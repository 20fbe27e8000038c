"""BERT folders, as the HF Trainer's text-classification examples fine-tune them:
models.from_pretrained reads a BertForSequenceClassification folder with transformers'
logits and loss, a pretrained BERT (BertForPreTraining's files) gets a new classifier of
num_labels (as from_pretrained(..., num_labels=n) gives), and what the Trainer writes loads
with AutoModelForSequenceClassification, labels' names kept. Exit 77 (skipped) without
transformers."""
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
    from transformers import AutoModelForSequenceClassification, BertConfig
except ImportError as e:
    print(f"SKIP: transformers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

transformers.logging.set_verbosity_error()

IDS = [[2, 17, 40, 9, 33, 3, 0, 0], [2, 5, 61, 12, 3, 44, 8, 3]]
MASK = [[1, 1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1]]
TYPES = [[0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1, 1, 1]]

# Prints the logits (and loss) of FOLDER's model on the batch above, as JSON lines.
LOGITS = """
local models = require "runner.models"
local m = models.from_pretrained("FOLDER" OPTIONS)
local batch = { input_ids = torch.tensor(IDS), attention_mask = torch.tensor(MASK), token_type_ids = torch.tensor(TYPES),
                labels = torch.tensor{ 1, 0 } }
local out = m(batch)
local function list(t) local r = {} for _, row in ipairs(t:double():tolist()) do r[#r + 1] = "[" .. table.concat(row, ",") .. "]" end return "[" .. table.concat(r, ",") .. "]" end
print("LOGITS " .. list(out.logits))
print("LOSS " .. string.format("%.9g", out.loss:item()))
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""


def lua_list(rows):
    return "{ " + ", ".join("{ " + ", ".join(map(str, r)) + " }" for r in rows) + " }"


def small_config(**kw):
    return BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=48,
                      max_position_embeddings=16, type_vocab_size=2, **kw)


def pretrained_bert_folder(path, texts, lowercase, vocab_size):
    """A small random BertForPreTraining saved at `path` with a WordPiece tokenizer.json
    trained on `texts` ([CLS] A [SEP] B [SEP]), as a hub BERT folder holds them."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False))
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=64)
    transformers.BertForPreTraining(config).save_pretrained(path)
    tok.save(os.path.join(path, "tokenizer.json"))


class BertFolder(unittest.TestCase):
    def runner_logits(self, d, folder, options="", ids=IDS):
        script = (LOGITS.replace("FOLDER", folder).replace("OPTIONS", options).replace("IDS", lua_list(ids))
                  .replace("MASK", lua_list(MASK)).replace("TYPES", lua_list(TYPES)))
        code, out, err = run("check", write(os.path.join(d, "logits.lua"), script), cwd=d)
        self.assertEqual(code, 0, err[-3000:])
        text = out + err
        logits = json.loads(re.search(r"LOGITS (.*)$", text, re.M).group(1))
        loss = float(re.search(r"LOSS (\S+)", text).group(1))
        return np.array(logits), loss

    def hf_logits(self, model, ids=IDS):
        with torch.no_grad():
            out = model(input_ids=torch.tensor(ids), attention_mask=torch.tensor(MASK), token_type_ids=torch.tensor(TYPES),
                        labels=torch.tensor([1, 0]))
        return out.logits.numpy(), float(out.loss)

    def test_sequence_classification_folder_gives_transformers_logits(self):
        with TempDir() as d:
            torch.manual_seed(0)
            config = small_config(num_labels=3, id2label={0: "neg", 1: "neu", 2: "pos"}, label2id={"neg": 0, "neu": 1, "pos": 2},
                                  attention_probs_dropout_prob=0.2, classifier_dropout=0.3)
            hf = transformers.BertForSequenceClassification(config).eval()
            hf.save_pretrained(os.path.join(d, "cls"))
            logits, loss = self.runner_logits(d, "cls")
            want_logits, want_loss = self.hf_logits(hf)
            np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(loss, want_loss, places=5)

    def test_pretrained_bert_gets_a_new_head_and_the_fine_tuned_folder_loads_in_transformers(self):
        with TempDir() as d:
            torch.manual_seed(0)
            pre = transformers.BertForPreTraining(small_config()).eval()
            pre.save_pretrained(os.path.join(d, "pre"))
            names = set(read_safetensors(os.path.join(d, "pre", "model.safetensors")))
            self.assertTrue(any(n.startswith("cls.") for n in names))
            self.assertFalse(any(n.startswith("classifier.") for n in names))
            recipe = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(4, 64, {32, 8})
local labels = ids:select(1, 1):remainder(4)
local model = models.from_pretrained("pre", { num_labels = 4 })
print("HEAD " .. string.format("%.6g %.6g", model.classifier.weight:std():item(), model.classifier.bias:abs():max():item()))
return {
  args = { output_dir = "out", max_steps = 6, learning_rate = 1e-3, per_device_train_batch_size = 8, report_to = "none",
           save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, attention_mask = torch.ones(32, 8):long(), labels = labels } },
  model = model,
}
"""
            code, out, err = run(write(os.path.join(d, "train.lua"), recipe), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            std, bias = map(float, re.search(r"HEAD (\S+) (\S+)", out + err).groups())
            self.assertAlmostEqual(std, 0.02, delta=0.006)  # transformers' init: normal(0, initializer_range), zero bias
            self.assertEqual(bias, 0.0)
            # the encoder trained from the pretrained weights: the saved folder holds BertForSequenceClassification's names
            saved = read_safetensors(os.path.join(d, "out", "model.safetensors"))
            self.assertEqual(set(saved), set(transformers.BertForSequenceClassification(small_config(num_labels=4)).state_dict()))
            hf = AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "out")).eval()
            self.assertEqual(type(hf).__name__, "BertForSequenceClassification")
            self.assertEqual(hf.config.num_labels, 4)
            logits, loss = self.runner_logits(d, "out")
            want_logits, want_loss = self.hf_logits(hf)
            np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(loss, want_loss, places=5)

    def test_text_classification_recipe_on_sentence_pairs(self):
        """recipes/text_classification.lua as run_glue.py runs MRPC-style data: a pretrained BERT
        folder with its WordPiece tokenizer.json, CSV files of sentence pairs with label names.
        The output folder, read by transformers with the tokenizer it carries, scores the
        validation file with the accuracy runner reported."""
        import csv
        source = os.environ["RUNNER_SOURCE_DIR"]
        with TempDir() as d:
            rows = []
            with open(os.path.join(source, "recipes", "lib", "sentiment.jsonl")) as f:
                for line in f:
                    rows.append(json.loads(line))
            pairs = [(a["sentence"], b["sentence"], "same" if a["label"] == b["label"] else "different")
                     for a, b in zip(rows[0::2], rows[1::2])]
            for name, part in (("train.csv", pairs[:90]), ("dev.csv", pairs[90:])):
                with open(os.path.join(d, name), "w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(["sentence1", "sentence2", "label"])
                    w.writerows(part)
            pretrained_bert_folder(os.path.join(d, "bert"), [r["sentence"] for r in rows], lowercase=True, vocab_size=300)
            recipe = os.path.join(source, "recipes", "text_classification.lua")
            code, out, err = run(recipe, "--model_dir", "bert", "--train_file", "train.csv", "--validation_file", "dev.csv",
                                 "--max_seq_length", "24", "--num_train_epochs", "2", "--learning_rate", "1e-3", "--output_dir", "out", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "eval_results.json")) as f:
                accuracy = json.load(f)["eval_accuracy"]
            hf = AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "out")).eval()
            self.assertEqual(hf.config.id2label, {0: "different", 1: "same"})  # names in sorted order
            fast = transformers.PreTrainedTokenizerFast(tokenizer_file=os.path.join(d, "out", "tokenizer.json"), pad_token="[PAD]")
            dev = pairs[90:]
            batch = fast([a for a, _, _ in dev], [b for _, b, _ in dev], truncation=True, max_length=24, padding=True, return_tensors="pt",
                  return_token_type_ids=True)
            with torch.no_grad():
                predicted = hf(**batch).logits.argmax(-1).tolist()
            want = sum(hf.config.id2label[p] == label for p, (_, _, label) in zip(predicted, dev)) / len(dev)
            self.assertAlmostEqual(accuracy, want, places=6)
            self.assertIn(1, batch["token_type_ids"].flatten().tolist())

    def test_lora_sequence_classification_round_trips_with_peft(self):
        """models.lora on a BERT classifier is peft's SEQ_CLS: query/value adapters, the
        classification head trained whole and saved beside them (modules_to_save). peft loads
        runner's adapters with runner's logits, and runner loads peft's."""
        try:
            import peft
        except ImportError:
            self.skipTest("peft is not installed")
        recipe = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(4, 64, {32, 8})
local model = models.lora(models.from_pretrained("pre", { num_labels = 3 }), { r = 4, alpha = 8 })
return {
  args = { output_dir = "out", max_steps = 6, learning_rate = 5e-3, per_device_train_batch_size = 8, report_to = "none",
           save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids:select(1, 1):remainder(3) } },
  model = model,
}
"""
        with TempDir() as d:
            torch.manual_seed(0)
            transformers.BertForPreTraining(small_config()).save_pretrained(os.path.join(d, "pre"))
            code, out, err = run(write(os.path.join(d, "train.lua"), recipe), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "adapter_config.json")) as f:
                config = json.load(f)
            self.assertEqual(config["task_type"], "SEQ_CLS")
            self.assertIn("classifier", config["modules_to_save"])
            self.assertEqual(sorted(config["target_modules"]), ["query", "value"])
            saved = read_safetensors(os.path.join(d, "out", "adapter_model.safetensors"))
            self.assertIn("base_model.model.classifier.weight", saved)
            self.assertFalse(any(".pooler." in n or "word_embeddings" in n for n in saved))
            # peft, from the base loaded with num_labels as a script does
            base = transformers.BertForSequenceClassification.from_pretrained(os.path.join(d, "pre"), num_labels=3)
            model = peft.PeftModel.from_pretrained(base, os.path.join(d, "out")).eval()
            logits, loss = self.runner_logits(d, "out")
            want_logits, want_loss = self.hf_logits(model)
            np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
            # merge-adapters writes what peft's merge_and_unload gives, head included
            code, _, err = run("merge-adapters", "out", "merged", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            merged = AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "merged")).eval()
            np.testing.assert_allclose(self.hf_logits(merged)[0], self.hf_logits(model.merge_and_unload())[0], rtol=1e-5, atol=1e-5)
            # and the reverse: peft's adapters with a trained-looking head
            torch.manual_seed(1)
            base = transformers.BertForSequenceClassification.from_pretrained(os.path.join(d, "pre"), num_labels=3)
            model = peft.get_peft_model(base, peft.LoraConfig(task_type="SEQ_CLS", r=4, lora_alpha=8, target_modules=["query", "value"],
                                                                init_lora_weights=False))
            with torch.no_grad():
                model.base_model.model.classifier.modules_to_save["default"].weight.normal_(0, 0.5)
            model.save_pretrained(os.path.join(d, "from_peft"))
            model.eval()
            logits, loss = self.runner_logits(d, "from_peft")
            want_logits, want_loss = self.hf_logits(model)
            np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(loss, want_loss, places=5)

    def test_roberta_folders(self):
        """RoBERTa: positions counted from pad_token_id + 1 over the real tokens, no pooler, the
        dense → tanh → out_proj head. A RobertaForSequenceClassification folder gives
        transformers' logits; a RobertaForMaskedLM's (roberta-base's shape) gets a new head,
        trains, and the output loads in transformers with runner's logits."""
        ids = [[0, 17, 40, 9, 33, 2, 1, 1], [0, 5, 61, 12, 2, 2, 44, 2]]  # <s> ... </s>, padded with 1
        roberta = lambda **kw: transformers.RobertaConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                          intermediate_size=48, max_position_embeddings=12, type_vocab_size=2, **kw)
        with TempDir() as d:
            torch.manual_seed(0)
            hf = transformers.RobertaForSequenceClassification(roberta(num_labels=3)).eval()
            hf.save_pretrained(os.path.join(d, "cls"))
            logits, loss = self.runner_logits(d, "cls", ids=ids)
            want_logits, want_loss = self.hf_logits(hf, ids=ids)
            np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(loss, want_loss, places=5)
            transformers.RobertaForMaskedLM(roberta()).save_pretrained(os.path.join(d, "mlm"))
            recipe = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(3, 64, {16, 8})
return {
  args = { output_dir = "out", max_steps = 4, learning_rate = 1e-3, per_device_train_batch_size = 8, report_to = "none", save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids:select(1, 1):remainder(3) } },
  model = models.from_pretrained("mlm", { num_labels = 3 }),
}
"""
            code, out, err = run(write(os.path.join(d, "train.lua"), recipe), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            self.assertEqual(set(read_safetensors(os.path.join(d, "out", "model.safetensors"))),
                             set(transformers.RobertaForSequenceClassification(roberta(num_labels=3)).state_dict()))
            hf = AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "out")).eval()
            self.assertEqual(type(hf).__name__, "RobertaForSequenceClassification")
            logits, loss = self.runner_logits(d, "out", ids=ids)
            want_logits, want_loss = self.hf_logits(hf, ids=ids)
            np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)

    def test_distilbert_folders_and_peft(self):
        """DistilBERT: a DistilBertForSequenceClassification folder gives transformers' logits;
        a DistilBertForMaskedLM's (distilbert-base-uncased's shape) gets a new
        pre_classifier/classifier, trains with LoRA as peft's SEQ_CLS (peft saves both heads: its
        suffix match), and peft loads the adapters with runner's logits."""
        try:
            import peft
        except ImportError:
            self.skipTest("peft is not installed")
        config = lambda **kw: transformers.DistilBertConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, hidden_dim=48,
                                                            max_position_embeddings=16, **kw)
        with TempDir() as d:
            torch.manual_seed(0)
            hf = transformers.DistilBertForSequenceClassification(config(num_labels=3, seq_classif_dropout=0.3)).eval()
            hf.save_pretrained(os.path.join(d, "cls"))
            logits, loss = self.runner_logits(d, "cls")
            with torch.no_grad():  # no token types in DistilBERT
                out = hf(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK), labels=torch.tensor([1, 0]))
            np.testing.assert_allclose(logits, out.logits.numpy(), rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(loss, float(out.loss), places=5)
            transformers.DistilBertForMaskedLM(config()).save_pretrained(os.path.join(d, "mlm"))
            recipe = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(4, 64, {16, 8})
return {
  args = { output_dir = "out", max_steps = 4, learning_rate = 5e-3, per_device_train_batch_size = 8, report_to = "none", save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids:select(1, 1):remainder(3) } },
  model = models.lora(models.from_pretrained("mlm", { num_labels = 3 }), { r = 4, alpha = 8 }),
}
"""
            code, out, err = run(write(os.path.join(d, "train.lua"), recipe), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            saved = read_safetensors(os.path.join(d, "out", "adapter_model.safetensors"))
            self.assertIn("base_model.model.pre_classifier.weight", saved)
            self.assertIn("base_model.model.classifier.weight", saved)
            base = transformers.DistilBertForSequenceClassification.from_pretrained(os.path.join(d, "mlm"), num_labels=3)
            model = peft.PeftModel.from_pretrained(base, os.path.join(d, "out")).eval()
            logits, loss = self.runner_logits(d, "out")
            with torch.no_grad():
                want = model(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK)).logits
            np.testing.assert_allclose(logits, want.numpy(), rtol=1e-5, atol=1e-5)

    def test_token_classification_folders(self):
        """BERT, RoBERTa and DistilBERT *ForTokenClassification folders: a label per token,
        transformers' logits and loss (labels of -100 ignored); a pretrained BERT's files (pooler
        and all) load under task = "token_classification" with a new classifier, and what the
        Trainer writes loads with AutoModelForTokenClassification."""
        labels = [[-100, 1, 2, 0, 2, -100, -100, -100], [-100, 0, 0, 1, -100, 2, 1, -100]]
        script = """local models = require "runner.models"
local m = models.from_pretrained("FOLDER")
local out = m{ input_ids = torch.tensor(IDS), attention_mask = torch.tensor(MASK), labels = torch.tensor(LABELS) }
local flat = out.logits:reshape(-1):double():tolist()
print("LOGITS " .. table.concat(flat, ","))
print("LOSS " .. string.format("%.9g", out.loss:item()))
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""
        def runner_token_logits(d, folder, ids):
            code, out, err = run("check", write(os.path.join(d, "t.lua"), script.replace("FOLDER", folder).replace("IDS", lua_list(ids))
                                                 .replace("MASK", lua_list(MASK)).replace("LABELS", lua_list(labels))), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            text = out + err
            return (np.array([float(x) for x in re.search(r"LOGITS (\S+)", text).group(1).split(",")]),
                    float(re.search(r"LOSS (\S+)", text).group(1)))

        roberta_ids = [[0, 17, 40, 9, 33, 2, 1, 1], [0, 5, 61, 12, 2, 2, 44, 2]]
        models = {
            "bert": (transformers.BertForTokenClassification, small_config(num_labels=3), IDS),
            "roberta": (transformers.RobertaForTokenClassification,
                        transformers.RobertaConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                   intermediate_size=48, max_position_embeddings=12, num_labels=3), roberta_ids),
            "distilbert": (transformers.DistilBertForTokenClassification,
                           transformers.DistilBertConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, hidden_dim=48,
                                                         max_position_embeddings=16, num_labels=3), IDS),
        }
        with TempDir() as d:
            for name, (cls, config, ids) in models.items():
                with self.subTest(model=name):
                    torch.manual_seed(0)
                    hf = cls(config).eval()
                    hf.save_pretrained(os.path.join(d, name))
                    logits, loss = runner_token_logits(d, name, ids)
                    with torch.no_grad():
                        want = hf(input_ids=torch.tensor(ids), attention_mask=torch.tensor(MASK), labels=torch.tensor(labels))
                    np.testing.assert_allclose(logits, want.logits.numpy().reshape(-1), rtol=1e-5, atol=1e-5)
                    self.assertAlmostEqual(loss, float(want.loss), places=5)
            torch.manual_seed(0)
            transformers.BertForPreTraining(small_config()).save_pretrained(os.path.join(d, "pre"))
            recipe = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(4, 64, {16, 8})
return {
  args = { output_dir = "out", max_steps = 4, learning_rate = 1e-3, per_device_train_batch_size = 8, report_to = "none", save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids:remainder(5) } },
  model = models.from_pretrained("pre", { num_labels = 5, task = "token_classification" }),
}
"""
            code, out, err = run(write(os.path.join(d, "train.lua"), recipe), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            hf = transformers.AutoModelForTokenClassification.from_pretrained(os.path.join(d, "out")).eval()
            self.assertEqual(type(hf).__name__, "BertForTokenClassification")
            logits, _ = runner_token_logits(d, "out", IDS)
            with torch.no_grad():
                want = hf(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK)).logits
            np.testing.assert_allclose(logits, want.numpy().reshape(-1), rtol=1e-5, atol=1e-5)

    def test_token_classification_recipe(self):
        """recipes/token_classification.lua as run_ner.py runs CoNLL-style data on a pretrained
        BERT folder: transformers, reading the output with the tokenizer it carries and
        aligning tags with word_ids() the same way, scores the validation file with runner's
        accuracy, and the tags keep their names."""
        source = os.environ["RUNNER_SOURCE_DIR"]
        with open(os.path.join(source, "recipes", "lib", "ner.jsonl")) as f:
            rows = [json.loads(line) for line in f]
        with TempDir() as d:
            for name, part in (("train.jsonl", rows[:180]), ("dev.jsonl", rows[180:])):
                write(os.path.join(d, name), "".join(json.dumps(r) + "\n" for r in part))
            pretrained_bert_folder(os.path.join(d, "bert"), [" ".join(r["tokens"]) for r in rows], lowercase=False, vocab_size=120)
            code, out, err = run(os.path.join(source, "recipes", "token_classification.lua"), "--model_dir", "bert", "--train_file", "train.jsonl",
                                 "--validation_file", "dev.jsonl", "--max_seq_length", "16", "--num_train_epochs", "2", "--learning_rate", "3e-3",
                                 "--output_dir", "out", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "eval_results.json")) as f:
                accuracy = json.load(f)["eval_accuracy"]
            hf = transformers.AutoModelForTokenClassification.from_pretrained(os.path.join(d, "out")).eval()
            self.assertEqual(hf.config.id2label[1], "B-PER")
            fast = transformers.PreTrainedTokenizerFast(tokenizer_file=os.path.join(d, "out", "tokenizer.json"), pad_token="[PAD]")
            right = total = 0
            for r in rows[180:]:
                enc = fast(r["tokens"], is_split_into_words=True, truncation=True, max_length=16, return_tensors="pt")
                with torch.no_grad():
                    predicted = hf(**enc).logits[0].argmax(-1).tolist()
                previous = None
                for i, w in enumerate(enc.word_ids()):
                    if w is not None and w != previous:
                        right += predicted[i] == r["ner_tags"][w]
                        total += 1
                    previous = w
            self.assertAlmostEqual(accuracy, right / total, places=6)

    def test_refusals(self):
        with TempDir() as d:
            torch.manual_seed(0)
            transformers.BertForSequenceClassification(small_config(hidden_act="gelu_new")).save_pretrained(os.path.join(d, "act"))
            transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=1, n_head=2)
                                         ).save_pretrained(os.path.join(d, "gpt2"))
            for folder, options, message in [("act", "", 'hidden_act "gelu_new" is not supported'),
                                             ("gpt2", ', { task = "token_classification" }', "num_labels, labels and task are for a classification model")]:
                with self.subTest(folder=folder):
                    script = (LOGITS.replace("FOLDER", folder).replace("OPTIONS", options).replace("IDS", lua_list(IDS))
                              .replace("MASK", lua_list(MASK)).replace("TYPES", lua_list(TYPES)))
                    code, out, err = run("check", write(os.path.join(d, "bad.lua"), script), cwd=d)
                    self.assertEqual(code, 2, err)
                    self.assertIn(message, err)


if __name__ == "__main__":
    unittest.main()
