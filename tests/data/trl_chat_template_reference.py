"""Renders every chat template the installed TRL ships (trl/chat_templates/*.jinja: the
templates of Llama 3, Qwen 2.5 / 3 / 3.5, Gemma 1-4, DeepSeek V3 and R1, gpt-oss, GLM-4 MoE,
Phi-3, Cohere, LFM2, Nemotron, SmolVLM, ..., byte for byte as their models ship them, and the
training variants with {% generation %} markers that TRL's SFT assistant_only_loss uses) with
transformers over the conversations of chat_template_reference.py plus tools, reasoning (a
`<think>` block in the content, or `reasoning_content`), content given as a list of text parts,
and enable_thinking=False. Writes OUT_DIR/trl.json for test_trl_chat_templates.cpp: per
rendering the conversation (the messages before transformers aliases their reasoning fields,
which runner does too: template_messages), the text, the {% generation %} spans as UTF-8 byte
ranges (transformers' own tracker, for return_assistant_tokens_mask) or the error and whether
the template raised it. Usage: trl_chat_template_reference.py OUT_DIR (exit 77 without
transformers, jinja2 or trl)."""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chat_template_reference as ref  # noqa: E402  (exits 77 without transformers / jinja2)

try:
    import jinja2
    import trl
    from transformers.utils.chat_template_utils import render_jinja_template
except ImportError:
    sys.exit(77)

SPECIALS = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}

THINK = [{"role": "user", "content": "What is 2 + 2?"},
         {"role": "assistant", "content": "<think>\nTwo and two.\n</think>\n\nFour."},
         {"role": "user", "content": "And 3 + 3?"},
         {"role": "assistant", "content": "<think>\nThree and three.\n</think>\n\nSix."}]
REASONING_FIELD = [{"role": "user", "content": "What is 2 + 2?"},
                   {"role": "assistant", "content": "Four.", "reasoning_content": "Two and two."}]
THINKING_FIELD = [{"role": "user", "content": "What is 2 + 2?"},  # gpt-oss's name for it
                  {"role": "assistant", "thinking": "Two and two.", "content": "Four."}]
PARTS = [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
         {"role": "user", "content": [{"type": "text", "text": "Name a colour."}]},
         {"role": "assistant", "content": [{"type": "text", "text": "Blue."}]}]

RUNS = [(case, messages, None, {}) for case, messages in ref.CONVERSATIONS.items()] + [
    ("tools", ref.CONVERSATIONS["single"], ref.TOOLS, {}),
    ("tool_calls", ref.TOOL_CHAT, ref.TOOLS, {}),
    ("think", THINK, None, {}),
    ("reasoning_content", REASONING_FIELD, None, {}),
    ("thinking", THINKING_FIELD, None, {}),
    ("content_parts", PARTS, None, {}),
    ("no_thinking", ref.CONVERSATIONS["multi_turn"], None, {"enable_thinking": False}),
]


def byte_spans(text, spans):
    return [[len(text[:a].encode("utf-8")), len(text[:b].encode("utf-8"))] for a, b in spans]


def main(out):
    folder = os.path.join(os.path.dirname(trl.__file__), "chat_templates")
    names = sorted(n[:-len(".jinja")] for n in os.listdir(folder) if n.endswith(".jinja"))
    cases = []
    for name in names:
        with open(os.path.join(folder, name + ".jinja"), encoding="utf-8") as f:
            template = f.read()
        tokenizer = ref.tokenizer_for(SPECIALS, template)
        marked = re.search(r"\{%-?\s*generation\s*-?%\}", template) is not None
        for case, messages, tools, kwargs in RUNS:
            for agp in (False, True):
                context = ref.context_for(tokenizer, messages, tools, agp)
                context.update(kwargs)
                entry = {"model": name, "case": case, "add_generation_prompt": agp, "template": template, "context": context}
                try:
                    text = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=agp, **kwargs)
                    entry["expected"] = text
                    if marked:
                        rendered, spans = render_jinja_template([messages], tools=tools, chat_template=template, add_generation_prompt=agp,
                                                                return_assistant_tokens_mask=True, **SPECIALS, **kwargs)
                        assert rendered[0] == text, name
                        entry["generation"] = byte_spans(text, spans[0])
                except Exception as e:  # raise_exception in the template, or a Python error its code ran into
                    entry["error"] = str(e)
                    entry["raised_by_template"] = isinstance(e, jinja2.exceptions.TemplateError) and not isinstance(
                        e, (jinja2.exceptions.UndefinedError, jinja2.exceptions.TemplateSyntaxError))
                cases.append(entry)
    with open(os.path.join(out, "trl.json"), "w", encoding="utf-8") as f:
        json.dump({"trl": trl.__version__, "dates": [time.strftime(p) for p in ("%d %b %Y", "%Y-%m-%d", "%B %d, %Y")],
                   "templates": len(names), "cases": cases}, f, ensure_ascii=False, indent=1)
    print(f"{len(cases)} renderings of {len(names)} templates (trl {trl.__version__})")


if __name__ == "__main__":
    main(sys.argv[1])
