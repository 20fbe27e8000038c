"""Reward modelling as TRL's RewardTrainer does it, checked against transformers and TRL
themselves: models.llama{num_labels} and from_pretrained's Llama classifiers give the logits and
loss of transformers' LlamaForSequenceClassification (each row scored at its last token that is
not the pad id) and save folders transformers and peft load; data.reward_pairs' chosen/rejected
ids equal RewardTrainer's prepared dataset (text rows with and without a prompt, chat rows,
margins, the max_length filter); data.reward_collator's batches equal its collator's;
models.reward_loss's loss and metrics equal RewardTrainer.compute_loss's, logged by the Trainer in
training and evaluation, on 2 ranks as in 1 process; bad input is one clear line. Exit 77
(skipped) without transformers/trl/peft."""
import json
import math
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, RecipeTest, check_one_line_errors, run, tagged as lines, write, write_jsonl  # noqa: E402

try:
    import torch
    from datasets import Dataset
    from peft import PeftModel
    from transformers import AutoModelForSequenceClassification, LlamaConfig, LlamaForCausalLM, LlamaForSequenceClassification, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging
    from trl import RewardConfig, RewardTrainer
    from tokenizer_shapes import model_folder, sentencepiece  # noqa: E402
except ImportError as e:
    print(f"SKIP: transformers/trl/peft not installed ({e}); scripts/setup installs them")
    sys.exit(77)

hf_logging.set_verbosity_error()
CHATML = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
TEXT_ROWS = [
    {"prompt": "What is 17 plus 39?", "chosen": " 56", "rejected": " 66"},
    {"prompt": "Finish the word: th", "chosen": "e end", "rejected": "ing</s>"},
    {"prompt": "  Spaces,\n\nnew lines ", "chosen": "and ½ € 東京 🙂", "rejected": "no"},
    {"prompt": "Name a colour.", "chosen": " Blue, the colour of the sky and of the sea on a clear day.", "rejected": " Green."},
]
IMPLICIT_ROWS = [{"chosen": "The sky is blue.", "rejected": "The sky is green."}, {"chosen": "Same words café", "rejected": "Same"}]
MARGIN_ROWS = [dict(r, margin=m) for r, m in zip(TEXT_ROWS, (0.5, 0.0, -1.25, 2.0))]
CHAT_ROWS = [
    {"prompt": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi"}],
     "chosen": [{"role": "assistant", "content": "Hi!"}], "rejected": [{"role": "assistant", "content": "Good day to you, dear user."}]},
    {"prompt": [{"role": "user", "content": "2+2?"}], "chosen": [{"role": "assistant", "content": "4"}],
     "rejected": [{"role": "assistant", "content": "5"}]},
]
IMPLICIT_CHAT = [{"chosen": [{"role": "user", "content": "Colour?"}, {"role": "assistant", "content": "Blue"}],
                  "rejected": [{"role": "user", "content": "Colour?"}, {"role": "assistant", "content": "Red"}]}]

# Prints each example's ids (and margin) as JSON lines.
DUMP = """local data = require "runner.data"
local ds = data.reward_pairs{ path = "%s", tokenizer = "rm/tokenizer.json", max_length = %d }
local function list(t) local o = {} for i = 0, t:size(0) - 1 do o[#o + 1] = t:select(0, i):item() end return "[" .. table.concat(o, ",") .. "]" end
for i = 0, #ds - 1 do
  local e = ds:get(i)
  print("EXAMPLE " .. list(e.chosen_ids) .. " " .. list(e.rejected_ids) .. " " .. (e.margin and string.format("%%.17g", e.margin:item()) or "null"))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

# Prints the collated batch, then the loss and metrics of each option set.
LOSSES = """local data, models = require "runner.data", require "runner.models"
local function rows(t) local o = {} for b = 0, t:size(0) - 1 do local r = {} for i = 0, t:size(1) - 1 do r[#r + 1] = t:select(0, b):select(0, i):item() end o[#o + 1] = "[" .. table.concat(r, ",") .. "]" end return "[" .. table.concat(o, ",") .. "]" end
local model = models.from_pretrained("rm", { pad_token_id = 2 })
for _, spec in ipairs{ { "text.jsonl", {} }, { "margin.jsonl", {} }, { "text.jsonl", { center_rewards_coefficient = 0.25 } } } do
  local ds = data.reward_pairs{ path = spec[1], tokenizer = "rm/tokenizer.json" }
  local examples = {}
  for i = 0, #ds - 1 do examples[#examples + 1] = ds:get(i) end
  local b = data.reward_collator{ tokenizer = "rm/tokenizer.json", pad_to_multiple_of = %d }(examples)  -- its pad token
  print("BATCH " .. rows(b.input_ids) .. " " .. rows(b.attention_mask))
  local loss, outputs, metrics = models.reward_loss(spec[2])(model, b)
  local parts = { string.format("%%q:%%.17g", "loss", loss:item()) }
  for k, v in pairs(metrics) do parts[#parts + 1] = string.format("%%q:%%.17g", k, v:item()) end
  print("LOSS {" .. table.concat(parts, ",") .. "}")
  print("LOGITS " .. rows(outputs.logits))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

TRAIN = """local data, models = require "runner.data", require "runner.models"
local ds = data.reward_pairs{ path = "%s", tokenizer = "rm/tokenizer.json" }
return {
  args = { output_dir = "%s", max_steps = %d, learning_rate = %s, per_device_train_batch_size = %d, logging_steps = 1, save_steps = 100,
           report_to = "none", eval_strategy = "steps", eval_steps = %d, per_device_eval_batch_size = 4, seed = 7 },
  datasets = { train = ds, eval = ds },
  data_collator = data.reward_collator{ pad_token_id = 2 },
  model = %s,
  compute_loss = models.reward_loss{ %s },
}
"""

# A classifier's logits (and loss) on a padded batch, written as JSON.
CLASSIFY = """local models = require "runner.models"
local m = %s
m:eval()
local ids = torch.tensor({ { 5, 9, 17, 33, 2, 2 }, { 7, 8, 2, 2, 2, 2 }, { 2, 11, 12, 13, 14, 15 } }):long()
local batch = { input_ids = ids, attention_mask = ids:ne(2):long(), labels = %s }
local out = m(batch)
local function rows(t) local o = {} for b = 0, t:size(0) - 1 do local r = {} for i = 0, t:size(1) - 1 do r[#r + 1] = string.format("%%.17g", t:select(0, b):select(0, i):item()) end o[#o + 1] = "[" .. table.concat(r, ",") .. "]" end return "[" .. table.concat(o, ",") .. "]" end
print("LOGITS " .. rows(out.logits))
if out.loss then print("LOSS " .. string.format("%%.17g", out.loss:item())) end
return { datasets = { train = require("runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""
IDS = [[5, 9, 17, 33, 2, 2], [7, 8, 2, 2, 2, 2], [2, 11, 12, 13, 14, 15]]


def close(a, b, rel=2e-4, abs_=2e-5):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


class RewardTest(RecipeTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        d = cls.tmp
        tok = sentencepiece("llama2", ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"], bos="<s>")
        config = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "</s>", "chat_template": CHATML}
        cls.llama = dict(vocab_size=tok.get_vocab_size(), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, max_position_embeddings=128, bos_token_id=1, eos_token_id=2)
        # A causal LM (the usual start of a reward model) and a 3-class classifier, both with the tokenizer.
        torch.manual_seed(0)
        LlamaForCausalLM(LlamaConfig(**cls.llama)).save_pretrained(model_folder(d, "lm", tok, config))
        torch.manual_seed(1)
        rm = LlamaForSequenceClassification(LlamaConfig(**cls.llama, num_labels=1, pad_token_id=2))
        rm.save_pretrained(model_folder(d, "rm", tok, config))
        torch.manual_seed(2)
        LlamaForSequenceClassification(LlamaConfig(**cls.llama, num_labels=3, pad_token_id=2, id2label={0: "neg", 1: "neutral", 2: "pos"})
                                       ).save_pretrained(os.path.join(d, "cls3"))
        for name, rows in (("text", TEXT_ROWS), ("implicit", IMPLICIT_ROWS), ("margin", MARGIN_ROWS), ("chat", CHAT_ROWS), ("implicit_chat", IMPLICIT_CHAT)):
            write_jsonl(os.path.join(d, name + ".jsonl"), rows)
        cls.tokenizer = PreTrainedTokenizerFast.from_pretrained(os.path.join(d, "rm"))

    def trl(self, rows, model="rm", **config):
        """A RewardTrainer on `rows` (fp32 on the CPU: runner's defaults)."""
        args = RewardConfig(output_dir=os.path.join(self.tmp, "trl"), report_to=[], bf16=False, gradient_checkpointing=False, use_cpu=True,
                            per_device_train_batch_size=len(rows), **config)
        m = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, model), num_labels=1)
        return RewardTrainer(model=m, args=args, train_dataset=Dataset.from_list(rows), processing_class=self.tokenizer)

    def trl_loss(self, trainer):
        """TRL's loss and metrics on every row of its training set as one batch, with its batch and logits."""
        ds = trainer.train_dataset
        batch = trainer.data_collator([ds[i] for i in range(len(ds))])
        trainer.model.train()
        trainer._metrics["train"].clear()
        with torch.no_grad():
            loss, outputs = trainer.compute_loss(trainer.model, dict(batch), return_outputs=True)
        metrics = {k: sum(v) / len(v) for k, v in trainer._metrics["train"].items() if k != "num_tokens"}
        return {"loss": loss.item(), **metrics}, batch, outputs.logits

    def classify(self, model_lua, labels_lua="nil"):
        code, out, err = run("check", write(os.path.join(self.tmp, "classify.lua"), CLASSIFY % (model_lua, labels_lua)), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        return json.loads(lines(err, "LOGITS")[0]), float(lines(err, "LOSS")[0]) if lines(err, "LOSS") else None

    def test_llama_classifier_equals_transformers(self):
        ids = torch.tensor(IDS)
        # A 3-class folder: runner's logits and cross-entropy are transformers'; the third row starts
        # with the pad id (it is scored at its last token, as transformers scores it).
        hf = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "cls3")).eval()
        with torch.no_grad():
            want = hf(input_ids=ids, attention_mask=ids.ne(2).long(), labels=torch.tensor([2, 0, 1]))
        got, loss = self.classify('models.from_pretrained("cls3")', "torch.tensor({ 2, 0, 1 }):long()")
        torch.testing.assert_close(torch.tensor(got), want.logits, rtol=1e-5, atol=1e-6)
        self.assertTrue(close(loss, want.loss.item(), 1e-5, 1e-6))
        # Regression (num_labels 1, float labels: MSE) and multi-label (float labels over 3 classes: BCE).
        rm = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "rm")).eval()
        with torch.no_grad():
            want = rm(input_ids=ids, attention_mask=ids.ne(2).long(), labels=torch.tensor([0.5, -1.0, 2.0]))
        got, loss = self.classify('models.from_pretrained("rm")', "torch.tensor({ 0.5, -1.0, 2.0 }):float()")
        torch.testing.assert_close(torch.tensor(got), want.logits, rtol=1e-5, atol=1e-6)
        self.assertTrue(close(loss, want.loss.item(), 1e-5, 1e-6))
        multi = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
        hf = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "cls3")).eval()  # its first loss fixed problem_type
        with torch.no_grad():
            want = hf(input_ids=ids, attention_mask=ids.ne(2).long(), labels=multi)
        _, loss = self.classify('models.from_pretrained("cls3")', "torch.tensor({ { 1, 0, 1 }, { 0, 0, 1 }, { 0, 1, 0 } }):float()")
        self.assertTrue(close(loss, want.loss.item(), 1e-5, 1e-6))
        # A causal LM's folder as a reward model (a new score, the lm_head dropped), and
        # models.llama{num_labels, labels}: saved by the Trainer (learning rate 0), transformers loads
        # them with runner's logits and names.
        for name, lua in (("from_lm", 'models.from_pretrained("lm", { num_labels = 1, pad_token_id = 2 })'),
                          ("made", 'models.llama{ vocab_size = %d, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2, num_attention_heads = 4, '
                                   'num_key_value_heads = 2, pad_token_id = 2, id2label = { "bad", "good" } }' % self.llama["vocab_size"])):
            with self.subTest(model=name):
                script = TRAIN % ("text.jsonl", name, 1, "0.0", 2, 1, lua, "")
                if name == "made":  # two classes: trained on class labels, not as a reward model
                    script = script.replace("compute_loss = models.reward_loss{  },", "").replace(
                        'data.reward_collator{ pad_token_id = 2 }', 'function(examples) local b = data.reward_collator{ pad_token_id = 2 }(examples) '
                        'b.labels = torch.zeros(b.input_ids:size(0)):long() return b end')
                code, out, err = run(write(os.path.join(self.tmp, name + ".lua"), script), cwd=self.tmp)
                self.assertEqual(code, 0, err[-3000:])
                got, _ = self.classify('models.from_pretrained("%s")' % name)
                loaded = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, name)).eval()
                self.assertEqual(type(loaded).__name__, "LlamaForSequenceClassification")
                self.assertEqual(loaded.config.pad_token_id, 2)
                if name == "made":
                    self.assertEqual(loaded.config.id2label, {0: "bad", 1: "good"})
                with torch.no_grad():
                    torch.testing.assert_close(loaded(input_ids=ids, attention_mask=ids.ne(2).long()).logits, torch.tensor(got), rtol=1e-5, atol=1e-6)
        # The body of the causal LM is loaded unchanged: the same hidden states as transformers'.
        lm = LlamaForCausalLM.from_pretrained(os.path.join(self.tmp, "lm"))
        saved = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "from_lm"))
        for k, v in lm.model.state_dict().items():
            torch.testing.assert_close(saved.model.state_dict()[k], v, msg=k)

    def test_gpt2_classifier_equals_transformers(self):
        # GPT-2's GPT2ForSequenceClassification, right-padded rows (runner's GPT-2 reads no
        # attention_mask; left padding is not supported for it).
        from transformers import GPT2Config, GPT2ForSequenceClassification, GPT2LMHeadModel
        gpt = dict(vocab_size=self.llama["vocab_size"], n_positions=64, n_embd=32, n_layer=2, n_head=4, bos_token_id=1, eos_token_id=2)
        torch.manual_seed(3)
        GPT2ForSequenceClassification(GPT2Config(**gpt, num_labels=3, pad_token_id=2)).save_pretrained(os.path.join(self.tmp, "gpt_cls3"))
        torch.manual_seed(4)
        GPT2LMHeadModel(GPT2Config(**gpt)).save_pretrained(os.path.join(self.tmp, "gpt_lm"))
        ids = torch.tensor(IDS[:2])
        two_rows = CLASSIFY.replace("{ 2, 11, 12, 13, 14, 15 } }", "}")
        code, out, err = run("check", write(os.path.join(self.tmp, "gpt.lua"), two_rows % ('models.from_pretrained("gpt_cls3")', "torch.tensor({ 2, 0 }):long()")),
                             cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        hf = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "gpt_cls3")).eval()
        with torch.no_grad():
            want = hf(input_ids=ids, attention_mask=ids.ne(2).long(), labels=torch.tensor([2, 0]))
        torch.testing.assert_close(torch.tensor(json.loads(lines(err, "LOGITS")[0])), want.logits, rtol=1e-5, atol=1e-6)
        self.assertTrue(close(float(lines(err, "LOSS")[0]), want.loss.item(), 1e-5, 1e-6))
        # A GPT-2 LM's folder as a reward model, and models.gpt{num_labels}: trained a step at learning
        # rate 0 and saved, transformers loads them with runner's logits.
        for name, lua in (("gpt_rm", 'models.from_pretrained("gpt_lm", { num_labels = 1, pad_token_id = 2 })'),
                          ("gpt_made", 'models.gpt{ vocab_size = %d, block_size = 64, n_layer = 2, n_head = 4, n_embd = 32, num_labels = 1, pad_token_id = 2 }'
                           % self.llama["vocab_size"])):
            with self.subTest(model=name):
                code, out, err = run(write(os.path.join(self.tmp, name + ".lua"), TRAIN % ("text.jsonl", name, 1, "0.0", 2, 1, lua, "")), cwd=self.tmp)
                self.assertEqual(code, 0, err[-3000:])
                code, out, err = run("check", write(os.path.join(self.tmp, "gpt.lua"), two_rows % ('models.from_pretrained("%s")' % name, "nil")), cwd=self.tmp)
                self.assertEqual(code, 0, err[-3000:])
                loaded = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, name)).eval()
                self.assertEqual((type(loaded).__name__, loaded.config.pad_token_id), ("GPT2ForSequenceClassification", 2))
                with torch.no_grad():
                    torch.testing.assert_close(loaded(input_ids=ids, attention_mask=ids.ne(2).long()).logits,
                                               torch.tensor(json.loads(lines(err, "LOGITS")[0])), rtol=1e-5, atol=1e-6)
        lm = GPT2LMHeadModel.from_pretrained(os.path.join(self.tmp, "gpt_lm"))
        saved = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "gpt_rm"))
        for k, v in lm.transformer.state_dict().items():
            if not k.endswith(".attn.bias"):
                torch.testing.assert_close(saved.transformer.state_dict()[k], v, msg=k)

    def dump(self, name, max_length=1024):
        code, out, err = run("check", write(os.path.join(self.tmp, "dump.lua"), DUMP % (name + ".jsonl", max_length)), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        return [[json.loads(x) for x in l.split(" ")] for l in lines(err, "EXAMPLE")]

    def test_examples_equal_trl_prepared_dataset(self):
        for name, rows in (("text", TEXT_ROWS), ("implicit", IMPLICIT_ROWS), ("margin", MARGIN_ROWS), ("chat", CHAT_ROWS),
                           ("implicit_chat", IMPLICIT_CHAT)):
            with self.subTest(rows=name):
                want = [[r["chosen_ids"], r["rejected_ids"], r.get("margin")] for r in self.trl(rows).train_dataset]
                self.assertEqual(self.dump(name), want)
        # max_length: a pair with a side of more than max_length tokens is left out, as TRL leaves it out.
        short = self.trl(TEXT_ROWS, max_length=12).train_dataset
        self.assertLess(len(short), len(TEXT_ROWS))
        self.assertGreater(len(short), 0)
        self.assertEqual(self.dump("text", 12), [[r["chosen_ids"], r["rejected_ids"], None] for r in short])
        # The same rows from a Parquet file, the margin a float column.
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.Table.from_pylist(MARGIN_ROWS), os.path.join(self.tmp, "margin.parquet"))
        script = DUMP.replace('path = "%s"', 'dataset = data.parquet("%s")') % ("margin.parquet", 1024)
        code, out, err = run("check", write(os.path.join(self.tmp, "dump_parquet.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        self.assertEqual([[json.loads(x) for x in l.split(" ")] for l in lines(err, "EXAMPLE")], self.dump("margin"))

    def test_collator_and_loss_equal_trl(self):
        for multiple in (0, 8):
            code, out, err = run("check", write(os.path.join(self.tmp, "losses.lua"), LOSSES % multiple), cwd=self.tmp)
            self.assertEqual(code, 0, err[-3000:])
            batches, losses, logits = lines(err, "BATCH"), [json.loads(l) for l in lines(err, "LOSS")], lines(err, "LOGITS")
            for i, (rows, config) in enumerate(((TEXT_ROWS, {}), (MARGIN_ROWS, {}), (TEXT_ROWS, {"center_rewards_coefficient": 0.25}))):
                with self.subTest(case=i, pad_to_multiple_of=multiple):
                    want, batch, want_logits = self.trl_loss(self.trl(rows, pad_to_multiple_of=multiple or None, **config))
                    ids, mask = (json.loads(x) for x in batches[i].split(" "))
                    self.assertEqual(ids, batch["input_ids"].tolist())
                    self.assertEqual(mask, batch["attention_mask"].tolist())
                    torch.testing.assert_close(torch.tensor(json.loads(logits[i])), want_logits, rtol=1e-5, atol=1e-6)
                    self.assertEqual(set(losses[i]), set(want))
                    for k, v in want.items():
                        self.assertTrue(close(losses[i][k], v), f"{k}: runner {losses[i][k]}, TRL {v}")

    def test_trainer_logs_trl_metrics(self):
        # Learning rate 0: the step's logged loss and metrics, and the evaluation's, are the batch's.
        script = TRAIN % ("margin.jsonl", "out_log", 1, "0.0", 4, 1, 'models.from_pretrained("rm")', "center_rewards_coefficient = 0.01")
        code, out, err = run(write(os.path.join(self.tmp, "train.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        with open(os.path.join(self.tmp, "out_log", "trainer_state.json")) as f:
            history = json.load(f)["log_history"]
        want, _, _ = self.trl_loss(self.trl(MARGIN_ROWS, center_rewards_coefficient=0.01))
        train, evaluation = history[0], history[1]
        for k, v in want.items():
            self.assertTrue(close(train[k], v), f"{k}: runner {train[k]}, TRL {v}")
            self.assertTrue(close(evaluation["eval_" + k], v), f"eval_{k}: runner {evaluation['eval_' + k]}, TRL {v}")
        # Trained a few steps, the reward model saved loads in transformers with its pad id.
        script = TRAIN % ("text.jsonl", "out_trained", 6, "1e-2", 2, 6, 'models.from_pretrained("lm", { num_labels = 1, pad_token_id = 2 })', "")
        code, out, err = run(write(os.path.join(self.tmp, "trained.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        with open(os.path.join(self.tmp, "out_trained", "trainer_state.json")) as f:
            history = json.load(f)["log_history"]
        self.assertGreater(history[-2]["eval_accuracy"], 0.5)  # it learned to prefer the chosen completions
        loaded = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "out_trained"))
        self.assertEqual((type(loaded).__name__, loaded.config.num_labels, loaded.config.pad_token_id), ("LlamaForSequenceClassification", 1, 2))

    def test_lora_reward_model_loads_in_peft(self):
        # LoRA on a classifier: peft's SEQ_CLS trains and saves the score head whole; peft loads the
        # adapter folder onto the base classifier with runner's logits.
        script = TRAIN % ("text.jsonl", "out_lora", 3, "5e-2", 2, 3,
                          'models.lora(models.from_pretrained("rm"), { r = 4, target_modules = { "q_proj", "v_proj" } })', "")
        code, out, err = run(write(os.path.join(self.tmp, "lora.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        with open(os.path.join(self.tmp, "out_lora", "adapter_config.json")) as f:
            self.assertEqual(json.load(f)["task_type"], "SEQ_CLS")
        got, _ = self.classify('models.from_pretrained("out_lora")')  # the base classifier with the adapters and the trained score
        base = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "rm")).eval()
        model = PeftModel.from_pretrained(base, os.path.join(self.tmp, "out_lora")).eval()
        ids = torch.tensor(IDS)
        with torch.no_grad():
            want = model(input_ids=ids, attention_mask=ids.ne(2).long()).logits
            untrained = AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "rm"))(input_ids=ids, attention_mask=ids.ne(2).long()).logits
        torch.testing.assert_close(torch.tensor(got), want, rtol=1e-5, atol=1e-6)
        self.assertGreater((want - untrained).abs().max().item(), 1e-3)  # the adapters and the score trained
        # Adapters of a reward model made from a causal LM: the base's config has no pad id (peft saves
        # none either), so it comes with the load.
        script = TRAIN % ("text.jsonl", "out_lora_lm", 1, "5e-2", 2, 1,
                          'models.lora(models.from_pretrained("lm", { num_labels = 1, pad_token_id = 2 }), { r = 4 })', "")
        code, out, err = run(write(os.path.join(self.tmp, "lora_lm.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        got, _ = self.classify('models.from_pretrained("out_lora_lm", { pad_token_id = 2 })')
        model = PeftModel.from_pretrained(AutoModelForSequenceClassification.from_pretrained(os.path.join(self.tmp, "lm"), num_labels=1, pad_token_id=2),
                                          os.path.join(self.tmp, "out_lora_lm")).eval()
        with torch.no_grad():
            torch.testing.assert_close(torch.tensor(got), model(input_ids=ids, attention_mask=ids.ne(2).long()).logits, rtol=1e-5, atol=1e-6)
        code, out, err = run("check", write(os.path.join(self.tmp, "classify.lua"), CLASSIFY % ('models.from_pretrained("out_lora_lm")', "nil")),
                             cwd=self.tmp)
        self.assertEqual(code, 2, err[-2000:])
        self.assertIn("without pad_token_id takes batches of one row", err.strip().splitlines()[-1])

    def test_two_ranks_equal_one_process(self):
        # 2 ranks x 2 pairs against 1 process x 4 pairs: the same loss and metrics (the minimum and
        # maximum reward over both ranks' rows), in training and evaluation, under DDP and under FSDP
        # full sharding (ZeRO-3: the score head gathered with the rest).
        mpiexec = shutil.which("mpiexec")
        if not mpiexec:
            self.skipTest("no mpiexec")
        for name, extra in (("ddp", []), ("fsdp", ["--fsdp", "full_shard"])):
            with self.subTest(mode=name):
                script = write(os.path.join(self.tmp, name + ".lua"),
                               TRAIN % ("margin.jsonl", "out_" + name, 3, "1e-2", 2, 3, 'models.from_pretrained("rm")', ""))
                p = subprocess.run([mpiexec, "-n", "2", BINARY, script, *extra], cwd=self.tmp, capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr[-3000:])
                code, out, err = run(script, "--output_dir", "out_one_" + name, "--per_device_train_batch_size", "4", cwd=self.tmp)
                self.assertEqual(code, 0, err[-3000:])
                histories = []
                for out_dir in ("out_" + name, "out_one_" + name):
                    with open(os.path.join(self.tmp, out_dir, "trainer_state.json")) as f:
                        histories.append(json.load(f)["log_history"][:-1])
                self.assertEqual(len(histories[0]), len(histories[1]))
                self.assertIn("min_reward", histories[1][0])
                for a, b in zip(*histories):
                    for k, v in b.items():
                        if isinstance(v, float) and "runtime" not in k and "per_second" not in k:
                            self.assertTrue(close(a[k], v, 1e-4, 1e-5), f"{name} step {b.get('step')} {k}: 2 ranks {a[k]}, 1 process {v}")

    def test_two_ranks_with_a_ragged_last_batch(self):
        # 5 pairs on 2 ranks x 2: the last step's and the last evaluation batch's only pair is rank 0's
        # (rank 1 has none). The logs equal one process's (x 4): rank 1's missing calls neither
        # count nor stop the minimum and maximum rewards.
        mpiexec = shutil.which("mpiexec")
        if not mpiexec:
            self.skipTest("no mpiexec")
        write_jsonl(os.path.join(self.tmp, "five.jsonl"), TEXT_ROWS + [{"prompt": "Say yes.", "chosen": " Yes.", "rejected": " No."}])
        text = (TRAIN % ("five.jsonl", "out_ragged", 2, "1e-2", 2, 2, 'models.from_pretrained("rm")', "")).replace(
            "per_device_eval_batch_size = 4", "per_device_eval_batch_size = 2")
        script = write(os.path.join(self.tmp, "ragged.lua"), text)
        p = subprocess.run([mpiexec, "-n", "2", BINARY, script], cwd=self.tmp, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        code, out, err = run(script, "--output_dir", "out_ragged_one", "--per_device_train_batch_size", "4", "--per_device_eval_batch_size", "4",
                             cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        histories = []
        for out_dir in ("out_ragged", "out_ragged_one"):
            with open(os.path.join(self.tmp, out_dir, "trainer_state.json")) as f:
                histories.append(json.load(f)["log_history"][:-1])
        train = [[h for h in history if "loss" in h] for history in histories]
        self.assertEqual([h["step"] for h in train[0]], [1, 2])
        for a, b in zip(*train):
            for k in ("loss", "min_reward", "mean_reward", "max_reward", "accuracy", "margin"):
                self.assertTrue(close(a[k], b[k], 1e-4, 1e-5), f"step {b['step']} {k}: 2 ranks {a[k]}, 1 process {b[k]}")
        evaluation = [[h for h in history if "eval_loss" in h][-1] for history in histories]
        for k in ("eval_min_reward", "eval_max_reward"):
            self.assertTrue(close(evaluation[0][k], evaluation[1][k], 1e-4, 1e-5), f"{k}: 2 ranks {evaluation[0][k]}, 1 process {evaluation[1][k]}")

    def test_tokenizer_pad_and_eos_ids_are_transformers(self):
        script = 'local t = require("runner.data").tokenizer("rm/tokenizer.json")\nprint("IDS " .. t:pad_token_id() .. " " .. t:eos_token_id())\n' \
                 'return { datasets = { train = require("runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }\n'
        code, out, err = run("check", write(os.path.join(self.tmp, "ids.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        self.assertEqual(lines(err, "IDS")[0], f"{self.tokenizer.pad_token_id} {self.tokenizer.eos_token_id}")

    def test_bad_input_is_one_clear_line(self):
        d = self.tmp
        write(os.path.join(d, "bad_missing.jsonl"), '{"chosen": "b", "rejected": "c"}\n{"chosen": "b"}\n')
        write(os.path.join(d, "bad_margin.jsonl"), '{"chosen": "b", "rejected": "c", "margin": "big"}\n')
        write(os.path.join(d, "bad_some_margin.jsonl"), '{"chosen": "b", "rejected": "c", "margin": 1}\n{"chosen": "b", "rejected": "c"}\n')
        check_one_line_errors(self, d, {
            'data.reward_pairs{ path = "bad_missing.jsonl", tokenizer = "rm/tokenizer.json" }': 'bad_missing.jsonl:2: needs "chosen" and "rejected"',
            'data.reward_pairs{ path = "bad_margin.jsonl", tokenizer = "rm/tokenizer.json" }': 'bad_margin.jsonl:1: "margin" must be a number',
            'data.reward_pairs{ path = "bad_some_margin.jsonl", tokenizer = "rm/tokenizer.json" }': 'some rows have "margin" and some do not',
            'data.reward_collator{ pad_token_id = 2, pad_to_multiple_of = -1 }': "pad_to_multiple_of must be >= 0",
            'models.reward_loss{ center_rewards_coefficient = 0/0 }': "center_rewards_coefficient must be a finite number",
            'models.llama{ num_labels = 0 }': "num_labels must be an integer > 0",
            'models.llama{ num_labels = 3, labels = { "a", "b" } }': "labels names 2 labels but num_labels is 3",
            'models.from_pretrained("lm", { task = "token_classification" })': "not llama with task",
            'data.reward_collator{}': "give pad_token_id (the model's",
            'models.llama{ problem_type = "regression" }': "problem_type is a classifier's; give num_labels",
            'models.llama{ num_labels = 2, id2label = { ["0"] = 1, ["1"] = 2 } }': "id2label must name the classes",
        })
        # A classifier without a pad id takes one row a batch; a 3-class model is no reward model.
        for name, model, want in (("nopad", 'models.from_pretrained("lm", { num_labels = 1 })', "without pad_token_id takes batches of one row"),
                                  ("cls3", 'models.from_pretrained("cls3")', "(2B, 1) logits from a sequence classifier with num_labels = 1")):
            bad = TRAIN % ("text.jsonl", "out_" + name, 1, "0.0", 2, 1, model, "")
            code, out, err = run(write(os.path.join(d, name + ".lua"), bad), cwd=d)
            self.assertEqual(code, 2, err[-2000:])
            self.assertIn(want, err.strip().splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
