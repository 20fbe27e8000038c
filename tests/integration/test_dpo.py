"""DPO as TRL's DPOTrainer does it, checked against TRL itself (no copy of its algorithm here):
data.preference's prompt/chosen/rejected ids equal DPOTrainer's prepared dataset (text rows with
a Llama-2 style tokenizer whose prompt and completion merge into one token, chat rows through a
chat template, implicit prompts); data.preference_collator's batches equal
DataCollatorForPreference's (keep_start, keep_end, pad_to_multiple_of); models.dpo_loss's loss
and metrics equal DPOTrainer.compute_loss's for every loss type, with a given reference, with a
LoRA adapter's base as the reference, and logged by the Trainer in training and evaluation; the
implicit reference (a copy of the model when the recipe loads) survives a resume; bad input is
one clear line. Exit 77 (skipped) without transformers/trl/peft."""
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
    from peft import LoraConfig, PeftModel, get_peft_model, set_peft_model_state_dict
    from safetensors.torch import load_file, save_file
    from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging
    from trl import DPOConfig, DPOTrainer
    from trl.trainer.dpo_trainer import DataCollatorForPreference
    from tokenizer_shapes import model_folder, sentencepiece  # noqa: E402
except ImportError as e:
    print(f"SKIP: transformers/trl/peft not installed ({e}); scripts/setup installs them")
    sys.exit(77)

hf_logging.set_verbosity_error()
CHATML = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
TEXT_ROWS = [
    {"prompt": "What is 17 plus 39?", "chosen": " 56", "rejected": " 66"},
    {"prompt": "Finish the word: th", "chosen": "e end", "rejected": "ing"},  # "th" + "e" merge into one token
    {"prompt": "  Spaces,\n\nnew lines ", "chosen": "and ½ € 東京 🙂", "rejected": "no</s>"},
    {"prompt": "Name a colour.", "chosen": " Blue, the colour of the sky and of the sea on a clear day.", "rejected": " Green."},
]
IMPLICIT_ROWS = [{"chosen": "The sky is blue.", "rejected": "The sky is green."},
                 {"chosen": "Same words café", "rejected": "Same words cafe"},
                 {"chosen": "identical", "rejected": "identical"}]
CHAT_ROWS = [
    {"prompt": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi"}],
     "chosen": [{"role": "assistant", "content": "Hi!"}], "rejected": [{"role": "assistant", "content": "Good day to you, dear user."}]},
    {"prompt": [{"role": "user", "content": "2+2?"}], "chosen": [{"role": "assistant", "content": "4"}],
     "rejected": [{"role": "assistant", "content": "5"}]},
]
IMPLICIT_CHAT = [{"chosen": [{"role": "user", "content": "Colour?"}, {"role": "assistant", "content": "Blue"}],
                  "rejected": [{"role": "user", "content": "Colour?"}, {"role": "assistant", "content": "Red"}]}]

# Prints each example's ids as JSON lines.
DUMP = """local data = require "runner.data"
local ds = data.preference{ path = "%s", tokenizer = "policy/tokenizer.json", max_length = %d }
local function list(t) local o = {} for i = 0, t:size(0) - 1 do o[#o + 1] = t:select(0, i):item() end return "[" .. table.concat(o, ",") .. "]" end
for i = 0, #ds - 1 do
  local e = ds:get(i)
  print("EXAMPLE " .. list(e.prompt_ids) .. " " .. list(e.chosen_ids) .. " " .. list(e.rejected_ids))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

# Prints the collated batch of every example, then each loss's value and metrics.
LOSSES = """local data, models = require "runner.data", require "runner.models"
local ds = data.preference{ path = "text.jsonl", tokenizer = "policy/tokenizer.json" }
local function rows(t) local o = {} for b = 0, t:size(0) - 1 do local r = {} for i = 0, t:size(1) - 1 do r[#r + 1] = t:select(0, b):select(0, i):item() end o[#o + 1] = "[" .. table.concat(r, ",") .. "]" end return "[" .. table.concat(o, ",") .. "]" end
local examples = {}
for i = 0, #ds - 1 do examples[#examples + 1] = ds:get(i) end
for _, c in ipairs{ { max_length = 0 }, { max_length = 9 }, { max_length = 9, truncation_mode = "keep_end", pad_to_multiple_of = 8 } } do
  local b = data.preference_collator(c)(examples)
  print("BATCH " .. rows(b.input_ids) .. " " .. rows(b.attention_mask) .. " " .. rows(b.completion_mask))
end
local batch = data.preference_collator{}(examples)
local policy = models.from_pretrained("%s")
policy:train()
local ref = %s
for _, spec in ipairs(%s) do
  local name, options = spec[1], spec[2]
  options.ref_model = ref
  if not ref then options.model = policy end  -- the reference is settled for it now
  local loss, _, metrics = models.dpo_loss(options)(policy, batch)
  local parts = { string.format("%%q:%%.17g", "loss", loss:item()) }
  for k, v in pairs(metrics) do parts[#parts + 1] = string.format("%%q:%%.17g", k, v:item()) end
  print("LOSS " .. name .. " {" .. table.concat(parts, ",") .. "}")
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

# (name, runner's options as Lua, TRL's config)
LOSS_TYPES = [(t, f'{{ loss_type = "{t}" }}', {"loss_type": [t]}) for t in
              ["sigmoid", "hinge", "ipo", "nca_pair", "bco_pair", "sppo_hard", "aot", "aot_unpaired", "apo_zero", "apo_down",
               "discopop", "sft", "sigmoid_norm"]] + [
    ("robust", '{ loss_type = "robust", label_smoothing = 0.2 }', {"loss_type": ["robust"], "label_smoothing": 0.2}),
    ("exo_pair", '{ loss_type = "exo_pair", label_smoothing = 0.001 }', {"loss_type": ["exo_pair"], "label_smoothing": 0.001}),
    ("mpo", '{ loss_type = { "sigmoid", "bco_pair", "sft" }, loss_weights = { 0.8, 0.2, 1.0 } }',
     {"loss_type": ["sigmoid", "bco_pair", "sft"], "loss_weights": [0.8, 0.2, 1.0]}),
    ("beta", '{ beta = 0.5 }', {"beta": 0.5}),
    ("ld_alpha", '{ ld_alpha = 0.3 }', {"ld_alpha": 0.3}),
]

TRAIN = """local data, models = require "runner.data", require "runner.models"
local ds = data.preference{ path = "text.jsonl", tokenizer = "policy/tokenizer.json" }
return {
  args = { output_dir = "%s", max_steps = %d, learning_rate = %s, per_device_train_batch_size = %d, logging_steps = %d, save_steps = 3,
           report_to = "none", eval_strategy = "%s", per_device_eval_batch_size = 4, seed = 7 },
  datasets = { train = ds, eval = ds },
  data_collator = data.preference_collator{},
  model = models.from_pretrained("policy"),
  compute_loss = models.dpo_loss{ %s },
}
"""


class DpoTest(RecipeTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        d = cls.tmp
        tok = sentencepiece("llama2", ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"], bos="<s>")
        config = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "</s>", "chat_template": CHATML}
        for name, seed in (("policy", 0), ("ref", 1)):
            folder = model_folder(d, name, tok, config)
            torch.manual_seed(seed)
            LlamaForCausalLM(LlamaConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                                         bos_token_id=1, eos_token_id=2)).save_pretrained(folder)
        # A LoRA adapter of the policy that is not a no-op (peft's init_lora_weights=False).
        torch.manual_seed(2)
        base = AutoModelForCausalLM.from_pretrained(os.path.join(d, "policy"))
        get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
                       ).save_pretrained(os.path.join(d, "adapter"))
        # The same adapter under runner's (and the model's) names, for models.load_weights.
        saved = load_file(os.path.join(d, "adapter", "adapter_model.safetensors"))
        save_file({k.removeprefix("base_model.model."): v for k, v in saved.items()}, os.path.join(d, "adapter_weights.safetensors"))
        for name, rows in (("text", TEXT_ROWS), ("implicit", IMPLICIT_ROWS), ("chat", CHAT_ROWS), ("implicit_chat", IMPLICIT_CHAT)):
            write_jsonl(os.path.join(d, name + ".jsonl"), rows)
        cls.tokenizer = PreTrainedTokenizerFast.from_pretrained(os.path.join(d, "policy"))

    def trl(self, rows, policy=None, ref="ref", peft_config=None, **config):
        """A DPOTrainer on `rows` (fp32 on the CPU, no gradient checkpointing: runner's defaults)."""
        model = policy if policy is not None else AutoModelForCausalLM.from_pretrained(os.path.join(self.tmp, "policy"))
        ref_model = AutoModelForCausalLM.from_pretrained(os.path.join(self.tmp, ref)) if ref else None
        args = DPOConfig(output_dir=os.path.join(self.tmp, "trl"), report_to=[], bf16=False, gradient_checkpointing=False, use_cpu=True,
                         per_device_train_batch_size=len(rows), **config)
        return DPOTrainer(model=model, ref_model=ref_model, args=args, train_dataset=Dataset.from_list(rows), processing_class=self.tokenizer,
                          peft_config=peft_config)

    def trl_loss(self, trainer):
        """TRL's loss and averaged metrics on every row of its training set as one batch."""
        ds = trainer.train_dataset
        batch = trainer.data_collator([ds[i] for i in range(len(ds))])
        trainer.model.train()
        trainer._metrics["train"].clear()
        with torch.no_grad():
            loss = trainer.compute_loss(trainer.model, batch).item()
        metrics = {k: sum(v) / len(v) for k, v in trainer._metrics["train"].items() if k != "num_tokens"}
        return {"loss": loss, **metrics}

    def dump(self, name, max_length=1024):
        code, out, err = run("check", write(os.path.join(self.tmp, "dump.lua"), DUMP % (name + ".jsonl", max_length)), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        return [[json.loads(x) for x in l.split(" ")] for l in lines(err, "EXAMPLE")]  # check's stdout is the arguments

    def test_examples_equal_trl_prepared_dataset(self):
        for name, rows in (("text", TEXT_ROWS), ("implicit", IMPLICIT_ROWS), ("chat", CHAT_ROWS), ("implicit_chat", IMPLICIT_CHAT)):
            with self.subTest(rows=name):
                want = [[r["prompt_ids"], r["chosen_ids"], r["rejected_ids"]] for r in self.trl(rows).train_dataset]
                self.assertEqual(self.dump(name), want)
        # The second text row's prompt ends in a token that prompt + completion merges away.
        prompt_alone = self.tokenizer("Finish the word: th")["input_ids"]
        self.assertLess(len(self.dump("text")[1][0]), len(prompt_alone))
        # The same rows from a Parquet file (data.preference{dataset = ...}).
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.Table.from_pylist(TEXT_ROWS), os.path.join(self.tmp, "text.parquet"))
        script = DUMP.replace('path = "%s"', 'dataset = data.parquet("%s")') % ("text.parquet", 1024)
        code, out, err = run("check", write(os.path.join(self.tmp, "dump_parquet.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        self.assertEqual([[json.loads(x) for x in l.split(" ")] for l in lines(err, "EXAMPLE")], self.dump("text"))
        # max_length: a prompt of max_length tokens or more is left out, as TRL leaves it out.
        short = self.trl(TEXT_ROWS, max_length=12).train_dataset
        self.assertLess(len(short), len(TEXT_ROWS))
        self.assertEqual(self.dump("text", 12), [[r["prompt_ids"], r["chosen_ids"], r["rejected_ids"]] for r in short])

    def test_collator_and_every_loss_equal_trl(self):
        specs = "{" + ", ".join(f'{{ "{n}", {lua} }}' for n, lua, _ in LOSS_TYPES) + "}"
        script = LOSSES % ("policy", 'models.from_pretrained("ref")', specs)
        code, out, err = run("check", write(os.path.join(self.tmp, "losses.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        examples = [dict(r) for r in self.trl(TEXT_ROWS).train_dataset]
        batches = [[json.loads(x) for x in l.split(" ")] for l in lines(err, "BATCH")]
        for got, options in zip(batches, [{}, {"max_length": 9}, {"max_length": 9, "truncation_mode": "keep_end", "pad_to_multiple_of": 8}]):
            with self.subTest(collator=options):
                want = DataCollatorForPreference(pad_token_id=0, **options)(examples)
                self.assertEqual(got, [want[k].tolist() for k in ("input_ids", "attention_mask", "completion_mask")])
        got = {l.split(" ", 1)[0]: json.loads(l.split(" ", 1)[1]) for l in lines(err, "LOSS")}
        trainer = self.trl(TEXT_ROWS)
        for name, _, config in LOSS_TYPES:
            with self.subTest(loss=name):
                trainer.loss_types = config.get("loss_type", ["sigmoid"])
                trainer.loss_weights = config.get("loss_weights", [1.0] * len(trainer.loss_types))
                trainer.beta, trainer.label_smoothing = config.get("beta", 0.1), config.get("label_smoothing", 0.0)
                trainer.ld_alpha = config.get("ld_alpha")
                want = self.trl_loss(trainer)
                self.assertEqual(set(got[name]), set(want))
                for k, v in want.items():
                    self.assertTrue(math.isclose(got[name][k], v, rel_tol=2e-4, abs_tol=2e-5), f"{name} {k}: runner {got[name][k]}, TRL {v}")

    def test_lora_references(self):
        # A new adapter (models.lora; its weights set to the saved adapter's): the reference is
        # the base, the adapters disabled, as TRL's with a peft_config.
        script = LOSSES % ("policy", "nil", '{ { "sigmoid", {} } }')
        script = script.replace('local policy = models.from_pretrained("policy")',
                                'local policy = models.lora(models.from_pretrained("policy"), { r = 4, alpha = 8, target_modules = { "q_proj", "v_proj" } })\n'
                                'models.load_weights(policy, "adapter_weights.safetensors", { strict = false })')
        code, out, err = run("check", write(os.path.join(self.tmp, "lora.lua"), script), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        got = json.loads(lines(err, "LOSS")[0].split(" ", 1)[1])
        trainer = self.trl(TEXT_ROWS, ref=None, peft_config=LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False))
        set_peft_model_state_dict(trainer.model, load_file(os.path.join(self.tmp, "adapter", "adapter_model.safetensors")))
        want = self.trl_loss(trainer)
        self.assertGreater(abs(want["rewards/chosen"]), 1e-4)  # the adapters change the scores
        for k, v in want.items():
            self.assertTrue(math.isclose(got[k], v, rel_tol=2e-4, abs_tol=2e-5), f"{k}: runner {got[k]}, TRL {v}")
        # A pretrained adapter (its folder): the reference is the model as loaded, as TRL's "ref"
        # copy of the adapter, so before training every reward is 0 in both.
        code, out, err = run("check", write(os.path.join(self.tmp, "lora2.lua"), LOSSES % ("adapter", "nil", '{ { "sigmoid", {} } }')), cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        got = json.loads(lines(err, "LOSS")[0].split(" ", 1)[1])
        base = AutoModelForCausalLM.from_pretrained(os.path.join(self.tmp, "policy"))
        want = self.trl_loss(self.trl(TEXT_ROWS, policy=PeftModel.from_pretrained(base, os.path.join(self.tmp, "adapter"), is_trainable=True), ref=None))
        for k, v in want.items():  # rewards of 0 ± rounding: which of two is higher is noise
            if k != "rewards/accuracies":
                self.assertTrue(math.isclose(got[k], v, rel_tol=2e-4, abs_tol=2e-5), f"{k}: runner {got[k]}, TRL {v}")
        for k in ("rewards/chosen", "rewards/rejected", "rewards/margins"):
            self.assertLess(abs(got[k]), 1e-5, k)

    def test_trainer_logs_trl_metrics(self):
        # Learning rate 0: the step's logged loss and metrics, and the evaluation's, are the batch's.
        script = TRAIN % ("out_log", 1, "0.0", 4, 1, "steps", 'ref_model = models.from_pretrained("ref")')
        code, out, err = run(write(os.path.join(self.tmp, "train.lua"), script), "--eval_steps", "1", cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        with open(os.path.join(self.tmp, "out_log", "trainer_state.json")) as f:
            history = json.load(f)["log_history"]
        want = self.trl_loss(self.trl(TEXT_ROWS))
        train, evaluation = history[0], history[1]
        for k, v in want.items():
            self.assertTrue(math.isclose(train[k], v, rel_tol=2e-4, abs_tol=2e-5), f"{k}: runner {train[k]}, TRL {v}")
            self.assertTrue(math.isclose(evaluation["eval_" + k], v, rel_tol=2e-4, abs_tol=2e-5), f"eval_{k}: runner {evaluation['eval_' + k]}, TRL {v}")

    def test_a_recipe_compute_loss_returns_metrics(self):
        # The loss called from the recipe's own compute_loss, its metrics returned as a third value
        # (plus one of its own), label_names = {}: logged in training and evaluation as the
        # built-in loss logs them (one batch a step: the same values).
        wrapped = TRAIN.replace('compute_loss = models.dpo_loss{ %s },', """compute_loss = (function()
    local dpo = models.dpo_loss{ %s }
    return function(model, inputs, ctx)
      local loss, outputs, metrics = dpo(model, inputs)
      metrics.pairs = inputs.input_ids:size(0) / 2
      return loss, outputs, metrics
    end
  end)(),""").replace("seed = 7 },", "seed = 7, label_names = {} },")
        ref = 'ref_model = models.from_pretrained("ref")'
        for name, text in (("builtin", TRAIN), ("wrapped", wrapped)):
            code, out, err = run(write(os.path.join(self.tmp, name + ".lua"), text % ("out_" + name, 1, "0.0", 4, 1, "steps", ref)),
                                 "--eval_steps", "1", cwd=self.tmp)
            self.assertEqual(code, 0, err[-3000:])
        logs = []
        for name in ("builtin", "wrapped"):
            with open(os.path.join(self.tmp, "out_" + name, "trainer_state.json")) as f:
                logs.append(json.load(f)["log_history"])
        self.assertEqual(logs[1][0]["pairs"], 4)
        self.assertEqual(logs[1][1]["eval_pairs"], 4)
        for k in ("loss", "rewards/chosen", "rewards/margins", "logps/rejected", "entropy"):
            self.assertAlmostEqual(logs[1][0][k], logs[0][0][k], places=5, msg=k)
            self.assertAlmostEqual(logs[1][1]["eval_" + k], logs[0][1]["eval_" + k], places=5, msg="eval_" + k)

    def test_implicit_reference_is_the_loaded_model_and_survives_resume(self):
        script = write(os.path.join(self.tmp, "copy.lua"), TRAIN % ("out_copy", 4, "1e-2", 2, 2, "no", ""))
        code, out, err = run(script, cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        with open(os.path.join(self.tmp, "out_copy", "trainer_state.json")) as f:
            history = [h for h in json.load(f)["log_history"] if "loss" in h]
        self.assertEqual([h["step"] for h in history], [2, 4])
        self.assertGreater(abs(history[1]["rewards/margins"]), 1e-4)  # the policy moved away from its reference
        # Resumed from checkpoint-3 (between two logs): the reference is again the loaded model,
        # not the checkpoint's weights, and step 3's metrics come back from the checkpoint.
        code, out, err = run(script, "--output_dir", "out_resumed", "--resume_from_checkpoint", "out_copy/checkpoint-3", cwd=self.tmp)
        self.assertEqual(code, 0, err[-3000:])
        with open(os.path.join(self.tmp, "out_resumed", "trainer_state.json")) as f:
            resumed = [h for h in json.load(f)["log_history"] if "loss" in h]
        self.assertEqual(resumed[-1]["step"], 4)
        for k in ("loss", "rewards/chosen", "rewards/rejected", "rewards/margins", "logps/chosen", "entropy"):
            self.assertAlmostEqual(resumed[-1][k], history[1][k], places=6, msg=k)

    def test_two_ranks_equal_one_process(self):
        # 2 ranks x 2 pairs against 1 process x 4 pairs: the same loss, metrics and evaluation, under
        # DDP with a given reference, and under FSDP full sharding (ZeRO-3) with the implicit copy
        # and with new LoRA adapters.
        mpiexec = shutil.which("mpiexec")
        if not mpiexec:
            self.skipTest("no mpiexec")
        lora = 'models.lora(models.from_pretrained("policy"), { r = 4, target_modules = "all-linear" })'
        for name, ref, extra in (("ddp", 'ref_model = models.from_pretrained("ref")', []), ("fsdp", "", ["--fsdp", "full_shard"]),
                                 ("fsdp_lora", "", ["--fsdp", "full_shard"])):
            with self.subTest(mode=name):
                text = TRAIN % ("out_" + name, 3, "1e-2", 2, 1, "steps", ref)
                if name == "fsdp_lora":  # the reference is the sharded base, its adapters disabled
                    text = text.replace('model = models.from_pretrained("policy"),', f"model = {lora},")
                script = write(os.path.join(self.tmp, name + ".lua"), text)
                p = subprocess.run([mpiexec, "-n", "2", BINARY, script, "--eval_steps", "3", *extra], cwd=self.tmp, capture_output=True, text=True,
                                   timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr[-3000:])
                code, out, err = run(script, "--output_dir", "out_one_" + name, "--per_device_train_batch_size", "4", "--eval_steps", "3", cwd=self.tmp)
                self.assertEqual(code, 0, err[-3000:])
                histories = []
                for out_dir in ("out_" + name, "out_one_" + name):
                    with open(os.path.join(self.tmp, out_dir, "trainer_state.json")) as f:
                        histories.append(json.load(f)["log_history"][:-1])
                self.assertEqual(len(histories[0]), len(histories[1]))
                for a, b in zip(*histories):
                    for k, v in b.items():
                        if isinstance(v, float) and "runtime" not in k and "per_second" not in k:
                            self.assertTrue(math.isclose(a[k], v, rel_tol=1e-4, abs_tol=1e-5), f"{name} step {b.get('step')} {k}: 2 ranks {a[k]}, 1 process {v}")

    def test_bad_input_is_one_clear_line(self):
        d = self.tmp
        write(os.path.join(d, "bad_missing.jsonl"), '{"prompt": "a", "chosen": "b", "rejected": "c"}\n{"prompt": "a", "chosen": "b"}\n')
        write(os.path.join(d, "bad_mixed.jsonl"), '{"prompt": "a", "chosen": "b", "rejected": [{"role": "assistant", "content": "c"}]}\n')
        write(os.path.join(d, "bad_json.jsonl"), '{"prompt": "a", "chosen": "b", "rejected": "c"}\nnot json\n')
        check_one_line_errors(self, d, {
            'data.preference{ path = "bad_missing.jsonl", tokenizer = "policy/tokenizer.json" }': 'bad_missing.jsonl:2: needs "chosen" and "rejected"',
            'data.preference{ path = "bad_mixed.jsonl", tokenizer = "policy/tokenizer.json" }': "bad_mixed.jsonl:1: \"chosen\" and \"rejected\" must both be",
            'data.preference{ path = "bad_json.jsonl", tokenizer = "policy/tokenizer.json" }': "bad_json.jsonl:2: not a JSON object",
            'data.preference{ path = "text.jsonl", tokenizer = "policy/tokenizer.json", truncation_mode = "middle" }': 'truncation_mode must be "keep_start" or "keep_end"',
            'models.dpo_loss{ loss_type = "sigmod" }': 'unknown loss_type "sigmod"',
            'models.dpo_loss{ loss_type = "robust", label_smoothing = 0.5 }': "label_smoothing must be in [0, 0.5)",
            'models.dpo_loss{ loss_type = {"sigmoid", "sft"}, loss_weights = {1} }': "loss_weights has 1 weights for 2 loss types",
            'models.dpo_loss{ beta = 0 }': "beta must be > 0",
            'models.dpo_loss{ ref_model = 3 }': "ref_model must be a model",
        })
        # A recipe whose compute_loss is the DPO loss without a preference collator: one line, exit 2.
        bad = TRAIN.replace("data_collator = data.preference_collator{},", "data_collator = data.pad_collator{},") % ("out_bad", 1, "0.0", 2, 1, "no", "")
        code, out, err = run(write(os.path.join(d, "bad_collator.lua"), bad), cwd=d)
        self.assertEqual(code, 2, err[-2000:])
        self.assertIn("error", err.strip().splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
