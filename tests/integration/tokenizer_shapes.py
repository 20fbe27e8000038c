"""Small tokenizers in the shapes real chat models ship, built with the `tokenizers` package (no
downloads) for the data.sft tests: byte-level BPE as GPT-2, Llama 3 (its Split pattern,
ignore_merges, a <|begin_of_text|> template) and Qwen 2.5 (NFC, its Split pattern) have it, and
SentencePiece-style BPE with byte fallback as Llama 2 and TinyLlama publish it (Prepend("▁") +
Replace normalizers), as transformers writes Mistral and Zephyr today (Metaspace with
prepend_scheme "first") and as Gemma has it (Replace only, no prefix). Each is trained on text
the repository ships, so the vocabularies are small but the pipelines are the real ones."""
import json
import os

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

from runner_test_util import SOURCE, write

# The published pre-tokenizer patterns of Llama 3 and Qwen 2.
LLAMA3 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
QWEN2 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"


def corpus():
    with open(os.path.join(SOURCE, "recipes/lib/shakespeare.txt"), encoding="utf-8") as f:
        text = f.read()[:30000]
    return [text, "naïve café 🙂 ✓ ½ €", "Say hi. Hi again!\n\nOne, two, three."]


def byte_level(style, specials, bos=None):
    """style: "gpt2" (ByteLevel's own pattern), "llama3" or "qwen2"; `bos` is prepended by the
    post-processor."""
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
    tok.train_from_iterator(corpus(), trainers.BpeTrainer(vocab_size=400, special_tokens=specials, show_progress=False,
                                                          initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    if bos:
        tok.post_processor = processors.TemplateProcessing(single=f"{bos} $A", special_tokens=[(bos, tok.token_to_id(bos))])
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok


def sentencepiece(style, specials, bos, eos=None):
    """style: "llama2" (Prepend + Replace), "metaspace" (Metaspace, prepend_scheme "first") or
    "gemma" (Replace only). `specials` come first in the vocabulary (with "<unk>" among them),
    then the 256 <0xXX> byte tokens, then pieces that never span a space. The post-processor
    puts `bos` before the text and `eos`, when given, after it."""
    trainer_tok = Tokenizer(models.BPE())
    trainer_tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    trainer_tok.train_from_iterator(corpus(), trainers.BpeTrainer(vocab_size=700, special_tokens=specials, show_progress=False))
    trained = json.loads(trainer_tok.to_str())["model"]
    vocab = {t: i for i, t in enumerate(specials)}
    vocab.update({f"<0x{b:02X}>": len(specials) + b for b in range(256)})
    for piece, _ in sorted(trained["vocab"].items(), key=lambda kv: kv[1]):
        vocab.setdefault(piece, len(vocab))
    tok = Tokenizer(models.BPE(vocab, [tuple(m) for m in trained["merges"]], unk_token="<unk>", byte_fallback=True, fuse_unk=True,
                               dropout=None))
    if style == "llama2":
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    elif style == "metaspace":
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
        tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace(replacement="▁", prepend_scheme="first")])
    else:
        tok.normalizer = normalizers.Replace(" ", "▁")
        tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    tok.add_special_tokens([AddedToken(t, normalized=False) for t in specials])
    single = f"{bos} $A" + (f" {eos}" if eos else "")
    tok.post_processor = processors.TemplateProcessing(single=single, special_tokens=[(t, vocab[t]) for t in (bos, eos) if t])
    return tok


def model_folder(root, name, tok, config, jinja_file=None):
    """A model folder: tokenizer.json, tokenizer_config.json (`config` plus the tokenizer class)
    and, when given, chat_template.jinja."""
    folder = os.path.join(root, name)
    os.makedirs(folder)
    tok.save(os.path.join(folder, "tokenizer.json"))
    write(os.path.join(folder, "tokenizer_config.json"), json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", **config}))
    if jinja_file is not None:
        write(os.path.join(folder, "chat_template.jinja"), jinja_file)
    return folder
