"""data.sft with the model folder's Jinja chat template (chat_template = "auto", the default).
Model folders are made with the `tokenizers` package and read back with transformers'
PreTrainedTokenizerFast.from_pretrained, whose apply_chat_template(..., tokenize=False) gives
the reference text; the trained segments are what TRL/transformers take when a template has no
{% generation %} markers (the text through assistant turn i minus the text before it with the
generation prompt), tokenized with `tokenizers` (special tokens in the text are matched as added
tokens). With markers, the labels equal transformers' return_assistant_tokens_mask. The
tokenizer's start token is not doubled when the template writes it; templates that refuse a
conversation, or are not prefix-stable, fail with one line naming the data line. Exit 77
(skipped) without tokenizers/transformers."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, run, write  # noqa: E402

try:
    import jinja2  # noqa: F401
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast
except ImportError as e:
    print(f"SKIP: tokenizers/transformers not installed ({e}); scripts/setup installs them")
    sys.exit(77)

TEMPLATES = os.path.join(SOURCE, "tests/data/chat_templates")

SYSTEM = {"role": "system", "content": "Be brief."}
ROWS = [
    {"messages": [SYSTEM, {"role": "user", "content": "Say hi"}, {"role": "assistant", "content": "Hi!"},
                  {"role": "user", "content": "Again"}, {"role": "assistant", "content": "Hi again, naïve café 🙂."}]},
    {"prompt": "Count to three.", "response": "One, two, three."},
    {"messages": [{"role": "user", "content": "What do <|im_end|> and <|eot_id|> mean?"},
                  {"role": "assistant", "content": "They end a turn."}]},
]
NO_SYSTEM = [r for r in ROWS if "messages" not in r or r["messages"][0]["role"] != "system"]

DUMP = """local data = require "runner.data"
local ds = data.sft{ path = "train.jsonl", tokenizer = "%s/tokenizer.json", chat_template = %s, add_bos = %s, max_length = 4096 }
local function list(t) local o = {} for i = 0, t:size(0) - 1 do o[#o + 1] = t:select(0, i):item() end return "[" .. table.concat(o, ",") .. "]" end
for i = 0, #ds - 1 do
  local e = ds:get(i)
  print("EXAMPLE " .. list(e.input_ids) .. " " .. list(e.labels))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

# A ChatML template with transformers' {% generation %} markers (as TRL's training templates have).
GENERATION_TEMPLATE = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' }}{% if m['role'] == 'assistant' %}"
                       "{% generation %}{{ m['content'] + '<|im_end|>' }}{% endgeneration %}{{ '\\n' }}"
                       "{% else %}{{ m['content'] + '<|im_end|>\\n' }}{% endif %}{% endfor %}"
                       "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


def template(name):
    with open(os.path.join(TEMPLATES, name + ".jinja"), encoding="utf-8") as f:
        return f.read()


def model_folder(root, name, specials, config, bos=None, jinja_file=None):
    """A model folder: a byte-level BPE tokenizer.json with `specials` as added special tokens
    (`bos` prepended by its post-processor), tokenizer_config.json, optionally chat_template.jinja."""
    with open(os.path.join(SOURCE, "recipes/lib/shakespeare.txt")) as f:
        text = f.read()[:30000]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator([text, "naïve café 🙂 ✓"], trainers.BpeTrainer(
        vocab_size=400, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    if bos:
        tok.post_processor = processors.TemplateProcessing(single=f"{bos} $A", special_tokens=[(bos, tok.token_to_id(bos))])
    folder = os.path.join(root, name)
    os.makedirs(folder)
    tok.save(os.path.join(folder, "tokenizer.json"))
    write(os.path.join(folder, "tokenizer_config.json"), json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", **config}))
    if jinja_file is not None:
        write(os.path.join(folder, "chat_template.jinja"), jinja_file)
    return folder, tok


def conversation(row):
    if "messages" in row:
        return row["messages"]
    return [{"role": "user", "content": row["prompt"]}, {"role": "assistant", "content": row["response"]}]


def expected(folder, tok, row, add_bos=True):
    """(ids, labels) by the documented rule, with transformers' rendering."""
    hf = PreTrainedTokenizerFast.from_pretrained(folder)
    msgs = conversation(row)
    full = hf.apply_chat_template(msgs, tokenize=False)
    segments, pos = [], 0
    for i, m in enumerate(msgs):
        if m["role"] != "assistant":
            continue
        before = hf.apply_chat_template(msgs[:i], tokenize=False, add_generation_prompt=True)
        through = hf.apply_chat_template(msgs[:i + 1], tokenize=False)
        assert full.startswith(before) and full.startswith(through), (before, through, full)
        segments += [(full[pos:len(before)], False), (full[len(before):len(through)], True)]
        pos = len(through)
    segments.append((full[pos:], False))
    ids, labels = [], []
    for text, trained in segments:
        piece = tok.encode(text, add_special_tokens=False).ids
        ids += piece
        labels += piece if trained else [-100] * len(piece)
    bos = tok.encode("", add_special_tokens=True).ids
    if add_bos and bos and ids[:len(bos)] != bos:
        ids, labels = bos + ids, [-100] * len(bos) + labels
    return ids, labels, full


def dump(root, folder, rows, chat_template='"auto"', add_bos=True):
    write(os.path.join(root, "train.jsonl"), "\n".join(json.dumps(r) for r in rows) + "\n")
    write(os.path.join(root, "dump.lua"), DUMP % (os.path.basename(folder), chat_template, "true" if add_bos else "false"))
    code, _, err = run("check", os.path.join(root, "dump.lua"), cwd=root)
    return code, [tuple(json.loads(x) for x in m.groups()) for m in re.finditer(r"EXAMPLE (\S+) (\S+)$", err, re.M)], err


class SftChatTemplate(unittest.TestCase):
    def check_rows(self, root, folder, tok, rows, add_bos=True):
        code, got, err = dump(root, folder, rows, add_bos=add_bos)
        self.assertEqual(code, 0, err[-3000:])
        self.assertEqual(len(got), len(rows))
        for row, (ids, labels) in zip(rows, got):
            want_ids, want_labels, full = expected(folder, tok, row, add_bos)
            self.assertEqual(ids, want_ids, full)
            self.assertEqual(labels, want_labels, full)
        return got

    def test_llama3_template_from_tokenizer_config(self):
        with TempDir() as d:
            specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
            folder, tok = model_folder(d, "llama3", specials, {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
                                                               "chat_template": template("llama3_1")}, bos="<|begin_of_text|>")
            got = self.check_rows(d, folder, tok, ROWS)
            bos, eot = tok.token_to_id("<|begin_of_text|>"), tok.token_to_id("<|eot_id|>")
            for ids, labels in got:
                self.assertEqual(ids.count(bos), 1)  # the template writes it; the tokenizer's is not added again
                self.assertEqual(ids[0], bos)
            ids, labels = got[0]
            trained = [t for t in labels if t != -100]
            self.assertEqual(tok.decode(trained, skip_special_tokens=False), "Hi!<|eot_id|>Hi again, naïve café 🙂.<|eot_id|>")
            self.assertEqual(labels.count(eot), 2)  # each assistant turn's end token is learnt, nothing else's
            # "<|eot_id|>" written in a user message is the special token too (as transformers encodes
            # it): after the system block, inside and after the user turn, after the assistant's
            self.assertEqual(got[2][0].count(eot), 4)
            self.assertEqual(got[2][1].count(eot), 1)
            # the whole text tokenized at once gives the same ids: segment boundaries fall between tokens
            for row, (ids, _) in zip(ROWS, got):
                self.assertEqual(ids, tok.encode(expected(folder, tok, row)[2], add_special_tokens=False).ids)

    def test_qwen_template_file_wins_and_tools(self):
        with TempDir() as d:
            specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
            folder, tok = model_folder(d, "qwen", specials, {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>",
                                                             "chat_template": "{{ 'not this one' }}"},
                                       jinja_file=template("qwen2_5"))
            self.check_rows(d, folder, tok, ROWS)
            # a line's "tools" reach the template (Qwen lists them in its system prompt)
            tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
            row = {"messages": conversation(ROWS[1]), "tools": tools}
            code, got, err = dump(d, folder, [row])
            self.assertEqual(code, 0, err[-2000:])
            text = tok.decode(got[0][0], skip_special_tokens=False)
            self.assertIn('{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}', text)
            hf = PreTrainedTokenizerFast.from_pretrained(folder)
            self.assertEqual(text, hf.apply_chat_template(row["messages"], tools=tools, tokenize=False))

    def test_zephyr_template_gets_the_tokenizers_bos(self):
        with TempDir() as d:
            folder, tok = model_folder(d, "zephyr", ["<unk>", "<s>", "</s>"], {"bos_token": "<s>", "eos_token": "</s>",
                                                                              "chat_template": template("zephyr")}, bos="<s>")
            got = self.check_rows(d, folder, tok, ROWS)
            self.assertTrue(all(ids[0] == tok.token_to_id("<s>") for ids, _ in got))
            got = self.check_rows(d, folder, tok, ROWS, add_bos=False)  # as apply_chat_template(tokenize=True) gives it
            self.assertTrue(all(ids[0] != tok.token_to_id("<s>") for ids, _ in got))

    def test_generation_markers_give_transformers_assistant_mask(self):
        with TempDir() as d:
            specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
            folder, tok = model_folder(d, "marked", specials, {"eos_token": "<|im_end|>", "chat_template": GENERATION_TEMPLATE})
            code, got, err = dump(d, folder, ROWS)
            self.assertEqual(code, 0, err[-2000:])
            hf = PreTrainedTokenizerFast.from_pretrained(folder)
            for row, (ids, labels) in zip(ROWS, got):
                out = hf.apply_chat_template(conversation(row), tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
                self.assertEqual(ids, out["input_ids"])
                self.assertEqual(labels, [t if m else -100 for t, m in zip(out["input_ids"], out["assistant_masks"])])
            # the same template given literally in the recipe
            code, literal, err = dump(d, folder, ROWS, chat_template="[==[" + GENERATION_TEMPLATE + "]==]")
            self.assertEqual(code, 0, err[-2000:])
            self.assertEqual(literal, got)

    def test_refusals_and_unusable_templates_are_one_clear_line(self):
        with TempDir() as d:
            gemma, _ = model_folder(d, "gemma", ["<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>"],
                                    {"bos_token": "<bos>", "eos_token": "<eos>", "chat_template": template("gemma2")}, bos="<bos>")
            code, _, err = dump(d, gemma, NO_SYSTEM + ROWS[:1])
            self.assertEqual(code, 2, err)
            self.assertRegex(err, r"train\.jsonl:3: chat template .*gemma/tokenizer_config\.json \(chat_template\):1: "
                                  r"System role not supported")
            mistral, _ = model_folder(d, "mistral", ["<unk>", "<s>", "</s>"], {"bos_token": "<s>", "eos_token": "</s>",
                                                                               "chat_template": template("mistral_v0_3")}, bos="<s>")
            code, got, err = dump(d, mistral, NO_SYSTEM)  # fine without a system message
            self.assertEqual(code, 0, err[-2000:])
            code, _, err = dump(d, mistral, ROWS[:1])  # it moves the system prompt into the last user turn
            self.assertEqual(code, 2, err)
            self.assertIn("train.jsonl:1: chat template", err)
            self.assertIn("is not prefix-stable", err)
            plain, _ = model_folder(d, "plain", ["<|endoftext|>"], {"eos_token": "<|endoftext|>"})
            code, _, err = dump(d, plain, ROWS, chat_template='"tokenizer"')
            self.assertEqual(code, 2, err)
            self.assertIn('chat_template = "tokenizer", but', err)
            self.assertIn("has no chat_template.jinja", err)
            code, _, err = dump(d, plain, ROWS, chat_template='"{{ messages[0].content | nofilter }}"')
            self.assertEqual(code, 2, err)
            self.assertIn("data.sft chat_template:1: no filter named 'nofilter'", err)
            code, got, err = dump(d, plain, ROWS[1:2])  # auto without a template: the simple layout
            self.assertEqual(code, 0, err[-2000:])
            self.assertEqual(tok_text(plain, got[0][0]), "### Instruction:\nCount to three.\n\n### Response:\nOne, two, three.<|endoftext|>\n\n")


def tok_text(folder, ids):
    return Tokenizer.from_file(os.path.join(folder, "tokenizer.json")).decode(ids, skip_special_tokens=False)


if __name__ == "__main__":
    unittest.main()
