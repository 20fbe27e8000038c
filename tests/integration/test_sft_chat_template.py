"""data.sft with the model folder's Jinja chat template (chat_template = "auto", the default),
against the real packages on tokenizers in the shapes Llama 2 / TinyLlama, Llama 3, Qwen 2.5,
Mistral, Zephyr and Gemma ship (tokenizer_shapes.py, built with `tokenizers`, no downloads) and
their real templates (tests/data/chat_templates): the ids are transformers'
apply_chat_template(messages, tokenize=True), and the labels TRL's SFTTrainer's, with
assistant_only_loss=True where TRL can train the template (it has {% generation %} markers, or
TRL has a training version of it: Llama 3, Qwen 2.5, Gemma), else with completion_only_loss on
the same conversations as prompt/completion. The whole text is tokenized once: tokenizing it
piece by piece (what data.sft did before) gives Llama 2 style tokenizers a "▁" at each cut. The
tokenizer's start token is not added to a templated conversation unless add_bos = true, and
never doubled; templates that refuse a conversation, or are not prefix-stable, fail with one
line naming the data line. Exit 77 (skipped) without tokenizers/transformers/trl."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, run, write  # noqa: E402

try:
    import jinja2  # noqa: F401
    from datasets import Dataset
    from tokenizers import Tokenizer
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging
    from trl import SFTConfig, SFTTrainer
    from trl import chat_template_utils as trl_templates
    from tokenizer_shapes import byte_level, model_folder, sentencepiece  # noqa: E402
except ImportError as e:
    print(f"SKIP: tokenizers/transformers/trl not installed ({e}); scripts/setup installs them")
    sys.exit(77)

hf_logging.set_verbosity_error()
TEMPLATES = os.path.join(SOURCE, "tests/data/chat_templates")

SYSTEM = {"role": "system", "content": "Be brief."}
ROWS = [
    {"messages": [SYSTEM, {"role": "user", "content": "Say hi"}, {"role": "assistant", "content": "Hi!"},
                  {"role": "user", "content": "Again"}, {"role": "assistant", "content": "Hi again, naïve café 🙂."}]},
    {"prompt": "Count to three.", "response": "One, two, three."},
    {"messages": [{"role": "user", "content": "What do <|im_end|> and <|eot_id|> mean?"},
                  {"role": "assistant", "content": "They end a turn."}]},
    {"messages": [{"role": "user", "content": "  Two  spaces,\n\nnew lines\tand ½ € 東京 "},
                  {"role": "assistant", "content": " A leading space, two\n\nnew lines and an emoji 🙂"}]},
    {"messages": [{"role": "user", "content": "One?"}, {"role": "assistant", "content": "One."},
                  {"role": "user", "content": "Two?"}, {"role": "assistant", "content": "One, two."}]},
]
NO_SYSTEM = [r for r in ROWS if "messages" not in r or r["messages"][0]["role"] != "system"]

DUMP = """local data = require "runner.data"
local ds = data.sft{ path = "train.jsonl", tokenizer = "%s/tokenizer.json", chat_template = %s,%s max_length = 4096 }
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


def conversation(row):
    if "messages" in row:
        return row["messages"]
    return [{"role": "user", "content": row["prompt"]}, {"role": "assistant", "content": row["response"]}]


def single_turn(row):
    """One assistant turn, the last: TRL's prompt/completion form of the same conversation."""
    msgs = conversation(row)
    return [m["role"] for m in msgs].count("assistant") == 1 and msgs[-1]["role"] == "assistant"


def hf_ids(folder, row, tools=None):
    hf = PreTrainedTokenizerFast.from_pretrained(folder)
    return hf.apply_chat_template(conversation(row), tools=tools, tokenize=True, return_dict=True)["input_ids"]


def trl_examples(folder, rows, assistant_only):
    """(input_ids, labels) of TRL's SFTTrainer for `rows`: conversations with
    assistant_only_loss=True, or (assistant_only False) each as prompt/completion, whose
    completion_only_loss trains the last message."""
    hf = PreTrainedTokenizerFast.from_pretrained(folder)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(hf), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                         num_attention_heads=2, num_key_value_heads=2))
    data = [{"messages": conversation(r)} if assistant_only else {"prompt": conversation(r)[:-1], "completion": conversation(r)[-1:]}
            for r in rows]
    args = SFTConfig(output_dir=os.path.join(folder, "trl_out"), assistant_only_loss=assistant_only, max_length=None, report_to="none",
                     use_cpu=True, bf16=False, disable_tqdm=True)
    trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(data), processing_class=hf)
    return [(e["input_ids"], e["labels"]) for e in trainer.train_dataset]


def dump(root, folder, rows, chat_template='"auto"', add_bos=None):
    write(os.path.join(root, "train.jsonl"), "\n".join(json.dumps(r) for r in rows) + "\n")
    bos = "" if add_bos is None else f" add_bos = {'true' if add_bos else 'false'},"
    write(os.path.join(root, "dump.lua"), DUMP % (os.path.basename(folder), chat_template, bos))
    code, _, err = run("check", os.path.join(root, "dump.lua"), cwd=root)
    return code, [tuple(json.loads(x) for x in m.groups()) for m in re.finditer(r"EXAMPLE (\S+) (\S+)$", err, re.M)], err


class SftChatTemplate(unittest.TestCase):
    def check(self, root, folder, rows, assistant_only):
        """runner's ids are apply_chat_template's and its labels TRL's; returns runner's examples."""
        code, got, err = dump(root, folder, rows)
        self.assertEqual(code, 0, err[-3000:])
        self.assertEqual(len(got), len(rows))
        for row, (ids, _) in zip(rows, got):
            self.assertEqual(ids, hf_ids(folder, row), conversation(row))
        compared = [(row, ex) for row, ex in zip(rows, got) if assistant_only or single_turn(row)]
        self.assertGreaterEqual(len(compared), 2)
        trl = trl_examples(folder, [row for row, _ in compared], assistant_only)
        for (row, (ids, labels)), (trl_ids, trl_labels) in zip(compared, trl):
            self.assertEqual(ids, trl_ids, conversation(row))
            self.assertEqual(labels, trl_labels, conversation(row))
        return got

    def test_llama3(self):
        with TempDir() as d:
            specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
            tok = byte_level("llama3", specials, bos="<|begin_of_text|>")
            config = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
            folder = model_folder(d, "llama3", tok, {**config, "chat_template": template("llama3_1")})
            got = self.check(d, folder, ROWS, assistant_only=False)  # TRL has no training version of 3.1's template
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
            # Llama 3's own template, which TRL trains assistant-only: every turn, system prompts too
            folder = model_folder(d, "llama3_trl", tok, {**config, "chat_template": trl_templates.llama3_chat_template})
            self.check(d, folder, ROWS, assistant_only=True)

    def test_qwen2_5_template_file_wins_tools_and_trl_training_template(self):
        with TempDir() as d:
            specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
            tok = byte_level("qwen2", specials)
            config = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
            folder = model_folder(d, "qwen", tok, {**config, "chat_template": "{{ 'not this one' }}"}, jinja_file=template("qwen2_5"))
            self.check(d, folder, ROWS, assistant_only=False)
            # a line's "tools" reach the template (Qwen lists them in its system prompt)
            tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
            row = {"messages": conversation(ROWS[1]), "tools": tools}
            code, got, err = dump(d, folder, [row])
            self.assertEqual(code, 0, err[-2000:])
            self.assertEqual(got[0][0], hf_ids(folder, row, tools=tools))
            self.assertIn('{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}',
                          tok.decode(got[0][0], skip_special_tokens=False))
            # TRL's training version of the template ({% generation %} around "\n" + content + "<|im_end|>\n"),
            # given to both: runner's labels are its assistant mask
            marked = trl_templates.get_training_chat_template(PreTrainedTokenizerFast.from_pretrained(folder))
            folder = model_folder(d, "qwen_marked", tok, config, jinja_file=marked)
            self.check(d, folder, ROWS, assistant_only=True)

    def test_qwen3_reasoning_rows_with_its_template_and_trls_training_version(self):
        """Qwen 3's template (as TRL ships it) on rows whose reasoning is in the content
        (<think> ... </think>), in reasoning_content, or in gpt-oss's "thinking" (transformers
        aliases them: template_messages); TRL's training version ({% generation %} markers) trains
        every assistant turn with its reasoning."""
        user = {"role": "user", "content": "What is 2 + 2?"}
        rows = [{"messages": [user, {"role": "assistant", "content": "Four.", "reasoning_content": "Two and two."}]},
                {"messages": [user, {"role": "assistant", "thinking": "Two and two.", "content": "Four."}]},
                {"messages": [user, {"role": "assistant", "content": "<think>\nTwo and two.\n</think>\n\nFour."}]},
                {"messages": [user, {"role": "assistant", "content": "Four.", "reasoning_content": "Two and two."},
                              {"role": "user", "content": "And 3 + 3?"}, {"role": "assistant", "content": "Six.", "reasoning": "Three and three."}]},
                ROWS[0]]
        with TempDir() as d:
            specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]
            tok = byte_level("qwen2", specials)
            config = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
            folder = model_folder(d, "qwen3", tok, config, jinja_file=trl_templates.qwen3_chat_template)
            got = self.check(d, folder, rows[:3], assistant_only=False)
            # the reasoning reached the template: the last turn's, as Qwen 3 shows it
            for ids, _ in got:
                self.assertIn("<think>\nTwo and two.\n</think>\n\nFour.", tok.decode(ids, skip_special_tokens=False))
            # several turns: Qwen 3 drops the reasoning of turns before the last question, so a turn
            # renders otherwise once more follow and its text cannot be cut out; one line says so
            code, _, err = dump(d, folder, rows[3:4])
            self.assertEqual(code, 2)
            self.assertIn("train.jsonl:1: chat template qwen3/chat_template.jinja is not prefix-stable", err)
            marked = trl_templates.get_training_chat_template(PreTrainedTokenizerFast.from_pretrained(folder))
            self.assertEqual(marked, trl_templates.qwen3_training_chat_template)
            folder = model_folder(d, "qwen3_marked", tok, config, jinja_file=marked)
            got = self.check(d, folder, rows, assistant_only=True)
            trained = tok.decode([t for t in got[3][1] if t != -100], skip_special_tokens=False)
            self.assertIn("Two and two.", trained)
            self.assertIn("Three and three.", trained)

    def test_gemma(self):
        with TempDir() as d:  # SentencePiece with byte fallback, spaces to "▁" and no prefix; the template writes <bos>
            specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"]
            tok = sentencepiece("gemma", specials, bos="<bos>")
            folder = model_folder(d, "gemma", tok, {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>",
                                                    "chat_template": template("gemma2")})
            got = self.check(d, folder, NO_SYSTEM, assistant_only=True)  # TRL's training version of Gemma's template
            self.assertTrue(all(ids.count(tok.token_to_id("<bos>")) == 1 for ids, _ in got))

    def test_llama2_style_tokenizers_with_zephyr_and_mistral_templates(self):
        with TempDir() as d:
            zephyr = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
            # TinyLlama as published (Prepend + Replace), Zephyr as transformers writes it (Metaspace "first")
            for style, name in (("llama2", "tinyllama"), ("metaspace", "zephyr")):
                tok = sentencepiece(style, ["<unk>", "<s>", "</s>"], bos="<s>")
                folder = model_folder(d, name, tok, {**zephyr, "chat_template": template(name)})
                got = self.check(d, folder, ROWS, assistant_only=False)
                self.assertTrue(all(ids[0] != tok.token_to_id("<s>") for ids, _ in got))  # no template bos: none added
                # add_bos = true puts the tokenizer's <s> (and only it) in front, untrained
                code, with_bos, err = dump(d, folder, ROWS, add_bos=True)
                self.assertEqual(code, 0, err[-2000:])
                self.assertEqual(with_bos, [([tok.token_to_id("<s>")] + ids, [-100] + labels) for ids, labels in got])
            # Mistral v0.3: [INST] and [/INST] are control tokens; the template writes <s>
            tok = sentencepiece("metaspace", ["<unk>", "<s>", "</s>", "[INST]", "[/INST]"], bos="<s>")
            folder = model_folder(d, "mistral", tok, {**zephyr, "chat_template": template("mistral_v0_3")})
            got = self.check(d, folder, NO_SYSTEM, assistant_only=False)
            self.assertTrue(all(ids.count(tok.token_to_id("<s>")) == 1 for ids, _ in got))

    def test_generation_markers_give_transformers_assistant_mask(self):
        with TempDir() as d:
            tok = byte_level("gpt2", ["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
            folder = model_folder(d, "marked", tok, {"eos_token": "<|im_end|>", "chat_template": GENERATION_TEMPLATE})
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

    def test_a_lines_template_kwargs_and_tools_as_a_json_string_reach_the_template(self):
        """TRL passes a row's chat_template_kwargs to apply_chat_template and parses tools
        stored as a JSON string (as HF datasets store them); runner dropped the first and looped
        over the second's characters."""
        thinking = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' }}{% if m['role'] == 'assistant' %}"
                    "{% generation %}{% if not enable_thinking %}{{ '<think></think>' }}{% endif %}{{ m['content'] + '<|im_end|>' }}"
                    "{% endgeneration %}{{ '\\n' }}{% else %}{{ m['content'] + '<|im_end|>\\n' }}{% endif %}{% endfor %}"
                    "{% if tools %}{{ tools | tojson }}{% endif %}")
        tool = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}}
        messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}]
        rows = [{"messages": messages, "chat_template_kwargs": {"enable_thinking": True}},
                {"messages": messages, "chat_template_kwargs": {"enable_thinking": False}},
                {"messages": messages, "tools": json.dumps([tool])}]
        with TempDir() as d:
            tok = byte_level("gpt2", ["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
            folder = model_folder(d, "think", tok, {"eos_token": "<|im_end|>", "chat_template": thinking})
            code, got, err = dump(d, folder, rows)
            self.assertEqual(code, 0, err[-2000:])
            hf = PreTrainedTokenizerFast.from_pretrained(folder)
            model = LlamaForCausalLM(LlamaConfig(vocab_size=len(hf), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                                 num_attention_heads=2, num_key_value_heads=2))
            args = SFTConfig(output_dir=os.path.join(d, "trl_out"), assistant_only_loss=True, max_length=None, report_to="none",
                             use_cpu=True, bf16=False, disable_tqdm=True)
            # two datasets: from_list would give the tools row a None chat_template_kwargs, which TRL cannot unpack
            trl = [e for part in (rows[:2], rows[2:])
                   for e in SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(part), processing_class=hf).train_dataset]
            self.assertEqual(len(got), 3)
            for (ids, labels), want in zip(got, trl):
                self.assertEqual(ids, want["input_ids"])
                self.assertEqual(labels, want["labels"])
            self.assertNotEqual(got[0][0], got[1][0])  # the kwargs changed the text
            self.assertIn("get_weather", hf.decode(got[2][0]))

    def test_tool_use_template_is_chosen_for_lines_with_tools(self):
        # transformers v5 saves named templates as additional_chat_templates/NAME.jinja and, without a
        # name, renders a conversation with tools with "tool_use", one without with "default"
        tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
        tool_use = ("{{ '<|im_start|>system\\nYou may call: ' + (tools | map(attribute='function.name') | join(', ')) + '<|im_end|>\\n' }}"
                    + GENERATION_TEMPLATE)
        rows = [{"messages": conversation(ROWS[1]), "tools": tools}, ROWS[4], {"messages": conversation(ROWS[3]), "tools": []}]
        with TempDir() as d:
            tok = byte_level("gpt2", ["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
            folder = model_folder(d, "named", tok, {"eos_token": "<|im_end|>"}, jinja_file=GENERATION_TEMPLATE)
            write(os.path.join(folder, "additional_chat_templates", "tool_use.jinja"), tool_use)
            code, got, err = dump(d, folder, rows)
            self.assertEqual(code, 0, err[-2000:])
            hf = PreTrainedTokenizerFast.from_pretrained(folder)
            self.assertEqual(sorted(hf.chat_template), ["default", "tool_use"])
            for row, (ids, labels) in zip(rows, got):
                out = hf.apply_chat_template(conversation(row), tools=row.get("tools"), tokenize=True, return_dict=True,
                                             return_assistant_tokens_mask=True)
                self.assertEqual(ids, out["input_ids"], row)
                self.assertEqual(labels, [t if m else -100 for t, m in zip(out["input_ids"], out["assistant_masks"])])
            self.assertIn("You may call: get_weather", tok_text(folder, got[0][0]))
            self.assertNotIn("You may call", tok_text(folder, got[1][0]))
            self.assertIn("You may call: <|im_end|>", tok_text(folder, got[2][0]))  # tools = []: still tool_use, as in transformers
            # tokenizer_config.json's list form, with no "default": a name picks one; a line without
            # tools has no template (transformers raises too)
            listed = model_folder(d, "listed", tok, {"eos_token": "<|im_end|>", "chat_template": [
                {"name": "tool_use", "template": tool_use}, {"name": "rag", "template": GENERATION_TEMPLATE}]})
            hf = PreTrainedTokenizerFast.from_pretrained(listed)
            code, got, err = dump(d, listed, rows[:1])
            self.assertEqual(code, 0, err[-2000:])
            self.assertEqual(got[0][0], hf.apply_chat_template(conversation(rows[0]), tools=tools, tokenize=True, return_dict=True)["input_ids"])
            code, got, err = dump(d, listed, rows, chat_template='"rag"')
            self.assertEqual(code, 0, err[-2000:])
            for row, (ids, _) in zip(rows, got):
                self.assertEqual(ids, hf.apply_chat_template(conversation(row), tools=row.get("tools"), chat_template="rag", tokenize=True,
                                                            return_dict=True)["input_ids"])
            with self.assertRaises(ValueError):
                hf.apply_chat_template(conversation(rows[1]), tokenize=True)
            code, _, err = dump(d, listed, rows)
            self.assertEqual(code, 2, err)
            self.assertIn('train.jsonl:2: this line has no "tools"', err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            code, _, err = dump(d, listed, rows, chat_template='"nosuch"')
            self.assertEqual(code, 2, err)
            self.assertIn('or a template of', err)
            self.assertIn('"rag", "tool_use", got "nosuch"', err)

    def test_refusals_and_unusable_templates_are_one_clear_line(self):
        with TempDir() as d:
            tok = byte_level("gpt2", ["<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>"], bos="<bos>")
            gemma = model_folder(d, "gemma", tok, {"bos_token": "<bos>", "eos_token": "<eos>", "chat_template": template("gemma2")})
            code, _, err = dump(d, gemma, NO_SYSTEM + ROWS[:1])
            self.assertEqual(code, 2, err)
            self.assertRegex(err, rf"train\.jsonl:{len(NO_SYSTEM) + 1}: chat template .*gemma/tokenizer_config\.json \(chat_template\):1: "
                                  r"System role not supported")
            tok = byte_level("gpt2", ["<unk>", "<s>", "</s>"], bos="<s>")
            mistral = model_folder(d, "mistral", tok, {"bos_token": "<s>", "eos_token": "</s>", "chat_template": template("mistral_v0_3")})
            code, got, err = dump(d, mistral, NO_SYSTEM)  # fine without a system message
            self.assertEqual(code, 0, err[-2000:])
            code, _, err = dump(d, mistral, ROWS[:1])  # it moves the system prompt into the last user turn
            self.assertEqual(code, 2, err)
            self.assertIn("train.jsonl:1: chat template", err)
            self.assertIn("is not prefix-stable", err)
            plain = model_folder(d, "plain", byte_level("gpt2", ["<|endoftext|>"]), {"eos_token": "<|endoftext|>"})
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
