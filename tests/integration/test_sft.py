"""data.sft: supervised fine-tuning examples from JSONL. The ids are the `tokenizers` package's
for each template segment, the prompt (and every non-assistant turn) is masked to -100, the
end-of-text token from tokenizer_config.json ends each response, packing fills rows of exactly
max_length whose position_ids restart per example, and a Llama trains on both forms (the loss
falls). Bad lines are one clear line naming file:line. Exit 77 (skipped) without tokenizers."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, run, write  # noqa: E402

try:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
except ImportError as e:
    print(f"SKIP: tokenizers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

ROWS = [
    {"prompt": "Name a colour.", "response": "Blue."},
    {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi"},
                  {"role": "assistant", "content": "Hi!"}, {"role": "user", "content": "Again"},
                  {"role": "assistant", "content": "Hi again."}]},
    {"prompt": "Count to three.", "response": "One, two, three."},
]

# Prints each example's fields as JSON lines, then returns a trivial recipe.
DUMP = """local data = require "runner.data"
local ds = data.sft{ path = "train.jsonl", tokenizer = "tok/tokenizer.json", chat_template = "%s", packing = %s, max_length = %d }
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
  model = models.llama{ vocab_size = 300, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,
                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64 },
}
"""


def make_tokenizer(folder):
    with open(os.path.join(SOURCE, "recipes/lib/shakespeare.txt")) as f:
        text = f.read()[:40000]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([text], trainer)
    os.makedirs(os.path.join(folder, "tok"), exist_ok=True)
    tok.save(os.path.join(folder, "tok", "tokenizer.json"))
    write(os.path.join(folder, "tok", "tokenizer_config.json"), json.dumps({"eos_token": "<|endoftext|>"}))
    return tok


def expected_example(tok, row, template):
    """(ids, labels) by the documented templates, segment by segment."""
    if "messages" in row:
        turns = [(m["role"], m["content"]) for m in row["messages"]]
    else:
        turns = [("user", row["prompt"]), ("assistant", row["response"])]
    segments = []
    for role, content in turns:
        if template == "chatml":
            segments += [(f"<|im_start|>{role}\n", False), (content + "<|im_end|>\n", role == "assistant")]
            if role == "assistant":
                segments.append(("<|endoftext|>", True))
        elif role == "system":
            segments.append((f"### System:\n{content}\n\n", False))
        elif role == "user":
            segments.append((f"### Instruction:\n{content}\n\n### Response:\n", False))
        else:
            segments.append((content + "<|endoftext|>\n\n", True))
    ids, labels = [], []
    for text, trained in segments:
        piece = tok.encode(text, add_special_tokens=False).ids
        ids += piece
        labels += piece if trained else [-100] * len(piece)
    return ids, labels


def dump(d, template, packing, max_length):
    write(os.path.join(d, "dump.lua"), DUMP % (template, "true" if packing else "false", max_length))
    code, _, err = run("check", os.path.join(d, "dump.lua"), cwd=d)
    assert code == 0, err[-2000:]
    return [tuple(json.loads(x) for x in m.groups()) for m in re.finditer(r"EXAMPLE (\S+) (\S+) (\S+)$", err, re.M)]


class Sft(unittest.TestCase):
    def test_templates_masks_and_eos(self):
        with TempDir() as d:
            tok = make_tokenizer(d)
            write(os.path.join(d, "train.jsonl"), "\n".join(json.dumps(r) for r in ROWS) + "\n")
            for template in ("simple", "chatml"):
                got = dump(d, template, False, 1024)
                self.assertEqual(len(got), 3)
                for row, (ids, labels, pos) in zip(ROWS, got):
                    want_ids, want_labels = expected_example(tok, row, template)
                    self.assertEqual(ids, want_ids, template)
                    self.assertEqual(labels, want_labels, template)
                    self.assertIsNone(pos)
            # the response text is exactly what is trained
            ids, labels, _ = dump(d, "simple", False, 1024)[0]
            self.assertEqual(tok.decode([t for t in labels if t != -100], skip_special_tokens=False), "Blue.<|endoftext|>\n\n")

    def test_packing_and_truncation(self):
        with TempDir() as d:
            tok = make_tokenizer(d)
            write(os.path.join(d, "train.jsonl"), "\n".join(json.dumps(r) for r in ROWS) + "\n")
            singles = [expected_example(tok, r, "simple") for r in ROWS]
            limit = max(len(s[0]) for s in singles) + 4
            rows = dump(d, "simple", True, limit)
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
            self.assertLessEqual(len(rows), 3)
            self.assertGreater(len(flat_ids), 0)
            # truncation from the right
            short = dump(d, "simple", False, 5)
            self.assertEqual([len(x[0]) for x in short], [5, 5, 5])
            self.assertEqual(short[0][0], singles[0][0][:5])

    def test_training_on_sft_data_lowers_the_loss(self):
        with TempDir() as d:
            make_tokenizer(d)
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

    def test_packed_rows_into_a_model_that_ignores_position_ids_are_refused(self):
        # models.gpt reads no position_ids: packed examples would attend to each other.
        with TempDir() as d:
            make_tokenizer(d)
            rows = [{"prompt": f"Say the number {i}.", "response": f"The number is {i}."} for i in range(12)]
            write(os.path.join(d, "many.jsonl"), "\n".join(json.dumps(r) for r in rows) + "\n")
            gpt = (TRAIN % ("true", "gpt", "false")).replace(
                "models.llama{ vocab_size = 300, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,\n"
                "                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64 }",
                "models.gpt{ vocab_size = 300, block_size = 160, n_layer = 1, n_head = 2, n_embd = 16 }").replace(
                "max_length = 48", "max_length = 160")  # rows long enough for several examples
            self.assertIn("models.gpt{", gpt)
            write(os.path.join(d, "gpt.lua"), gpt)
            code, _, err = run(os.path.join(d, "gpt.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 2, err[-3000:])
            self.assertIn("the batch packs several sequences per row (its position_ids restart), but GPT2LMHeadModel does not read position_ids",
                          err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            unpacked = gpt.replace("packing = true", "packing = false").replace("attention_mask = false", "attention_mask = true")
            write(os.path.join(d, "gpt_unpacked.lua"), unpacked)
            code, _, err = run(os.path.join(d, "gpt_unpacked.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])

    def test_bad_lines_are_one_clear_line(self):
        with TempDir() as d:
            make_tokenizer(d)
            for text, message in (('{"prompt": "x"}\n', 'needs string "prompt" and "response"'),
                                  ('{"messages": [{"role": "robot", "content": "x"}]}\n', 'unknown role "robot"'),
                                  ('not json\n', "not a JSON object")):
                write(os.path.join(d, "train.jsonl"), json.dumps(ROWS[0]) + "\n" + text)
                write(os.path.join(d, "dump.lua"), DUMP % ("simple", "false", 64))
                code, _, err = run("check", os.path.join(d, "dump.lua"), cwd=d)
                self.assertEqual(code, 2, err)
                self.assertIn("train.jsonl:2", err)
                self.assertIn(message, err)


if __name__ == "__main__":
    unittest.main()
