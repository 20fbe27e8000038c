"""Encoders whose tokenizers are SentencePiece Unigram models, fine-tuned as run_glue.py
fine-tunes them: XLM-RoBERTa and ALBERT folders as the Hub ships them (an *ForMaskedLM body
beside a tokenizer.json that transformers' XLMRobertaTokenizer / AlbertTokenizer writes from a
Unigram model trained here by the sentencepiece package, with its nmt_nfkc charsmap).
recipes/text_classification.lua fine-tunes each (token_classification.lua, XLM-RoBERTa for
NER); transformers reads the output folder with the tokenizer it carries and gives runner's
ids, logits and accuracy. ALBERT LoRA adapters load in peft. ALBERT's shared layer groups
and CamemBERT give transformers' logits and loss. Exit 77 without transformers or
sentencepiece."""
import io
import json
import os
import re
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, run, write  # noqa: E402

try:
    import sentencepiece
    import torch
    import transformers
    from transformers.convert_slow_tokenizer import import_protobuf
except ImportError as e:
    print(f"SKIP: transformers or sentencepiece not installed ({e}); scripts/setup installs them")
    sys.exit(77)

transformers.logging.set_verbosity_error()
from test_bert_folder import lua_list  # noqa: E402
SOURCE = os.environ["RUNNER_SOURCE_DIR"]

# Prints, for each text, runner's ids and the model's logits on them.
SCORE = """
local data, models = require "runner.data", require "runner.models"
local tok = data.tokenizer("FOLDER/tokenizer.json")
local m = models.from_pretrained("FOLDER")
m:eval()
for _, text in ipairs(TEXTS) do
  local ids = tok(text).input_ids:view(1, -1)
  local out = m{ input_ids = ids, attention_mask = torch.ones_like(ids) }
  print("SCORE [" .. table.concat(ids:view(-1):tolist(), ",") .. "] [" .. table.concat(out.logits:view(-1):double():tolist(), ",") .. "]")
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

# Prints the logits and loss of FOLDER's model on IDS, and its type.
LOGITS = """
local models = require "runner.models"
local m = models.from_pretrained("FOLDER")
m:eval()
local ids = torch.tensor(IDS)
local out = m{ input_ids = ids, attention_mask = ids:ne(PAD):long(), labels = LABELS }
print("LOGITS " .. table.concat(out.logits:double():view(-1):tolist(), ","))
print("LOSS " .. string.format("%.9g", out.loss:item()))
print("TYPE " .. tostring(m):match("^[%w_]+"))
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""


def train_unigram(texts, **options):
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(texts), model_writer=model, model_type="unigram", vocab_size=300,
                                             normalization_rule_name="nmt_nfkc", hard_vocab_limit=False, minloglevel=2, **options)
    proto = import_protobuf().ModelProto()
    proto.ParseFromString(model.getvalue())
    return proto


def xlmr_folder(path, texts):
    """A small random XLMRobertaForMaskedLM (xlm-roberta-base's files) with its Unigram tokenizer."""
    proto = train_unigram(texts)
    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + [(p.piece, p.score) for p in proto.pieces[3:]] + [("<mask>", 0.0)]
    transformers.XLMRobertaTokenizer(vocab=vocab, _spm_precompiled_charsmap=proto.normalizer_spec.precompiled_charsmap).save_pretrained(path)
    torch.manual_seed(0)
    config = transformers.XLMRobertaConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                           intermediate_size=64, max_position_embeddings=64, type_vocab_size=1)
    transformers.XLMRobertaForMaskedLM(config).save_pretrained(path)


def albert_folder(path, texts):
    """A small random AlbertForMaskedLM (albert-base-v2's files, no pooler) with its Unigram
    tokenizer: <pad> 0, <unk> 1, [CLS] [SEP] [MASK]; lowercased, accents stripped."""
    proto = train_unigram(texts, pad_id=0, unk_id=1, bos_id=-1, eos_id=-1, control_symbols=["[CLS]", "[SEP]", "[MASK]"])
    vocab = [(p.piece, p.score) for p in proto.pieces]
    transformers.AlbertTokenizer(vocab=vocab, _spm_precompiled_charsmap=proto.normalizer_spec.precompiled_charsmap).save_pretrained(path)
    torch.manual_seed(0)
    config = transformers.AlbertConfig(vocab_size=len(vocab), embedding_size=16, hidden_size=32, num_hidden_layers=3, num_hidden_groups=2,
                                       inner_group_num=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=64)
    transformers.AlbertForMaskedLM(config).save_pretrained(path)


def varied(sentence, i):
    """Rows in forms the normalizers rewrite: full-width letters, ligatures, NBSP, accents, case."""
    return [sentence, sentence.replace("film", "ｆｉｌｍ").replace("fi", "ﬁ"), sentence.replace(" ", "\u00a0", 1) + " Café"][i % 3]


class SentencePieceEncoders(unittest.TestCase):
    def fine_tune_and_compare(self, make_folder, architecture, plain_twin):
        """recipes/text_classification.lua on `make_folder`'s folder; transformers scores the
        output with runner's accuracy, and each text alone with runner's ids and logits."""
        with TempDir() as d:
            with open(os.path.join(SOURCE, "recipes", "lib", "sentiment.jsonl")) as f:
                rows = [json.loads(line) for line in f]
            rows = [dict(r, sentence=varied(r["sentence"], i)) for i, r in enumerate(rows)]
            for name, part in (("train.jsonl", rows[:200]), ("dev.jsonl", rows[200:])):
                write(os.path.join(d, name), "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in part))
            make_folder(os.path.join(d, "base"), [r["sentence"] for r in rows])
            recipe = os.path.join(SOURCE, "recipes", "text_classification.lua")
            code, out, err = run(recipe, "--model_dir", "base", "--train_file", "train.jsonl", "--validation_file", "dev.jsonl",
                                 "--max_seq_length", "32", "--num_train_epochs", "2", "--learning_rate", "1e-3", "--output_dir", "out", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "eval_results.json")) as f:
                accuracy = json.load(f)["eval_accuracy"]
            hf = transformers.AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "out")).eval()
            self.assertEqual(type(hf).__name__, architecture)
            tok = transformers.AutoTokenizer.from_pretrained(os.path.join(d, "out"))
            dev = rows[200:]
            batch = tok([r["sentence"] for r in dev], truncation=True, max_length=32, padding=True, return_tensors="pt")
            with torch.no_grad():
                predicted = hf(**batch).logits.argmax(-1).tolist()
            want = sum(hf.config.id2label[p] == r["label"] for p, r in zip(predicted, dev)) / len(dev)
            self.assertAlmostEqual(accuracy, want, places=6)
            full_width = "The ｆｉｌｍ is ﬁne\u00a0and ① café ™"
            texts = [r["sentence"] for r in dev[:6]] + [full_width, "Ｔｈｅ ｅｎｄｉｎｇ ｗａｓ ｃｈａｒｍｉｎｇ"]
            script = SCORE.replace("FOLDER", "out").replace("TEXTS", "{ " + ", ".join(json.dumps(t, ensure_ascii=False) for t in texts) + " }")
            code, out, err = run("check", write(os.path.join(d, "score.lua"), script), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            scores = re.findall(r"SCORE (\[.*?\]) (\[.*\])$", out + err, re.M)
            self.assertEqual(len(scores), len(texts), out + err)
            for text, (got_ids, got_logits) in zip(texts, scores):
                ids = tok(text)["input_ids"]
                self.assertEqual(json.loads(got_ids), ids, text)
                with torch.no_grad():
                    want_logits = hf(input_ids=torch.tensor([ids])).logits[0].numpy()
                np.testing.assert_allclose(json.loads(got_logits), want_logits, rtol=1e-4, atol=1e-5)
            # The charsmap (and ALBERT's lowercasing and accent stripping) made these the same text.
            self.assertEqual(tok(full_width)["input_ids"], tok(plain_twin)["input_ids"])

    def runner_logits(self, d, folder, ids, labels, pad):
        script = (LOGITS.replace("FOLDER", folder).replace("IDS", lua_list(ids)).replace("PAD", str(pad))
                  .replace("LABELS", "torch.tensor(" + (lua_list(labels) if isinstance(labels[0], list) else "{ " + ", ".join(map(str, labels)) + " }") + ")"))
        code, out, err = run("check", write(os.path.join(d, "logits.lua"), script), cwd=d)
        self.assertEqual(code, 0, err[-3000:])
        text = out + err
        logits = [float(x) for x in re.search(r"LOGITS (.*)$", text, re.M).group(1).split(",")]
        return np.array(logits), float(re.search(r"LOSS (\S+)", text).group(1)), re.search(r"TYPE (\S+)", text).group(1)

    def assert_same_as(self, d, hf, ids, labels, pad):
        hf.save_pretrained(os.path.join(d, "folder"))
        logits, loss, kind = self.runner_logits(d, "folder", ids, labels, pad)
        with torch.no_grad():
            want = hf(input_ids=torch.tensor(ids), attention_mask=torch.tensor(ids).ne(pad).long(), labels=torch.tensor(labels))
        np.testing.assert_allclose(logits, want.logits.numpy().reshape(-1), rtol=1e-5, atol=1e-5)
        self.assertAlmostEqual(loss, float(want.loss), places=5)
        self.assertEqual(kind, type(hf).__name__)

    def test_text_classification_recipe_on_an_xlm_roberta_folder(self):
        self.fine_tune_and_compare(xlmr_folder, "XLMRobertaForSequenceClassification", "The film is fine and 1 café TM")

    def test_text_classification_recipe_on_an_albert_folder(self):
        self.fine_tune_and_compare(albert_folder, "AlbertForSequenceClassification", "the film is fine and 1 cafe tm")

    def test_token_classification_recipe_on_an_xlm_roberta_folder(self):
        """recipes/token_classification.lua (run_ner.py) on an XLM-RoBERTa folder: each word
        encoded alone gets its own "▁"; transformers, aligning tags with word_ids() the same
        way, scores the output with runner's accuracy."""
        with open(os.path.join(SOURCE, "recipes", "lib", "ner.jsonl")) as f:
            rows = [json.loads(line) for line in f]
        with TempDir() as d:
            for name, part in (("train.jsonl", rows[:180]), ("dev.jsonl", rows[180:])):
                write(os.path.join(d, name), "".join(json.dumps(r) + "\n" for r in part))
            xlmr_folder(os.path.join(d, "xlmr"), [" ".join(r["tokens"]) for r in rows])
            code, out, err = run(os.path.join(SOURCE, "recipes", "token_classification.lua"), "--model_dir", "xlmr", "--train_file", "train.jsonl",
                                 "--validation_file", "dev.jsonl", "--max_seq_length", "24", "--num_train_epochs", "2", "--learning_rate", "3e-3",
                                 "--output_dir", "out", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "eval_results.json")) as f:
                accuracy = json.load(f)["eval_accuracy"]
            hf = transformers.AutoModelForTokenClassification.from_pretrained(os.path.join(d, "out")).eval()
            self.assertEqual(type(hf).__name__, "XLMRobertaForTokenClassification")
            tok = transformers.AutoTokenizer.from_pretrained(os.path.join(d, "out"))
            right = total = 0
            for r in rows[180:]:
                enc = tok(r["tokens"], is_split_into_words=True, truncation=True, max_length=24, return_tensors="pt")
                with torch.no_grad():
                    predicted = hf(**enc).logits[0].argmax(-1).tolist()
                previous = None
                for i, w in enumerate(enc.word_ids()):
                    if w is not None and w != previous:
                        right += predicted[i] == r["ner_tags"][w]
                        total += 1
                    previous = w
            self.assertAlmostEqual(accuracy, right / total, places=6)

    def test_albert_shared_layer_groups_give_transformers_logits(self):
        """Three layers over two groups of two layers each (steps 0, 1 run group 0, step 2 group 1),
        a factorised embedding, gelu_new; sequence and token classification."""
        ids = [[2, 17, 40, 9, 33, 3, 0, 0], [2, 21, 61, 12, 3, 44, 8, 3]]
        config = dict(vocab_size=64, embedding_size=16, hidden_size=32, num_hidden_layers=3, num_hidden_groups=2, inner_group_num=2,
                      num_attention_heads=4, intermediate_size=48, max_position_embeddings=16, hidden_dropout_prob=0.1,
                      classifier_dropout_prob=0.2, num_labels=3)
        with TempDir() as d:
            torch.manual_seed(0)
            self.assert_same_as(d, transformers.AlbertForSequenceClassification(transformers.AlbertConfig(**config)).eval(), ids, [2, 0], 0)
            labels = [[0, 1, 2, 1, -100, 0, -100, -100], [2, 2, 0, 1, 1, 0, 2, -100]]
            self.assert_same_as(d, transformers.AlbertForTokenClassification(transformers.AlbertConfig(**config)).eval(), ids, labels, 0)

    def test_albert_lora_adapters_load_in_peft(self):
        """LoRA on ALBERT's shared query/value layers (peft has no default targets for ALBERT:
        runner asks for them too); peft loads the adapters and the trained head with runner's
        logits, and merge-adapters gives merge_and_unload's model."""
        import peft
        ids = [[2, 17, 40, 9, 33, 3, 0, 0], [2, 21, 61, 12, 3, 44, 8, 3]]
        recipe = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(4, 64, {32, 8})
local model = models.lora(models.from_pretrained("pre", { num_labels = 3 }), { r = 4, alpha = 8 TARGETS })
return {
  args = { output_dir = "out", max_steps = 6, learning_rate = 5e-3, per_device_train_batch_size = 8, report_to = "none", save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids:select(1, 1):remainder(3) } },
  model = model,
}
"""
        with TempDir() as d:
            torch.manual_seed(0)
            config = transformers.AlbertConfig(vocab_size=64, embedding_size=16, hidden_size=32, num_hidden_layers=3, num_hidden_groups=2,
                                               inner_group_num=2, num_attention_heads=4, intermediate_size=48, max_position_embeddings=16)
            transformers.AlbertForPreTraining(config).save_pretrained(os.path.join(d, "pre"))
            code, out, err = run(write(os.path.join(d, "none.lua"), recipe.replace("TARGETS", "")), cwd=d)
            self.assertEqual(code, 2)
            self.assertIn("give target_modules", err)
            code, out, err = run(write(os.path.join(d, "train.lua"), recipe.replace("TARGETS", ', target_modules = { "query", "value" }')), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            base = transformers.AlbertForSequenceClassification.from_pretrained(os.path.join(d, "pre"), num_labels=3)
            model = peft.PeftModel.from_pretrained(base, os.path.join(d, "out")).eval()
            logits, loss, _ = self.runner_logits(d, "out", ids, [2, 0], 0)
            with torch.no_grad():
                want = model(input_ids=torch.tensor(ids), attention_mask=torch.tensor(ids).ne(0).long(), labels=torch.tensor([2, 0]))
            np.testing.assert_allclose(logits, want.logits.numpy().reshape(-1), rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(loss, float(want.loss), places=5)
            code, _, err = run("merge-adapters", "out", "merged", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            merged = transformers.AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "merged")).eval()
            with torch.no_grad():
                np.testing.assert_allclose(merged(input_ids=torch.tensor(ids)).logits.numpy(),
                                           model.merge_and_unload()(input_ids=torch.tensor(ids)).logits.numpy(), rtol=1e-5, atol=1e-5)

    def test_camembert_folder_gives_transformers_logits(self):
        ids = [[5, 17, 40, 9, 33, 6, 1, 1], [5, 21, 61, 12, 6, 6, 44, 6]]
        with TempDir() as d:
            torch.manual_seed(0)
            config = transformers.CamembertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                  intermediate_size=48, max_position_embeddings=16, num_labels=3)
            self.assert_same_as(d, transformers.CamembertForSequenceClassification(config).eval(), ids, [2, 0], 1)


if __name__ == "__main__":
    unittest.main()
