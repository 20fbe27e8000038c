"""data.sft: supervised fine-tuning examples from JSONL, in the built-in layouts. The reference is
the real packages: each layout written as a Jinja template with {% generation %} markers gives,
through transformers' apply_chat_template(tokenize=True, return_assistant_tokens_mask=True),
the ids (the whole text tokenized at once) and which are trained; data.sft adds the tokenizer's
start tokens (its post-processor's prefix, never its suffix: a template "<s> $A </s>" gives
"<s>", not "<s></s>"). The plain layout equals TRL's SFTTrainer on prompt/completion data
(completion_only_loss, the eos it appends) with a Llama 2 style tokenizer. The end-of-text token
from tokenizer_config.json ends each response, packing fills rows of exactly max_length whose
position_ids restart per example, and a Llama trains on both forms (the loss falls), also with
NEFTune's embedding noise. Bad lines are one clear line naming file:line. Exit 77 (skipped) without tokenizers/transformers/trl."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, run, write  # noqa: E402

try:
    import jinja2  # noqa: F401
    from datasets import Dataset
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging
    from trl import SFTConfig, SFTTrainer
    from tokenizer_shapes import byte_level, model_folder, sentencepiece  # noqa: E402
except ImportError as e:
    print(f"SKIP: tokenizers/transformers/trl not installed ({e}); scripts/setup installs them")
    sys.exit(77)

hf_logging.set_verbosity_error()
ROWS = [
    {"prompt": "Name a colour.", "response": "Blue."},
    {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi"},
                  {"role": "assistant", "content": "Hi!"}, {"role": "user", "content": "Again"},
                  {"role": "assistant", "content": "Hi again."}]},
    {"prompt": "Count to three.", "response": "One, two, three."},
    {"prompt": "  Spaces,\n\nnew lines ", "response": " and ½ € 東京 🙂"},
]
PROMPT_RESPONSE = [r for r in ROWS if "prompt" in r]

# The built-in layouts (sft.cpp) as Jinja templates with generation markers: what transformers
# then tokenizes and masks is the reference.
LAYOUTS = {
    "simple": ("{% for m in messages %}{% if m.role == 'system' %}{{ '### System:\\n' + m.content + '\\n\\n' }}"
               "{% elif m.role == 'user' %}{{ '### Instruction:\\n' + m.content + '\\n\\n### Response:\\n' }}"
               "{% else %}{% generation %}{{ m.content + eos_token + '\\n\\n' }}{% endgeneration %}{% endif %}{% endfor %}"),
    "chatml": ("{% for m in messages %}{{ '<|im_start|>' + m.role + '\\n' }}{% if m.role == 'assistant' %}{% generation %}"
               "{{ m.content + '<|im_end|>\\n' }}{% if eos_token != '<|im_end|>' %}{{ eos_token }}{% endif %}{% endgeneration %}"
               "{% else %}{{ m.content + '<|im_end|>\\n' }}{% endif %}{% endfor %}"),
    "plain": ("{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content + eos_token }}{% endgeneration %}"
              "{% else %}{{ m.content }}{% endif %}{% endfor %}"),
}

# Prints each example's fields as JSON lines, then returns a trivial recipe.
DUMP = """local data = require "runner.data"
local ds = data.sft{ path = "train.jsonl", tokenizer = "%s/tokenizer.json", chat_template = "%s", packing = %s, max_length = %d }
local function list(t) local o = {} for i = 0, t:size(0) - 1 do o[#o + 1] = t:select(0, i):item() end return "[" .. table.concat(o, ",") .. "]" end
for i = 0, #ds - 1 do
  local e = ds:get(i)
  print("EXAMPLE " .. list(e.input_ids) .. " " .. list(e.labels) .. " " .. (e.position_ids and list(e.position_ids) or "null"))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

TRAIN = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ds = data.sft{ path = "many.jsonl", tokenizer = "tok/tokenizer.json", max_length = 48, packing = %s }
return {
  args = { output_dir = "out_%s", max_steps = 25, learning_rate = 3e-3, per_device_train_batch_size = 4,
           logging_steps = 5, report_to = "none", save_strategy = "no" },
  datasets = { train = ds },
  data_collator = data.pad_collator{ pad_token_id = 0, attention_mask = %s },
  model = models.llama{ vocab_size = 400, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,
                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64 },
}
"""

CHAT_SPECIALS = ["<|im_start|>", "<|im_end|>"]


def tokenizer_folder(d, kind):
    """(folder, its start tokens): "tok" byte-level with <|endoftext|> as eos and no start token;
    "llama2" Prepend/Replace SentencePiece, <s> before the text, eos </s>; "bos_eos" the same
    with Metaspace and a post-processor that also appends </s> (as some SentencePiece files do)."""
    if kind == "tok":
        return model_folder(d, "tok", byte_level("gpt2", ["<|endoftext|>"] + CHAT_SPECIALS), {"eos_token": "<|endoftext|>"}), []
    tok = sentencepiece("llama2" if kind == "llama2" else "metaspace", ["<unk>", "<s>", "</s>"] + CHAT_SPECIALS, bos="<s>",
                        eos="</s>" if kind == "bos_eos" else None)
    return model_folder(d, kind, tok, {"bos_token": "<s>", "eos_token": "</s>"}), [tok.token_to_id("<s>")]


def conversation(row):
    if "messages" in row:
        return row["messages"]
    return [{"role": "user", "content": row["prompt"]}, {"role": "assistant", "content": row["response"]}]


def expected_example(folder, bos, row, layout):
    """(ids, labels): transformers' tokens and assistant mask for the layout, after the start tokens."""
    hf = PreTrainedTokenizerFast.from_pretrained(folder)
    out = hf.apply_chat_template(conversation(row), chat_template=LAYOUTS[layout], tokenize=True, return_dict=True,
                                 return_assistant_tokens_mask=True)
    ids = out["input_ids"]
    labels = [t if m else -100 for t, m in zip(ids, out["assistant_masks"])]
    if ids[:len(bos)] != bos:
        ids, labels = bos + ids, [-100] * len(bos) + labels
    return ids, labels


def dump(d, folder, template, packing, max_length):
    write(os.path.join(d, "dump.lua"), DUMP % (os.path.basename(folder), template, "true" if packing else "false", max_length))
    code, _, err = run("check", os.path.join(d, "dump.lua"), cwd=d)
    assert code == 0, err[-2000:]
    return [tuple(json.loads(x) for x in m.groups()) for m in re.finditer(r"EXAMPLE (\S+) (\S+) (\S+)$", err, re.M)]


class Sft(unittest.TestCase):
    def test_layouts_against_transformers(self):
        with TempDir() as d:
            folders = {kind: tokenizer_folder(d, kind) for kind in ("tok", "llama2", "bos_eos")}
            for kind, (folder, bos) in folders.items():
                end = PreTrainedTokenizerFast.from_pretrained(folder).convert_tokens_to_ids("</s>")
                for layout in ("simple", "chatml", "plain"):
                    rows = PROMPT_RESPONSE if layout == "plain" else ROWS
                    write(os.path.join(d, "train.jsonl"), "\n".join(json.dumps(r) for r in rows) + "\n")
                    got = dump(d, folder, layout, False, 1024)
                    self.assertEqual(len(got), len(rows))
                    for row, (ids, labels, pos) in zip(rows, got):
                        want_ids, want_labels = expected_example(folder, bos, row, layout)
                        self.assertEqual(ids, want_ids, (kind, layout, row))
                        self.assertEqual(labels, want_labels, (kind, layout, row))
                        self.assertIsNone(pos)
                        if bos:  # the post-processor's prefix only: "<s>", not "<s></s>" for "<s> $A </s>"
                            self.assertEqual(ids[0], bos[0])
                            self.assertNotEqual(ids[1], end, (kind, layout))
            # the response text is exactly what is trained
            write(os.path.join(d, "train.jsonl"), "\n".join(json.dumps(r) for r in ROWS) + "\n")
            ids, labels, _ = dump(d, folders["tok"][0], "simple", False, 1024)[0]
            hf = PreTrainedTokenizerFast.from_pretrained(folders["tok"][0])
            self.assertEqual(hf.decode([t for t in labels if t != -100], skip_special_tokens=False), "Blue.<|endoftext|>\n\n")

    def test_plain_layout_is_trls_prompt_completion(self):
        # A response that ends with the end-of-text token already gets no second one; a folder
        # that names its eos only in special_tokens_map.json (older Llama 2 folders) still ends
        # each completion with it, as transformers finds it there.
        rows = PROMPT_RESPONSE + [{"prompt": "Say hi.", "response": "Hi.</s>"}]
        with TempDir() as d:
            folder, _ = tokenizer_folder(d, "llama2")
            mapped = os.path.join(d, "mapped")
            os.makedirs(mapped)
            for f in ("tokenizer.json",):
                with open(os.path.join(folder, f)) as src:
                    write(os.path.join(mapped, f), src.read())
            write(os.path.join(mapped, "tokenizer_config.json"), json.dumps({"tokenizer_class": "PreTrainedTokenizerFast"}))
            write(os.path.join(mapped, "special_tokens_map.json"), json.dumps({"bos_token": "<s>", "eos_token": "</s>"}))
            write(os.path.join(d, "train.jsonl"), "\n".join(json.dumps(r) for r in rows) + "\n")
            for where in (folder, mapped):
                got = dump(d, where, "plain", False, 1024)
                hf = PreTrainedTokenizerFast.from_pretrained(where)
                self.assertEqual(hf.eos_token, "</s>")
                model = LlamaForCausalLM(LlamaConfig(vocab_size=len(hf), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                                     num_attention_heads=2, num_key_value_heads=2))
                args = SFTConfig(output_dir=os.path.join(d, "trl_out"), max_length=None, report_to="none", use_cpu=True, bf16=False,
                                 disable_tqdm=True)
                data = Dataset.from_list([{"prompt": r["prompt"], "completion": r["response"]} for r in rows])
                trl = SFTTrainer(model=model, args=args, train_dataset=data, processing_class=hf).train_dataset
                self.assertEqual(len(got), len(trl))
                for (ids, labels, _), want in zip(got, trl):
                    self.assertEqual(ids, want["input_ids"], where)
                    self.assertEqual(labels, want["labels"], where)
                self.assertEqual(got[-1][0][-2:] != [hf.eos_token_id] * 2, True)  # one end token, not two

    def test_packing_and_truncation(self):
        with TempDir() as d:
            folder, bos = tokenizer_folder(d, "tok")
            write(os.path.join(d, "train.jsonl"), "\n".join(json.dumps(r) for r in ROWS) + "\n")
            singles = [expected_example(folder, bos, r, "simple") for r in ROWS]
            limit = max(len(s[0]) for s in singles) + 4
            rows = dump(d, folder, "simple", True, limit)
            flat_ids = [t for ids, _, _ in rows for t in ids]
            for ids, labels, pos in rows:
                self.assertEqual(len(ids), limit)
                self.assertEqual(len(pos), limit)
            # every example appears whole, its positions counting from 0
            for ids, labels in singles:
                n = len(ids)
                found = any(r[0][k:k + n] == ids and r[1][k:k + n] == labels and r[2][k:k + n] == list(range(n))
                            for r in rows for k in range(limit - n + 1))
                self.assertTrue(found, ids)
            self.assertLessEqual(len(rows), len(ROWS))
            self.assertGreater(len(flat_ids), 0)
            # truncation from the right; an example left without a trained token is dropped (TRL)
            first_trained = [next(i for i, l in enumerate(labels) if l != -100) for _, labels in singles]
            cut = first_trained[0] + 2
            short = dump(d, folder, "simple", False, cut)
            kept = [k for k, f in enumerate(first_trained) if f < cut]
            self.assertLess(len(kept), len(ROWS), "a row whose prompt fills the cut")
            self.assertEqual([x[0] for x in short], [singles[k][0][:cut] for k in kept])
            self.assertTrue(all(any(l != -100 for l in x[1]) for x in short))
            # packed: no label where the positions restart (TRL's padding-free collator), even when
            # an example starts with a trained token (no start token, an empty prompt)
            write(os.path.join(d, "train.jsonl"), "\n".join(json.dumps({"prompt": "", "response": r}) for r in ("Blue.", "Red.")) + "\n")
            packed = dump(d, folder, "plain", True, 64)
            self.assertEqual(len(packed), 1)
            ids, labels, pos = packed[0]
            starts = [l for l, p in zip(labels, pos) if p == 0]  # the two examples' and the padding's
            self.assertGreaterEqual(len(starts), 2)
            self.assertEqual(set(starts), {-100})
            self.assertGreater(sum(l != -100 for l in labels), 2)

    def test_training_on_sft_data_lowers_the_loss(self):
        with TempDir() as d:
            tokenizer_folder(d, "tok")
            rows = [{"prompt": f"Say the number {i}.", "response": f"The number is {i}."} for i in range(40)]
            write(os.path.join(d, "many.jsonl"), "\n".join(json.dumps(r) for r in rows) + "\n")
            for packing in ("false", "true"):
                # packed rows carry position_ids and no padding mask (attention stops at the boundaries)
                write(os.path.join(d, f"train_{packing}.lua"), TRAIN % (packing, packing, "false" if packing == "true" else "true"))
                code, _, err = run(os.path.join(d, f"train_{packing}.lua"), cwd=d, timeout=600)
                self.assertEqual(code, 0, err[-3000:])
                with open(os.path.join(d, f"out_{packing}", "trainer_state.json")) as f:
                    losses = [e["loss"] for e in json.load(f)["log_history"] if "loss" in e]
                self.assertLess(losses[-1], 0.75 * losses[0], (packing, losses))

    def test_neftune_noise_changes_training_only_and_needs_input_embeddings(self):
        """neftune_noise_alpha (HF's, as TRL's SFT recipes set it): the same run with noise on the
        Llama's embeddings logs other losses, still learns, and evaluates the trained model
        without noise; a recipe's own Lua model has no input embeddings runner knows: one line."""
        with TempDir() as d:
            tokenizer_folder(d, "tok")
            rows = [{"prompt": f"Say the number {i}.", "response": f"The number is {i}."} for i in range(40)]
            write(os.path.join(d, "many.jsonl"), "\n".join(json.dumps(r) for r in rows) + "\n")
            recipe = (TRAIN % ("false", "false", "true")).replace("datasets = { train = ds }", "datasets = { train = ds, eval = ds }")
            write(os.path.join(d, "train.lua"), recipe)
            history = {}
            for name, extra in (("plain", []), ("noisy", ["--neftune_noise_alpha", "5"])):
                code, _, err = run(os.path.join(d, "train.lua"), "--output_dir", "out_" + name, "--eval_strategy", "steps",
                                   "--eval_steps", "25", *extra, cwd=d, timeout=600)
                self.assertEqual(code, 0, err[-3000:])
                with open(os.path.join(d, "out_" + name, "trainer_state.json")) as f:
                    history[name] = json.load(f)["log_history"]
            losses = {k: [e["loss"] for e in h if "loss" in e] for k, h in history.items()}
            self.assertNotEqual(losses["plain"][0], losses["noisy"][0])
            self.assertLess(losses["noisy"][-1], 0.85 * losses["noisy"][0], losses["noisy"])  # noise of 0.13 on embeddings of 0.02: slower
            # Evaluation runs without noise: evaluating the noisy run's saved model again gives its logged eval_loss.
            eval_loss = [e["eval_loss"] for e in history["noisy"] if "eval_loss" in e][-1]
            again = recipe.replace("models.llama{ vocab_size = 400, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,\n"
                                   "                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64 }",
                                   'models.from_pretrained("out_noisy")')
            self.assertIn("from_pretrained", again)
            write(os.path.join(d, "again.lua"), again)
            code, _, err = run(os.path.join(d, "again.lua"), "--output_dir", "out_again", "--do_train", "false", "--do_eval", "true",
                               "--neftune_noise_alpha", "5", cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out_again", "eval_results.json")) as f:
                self.assertAlmostEqual(json.load(f)["eval_loss"], eval_loss, places=5)

            lua_model = """local data = require "runner.data"
return { args = { output_dir = "lua_out", max_steps = 1, report_to = "none", neftune_noise_alpha = 5 },
         datasets = { train = data.tensors{ x = torch.zeros(4, 2), labels = torch.zeros(4, 1) } },
         model = nn.Sequential(nn.Linear(2, 1)) }
"""
            code, _, err = run(write(os.path.join(d, "lua.lua"), lua_model), cwd=d)
            self.assertEqual(code, 2, err)
            self.assertIn("neftune_noise_alpha", err)
            self.assertIn("has no input embeddings", err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_packed_rows_into_a_model_that_attends_across_them_are_refused(self):
        # models.gpt reads position_ids (HF's GPT-2 does) but its attention, like HF's, spans
        # the whole row: packed examples would attend to each other.
        with TempDir() as d:
            tokenizer_folder(d, "tok")
            rows = [{"prompt": f"Say the number {i}.", "response": f"The number is {i}."} for i in range(12)]
            write(os.path.join(d, "many.jsonl"), "\n".join(json.dumps(r) for r in rows) + "\n")
            gpt = (TRAIN % ("true", "gpt", "false")).replace(
                "models.llama{ vocab_size = 400, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,\n"
                "                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64 }",
                "models.gpt{ vocab_size = 400, block_size = 160, n_layer = 1, n_head = 2, n_embd = 16 }").replace(
                "max_length = 48", "max_length = 160")  # rows long enough for several examples
            self.assertIn("models.gpt{", gpt)
            write(os.path.join(d, "gpt.lua"), gpt)
            code, _, err = run(os.path.join(d, "gpt.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 2, err[-3000:])
            self.assertIn("the batch packs several sequences per row (its position_ids restart), but GPT2LMHeadModel lets every token "
                          "attend to the whole row before it", err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            unpacked = gpt.replace("packing = true", "packing = false").replace("attention_mask = false", "attention_mask = true")
            write(os.path.join(d, "gpt_unpacked.lua"), unpacked)
            code, _, err = run(os.path.join(d, "gpt_unpacked.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])

    def test_bad_lines_are_one_clear_line(self):
        with TempDir() as d:
            folder, _ = tokenizer_folder(d, "tok")
            for text, message in (('{"prompt": "x"}\n', 'needs string "prompt" and "response"'),
                                  ('{"messages": [{"role": "robot", "content": "x"}]}\n', 'unknown role "robot"'),
                                  ('not json\n', "not a JSON object")):
                write(os.path.join(d, "train.jsonl"), json.dumps(ROWS[0]) + "\n" + text)
                write(os.path.join(d, "dump.lua"), DUMP % ("tok", "simple", "false", 64))
                code, _, err = run("check", os.path.join(d, "dump.lua"), cwd=d)
                self.assertEqual(code, 2, err)
                self.assertIn("train.jsonl:2", err)
                self.assertIn(message, err)


if __name__ == "__main__":
    unittest.main()
