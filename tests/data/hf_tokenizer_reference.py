"""Builds small tokenizers with the `tokenizers` package (PyPI) in the styles of GPT-2, Llama 3
and Qwen 2, trains each on text the repository ships plus Unicode samples, saves each
tokenizer.json, and records what `tokenizers` itself gives for a set of test strings: the ids
(with and without special tokens) and the decoded text. test_hf_tokenizer.cpp compares runner
with these. Usage: hf_tokenizer_reference.py OUT_DIR SOURCE_DIR (exit 77 without tokenizers)."""
import json
import os
import sys

try:
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
except ImportError:
    sys.exit(77)

out, source = sys.argv[1], sys.argv[2]
with open(os.path.join(source, "recipes/lib/shakespeare.txt"), encoding="utf-8") as f:
    text = f.read()[:60000]
UNICODE = ["naïve café résumé — “quotes” ½ 10€", "Привет, мир! Как дела?", "東京は日本の首都です。", "🙂🚀👍🏽 emoji 🇫🇷",
           "tab\tnew\nline  spaces   end ", "e\u0301 (e + combining acute) vs \u00e9", "can't won't I'm you'll they'd IT'S"]
corpus = [text] + UNICODE * 20

LLAMA3 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
QWEN2 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"


def build(style):
    specials = ["<|endoftext|>"] if style != "llama3" else ["<|begin_of_text|>", "<|end_of_text|>"]
    tok = Tokenizer(models.BPE(ignore_merges=style == "llama3"))
    if style == "gpt2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(LLAMA3 if style == "llama3" else QWEN2), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    if style == "qwen2":
        tok.normalizer = normalizers.NFC()
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    if style == "llama3":
        bos = tok.token_to_id("<|begin_of_text|>")
        tok.post_processor = processors.TemplateProcessing(single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A $B",
                                                           special_tokens=[("<|begin_of_text|>", bos)])
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok


cases = UNICODE + [text[1000:3000], "", " ", "   leading and trailing   ", "numbers 1234567 3.14159 2024-11-24",
                   "special <|endoftext|> inside", "<|end_of_text|>after", "x" * 300, "\n\n\n", "a  \n  b"]
result = {}
for style in ("gpt2", "llama3", "qwen2"):
    tok = build(style)
    folder = os.path.join(out, style)
    os.makedirs(folder, exist_ok=True)
    tok.save(os.path.join(folder, "tokenizer.json"))
    rows = []
    for s in cases:
        with_special = tok.encode(s).ids
        plain = tok.encode(s, add_special_tokens=False).ids
        rows.append({"text": s, "ids": with_special, "ids_plain": plain, "decoded": tok.decode(with_special, skip_special_tokens=False),
                     "decoded_skip": tok.decode(with_special, skip_special_tokens=True)})
    # decoding byte tokens that stop inside a character (a generation cut mid-emoji)
    partial = tok.encode("🙂", add_special_tokens=False).ids
    rows.append({"decode_only": partial[:1], "decoded": tok.decode(partial[:1])})
    result[style] = {"vocab_size": tok.get_vocab_size(with_added_tokens=True), "cases": rows}
with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
    json.dump(result, f, ensure_ascii=False)
