"""Renders the real chat templates in tests/data/chat_templates/ with transformers'
apply_chat_template(..., tokenize=False) over a set of conversations (with and without a system
message, one and several turns, Unicode and whitespace at the edges, tools and tool calls,
add_generation_prompt true and false, conversations the template refuses) and writes what it
got, with the exact context transformers gave the template, to OUT_DIR/expected.json for
test_chat_template.cpp. Usage: chat_template_reference.py OUT_DIR SOURCE_DIR (exit 77 without
transformers and jinja2)."""
import json
import os
import sys
import time

try:
    import jinja2  # noqa: F401
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast
except ImportError:
    sys.exit(77)

# name: (template file, the model's special tokens as its tokenizer_config.json names them)
MODELS = {
    "llama3_1": ("llama3_1.jinja", {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}),
    "llama3_2": ("llama3_2.jinja", {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}),
    "qwen2_5": ("qwen2_5.jinja", {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}),
    "mistral_v0_3": ("mistral_v0_3.jinja", {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}),
    "zephyr": ("zephyr.jinja", {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}),
    "tinyllama": ("tinyllama.jinja", {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "</s>"}),
    "smollm2": ("smollm2.jinja", {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>",
                                  "pad_token": "<|im_end|>"}),
    "phi3": ("phi3.jinja", {"bos_token": "<s>", "eos_token": "<|endoftext|>", "unk_token": "<unk>", "pad_token": "<|endoftext|>"}),
    "phi3_5": ("phi3_5.jinja", {"bos_token": "<s>", "eos_token": "<|endoftext|>", "unk_token": "<unk>",
                                "pad_token": "<|endoftext|>"}),
    "gemma2": ("gemma2.jinja", {"bos_token": "<bos>", "eos_token": "<eos>", "unk_token": "<unk>", "pad_token": "<pad>"}),
}

SYSTEM = {"role": "system", "content": "You are a terse assistant.\nAnswer in one line."}
CONVERSATIONS = {
    "single": [{"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": "Blue."}],
    "system": [SYSTEM, {"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": "Blue."}],
    "multi_turn": [{"role": "user", "content": "Say hi"}, {"role": "assistant", "content": "Hi!"},
                   {"role": "user", "content": "Again"}, {"role": "assistant", "content": "Hi again."}],
    "multi_turn_system": [SYSTEM, {"role": "user", "content": "Say hi"}, {"role": "assistant", "content": "Hi!"},
                          {"role": "user", "content": "Again"}, {"role": "assistant", "content": "Hi again."}],
    "prompt_only": [{"role": "user", "content": "What is 2 + 2?"}],
    "unicode": [{"role": "user", "content": "  Привет! 東京は? naïve café — “quotes” 🙂🚀 \t\n"},
                {"role": "assistant", "content": "\n日本の首都です。 e\u0301 ½ 10€ <b>&amp;</b> {{ not jinja }}  "}],
    "special_tokens_in_text": [{"role": "user", "content": "What does <|im_end|> or </s> mean?"},
                               {"role": "assistant", "content": "They end turns: <|eot_id|> <end_of_turn>"}],
    "empty_content": [{"role": "user", "content": ""}, {"role": "assistant", "content": ""}],
    "starts_with_assistant": [{"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Hi."}],
    "two_users": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
}

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather in a city, in °C.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "e.g. Zürich"},
                                                    "days": {"type": "integer", "minimum": 1, "maximum": 7.5}},
                   "required": ["city"]}}}]
TOOL_CHAT = [{"role": "user", "content": "Weather in Paris?"},
             {"role": "assistant", "tool_calls": [{"id": "call00001", "type": "function", "function": {
                 "name": "get_weather", "arguments": {"city": "Paris", "days": 2, "metric": True, "note": None}}}]},
             {"role": "tool", "tool_call_id": "call00001", "content": "{\"temp\": 21.5}"},
             {"role": "assistant", "content": "21.5 °C."}]
TOOL_CASES = {"llama3_1", "llama3_2", "qwen2_5", "mistral_v0_3"}


def tokenizer_for(specials, template):
    tok = Tokenizer(models.WordLevel({"<unk>": 0}, unk_token="<unk>"))
    return PreTrainedTokenizerFast(tokenizer_object=tok, chat_template=template, **specials)


def context_for(tokenizer, messages, tools, add_generation_prompt):
    """What apply_chat_template hands the template: the messages without None values, tools,
    documents, add_generation_prompt and the named special tokens."""
    msgs = [{k: v for k, v in m.items() if v is not None} for m in messages]
    return {"messages": msgs, "tools": tools, "documents": None, "add_generation_prompt": add_generation_prompt,
            **tokenizer.special_tokens_map}


def main(out, source):
    cases = []
    for name, (filename, specials) in MODELS.items():
        with open(os.path.join(source, "tests/data/chat_templates", filename), encoding="utf-8") as f:
            template = f.read()
        tokenizer = tokenizer_for(specials, template)
        runs = [(c, msgs, None) for c, msgs in CONVERSATIONS.items()]
        if name in TOOL_CASES:
            runs += [("tools", CONVERSATIONS["single"], TOOLS), ("tool_calls", TOOL_CHAT, TOOLS), ("tool_calls_no_tools", TOOL_CHAT, None)]
        for case, messages, tools in runs:
            for agp in (False, True):
                entry = {"model": name, "case": case, "add_generation_prompt": agp, "template": template,
                         "context": context_for(tokenizer, messages, tools, agp)}
                try:
                    entry["expected"] = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=agp)
                except Exception as e:  # the template refused the conversation (raise_exception), or a Python error
                    entry["error"] = str(e)
                cases.append(entry)

    with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
        json.dump({"today": time.strftime("%d %b %Y"), "cases": cases}, f, ensure_ascii=False, indent=1)
    print(f"{len(cases)} renderings of {len(MODELS)} templates")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
