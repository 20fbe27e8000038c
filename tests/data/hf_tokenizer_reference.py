"""Builds small tokenizers with the `tokenizers` package (PyPI) in the styles of GPT-2, Llama 3
and Qwen 2 (byte-level BPE), RoBERTa (byte-level with a prefix space and trimmed offsets) and of
Llama 2 / Mistral / TinyLlama (SentencePiece-style BPE with byte fallback, in the file shapes
these models ship: Prepend/Replace normalizers, or the newer Metaspace pre-tokenizer), plus one
with Strip/NFKD/Lowercase/NFC normalizers, BERT's WordPiece (uncased and cased) and
SentencePiece Unigram models (XLM-RoBERTa, T5, ALBERT, byte fallback: see build_unigram) and a
WordLevel one, trains each on text the repository ships plus Unicode
samples, saves each tokenizer.json, and records what `tokenizers` itself gives for a set of test
strings: the ids (with and without special tokens), each token's offsets (tokenizers' character
offsets turned into UTF-8 byte offsets) and the decoded text. test_hf_tokenizer.cpp compares
runner with these. Usage: hf_tokenizer_reference.py OUT_DIR SOURCE_DIR (exit 77 without
tokenizers)."""
import json
import os
import sys

try:
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
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
    specials = {"llama3": ["<|begin_of_text|>", "<|end_of_text|>"], "roberta": ["<s>", "<pad>", "</s>", "<unk>"]}.get(style, ["<|endoftext|>"])
    tok = Tokenizer(models.BPE(ignore_merges=style == "llama3"))
    if style in ("gpt2", "roberta", "lower"):
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=style == "roberta")
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(LLAMA3 if style == "llama3" else QWEN2), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    if style == "qwen2":
        tok.normalizer = normalizers.NFC()
    if style == "lower":  # NFKD then NFC: composition over decomposed text, with Lowercase between
        tok.normalizer = normalizers.Sequence([normalizers.Strip(), normalizers.NFKD(), normalizers.Lowercase(), normalizers.NFC()])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    if style == "qwen2":  # single_word added tokens: matched only where no word character (regex \w) touches them
        tok.add_tokens([AddedToken("word", single_word=True), AddedToken("_x", single_word=True, normalized=False)])
    if style == "llama3":
        bos = tok.token_to_id("<|begin_of_text|>")
        tok.post_processor = processors.TemplateProcessing(single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A $B",
                                                           special_tokens=[("<|begin_of_text|>", bos)])
    elif style == "roberta":  # offsets without the spaces a token starts with; <mask> eats the spaces before it
        tok.add_special_tokens([AddedToken("<mask>", lstrip=True, normalized=False)])
        tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=True)
    elif style == "lower":
        tok.post_processor = processors.ByteLevel(trim_offsets=True, add_prefix_space=False)
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok


def sentencepiece_vocab(split=True, bytes_up_to=256):
    """A SentencePiece-like BPE vocabulary in Llama 2's layout: <unk> <s> </s>, the <0xXX> byte
    tokens, then pieces trained with Metaspace splitting (no piece spans two words, as in Llama
    2), or on whole lines (pieces like "▁of▁the": runner must not cut a long word there)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=split)
    lines = corpus if split else [line for t in corpus for line in t.splitlines()]
    tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False))
    model = json.loads(tok.to_str())["model"]
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    vocab.update({f"<0x{b:02X}>": 3 + b for b in range(bytes_up_to)})
    for piece, _ in sorted(model["vocab"].items(), key=lambda kv: kv[1]):
        vocab.setdefault(piece, len(vocab))
    return vocab, [tuple(m) for m in model["merges"]]


def build_sentencepiece(style):
    vocab, merges = sentencepiece_vocab(split=style != "llama2_crossing", bytes_up_to=128 if style == "sp_unk" else 256)
    tok = Tokenizer(models.BPE(vocab, merges, unk_token="<unk>", byte_fallback=True, fuse_unk=style != "sp_metaspace",
                               ignore_merges=style == "sp_unk", dropout=None))
    if style in ("llama2", "llama2_crossing"):  # Llama 2, Mistral 7B, TinyLlama as published
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    elif style == "llama2_metaspace":  # what transformers writes for them today (legacy=False)
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    elif style == "sp_metaspace":  # tokenizers' SentencePieceBPETokenizer, plus a Regex Replace
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    else:  # sp_unk: byte tokens for ASCII only, so other unknown characters become (fused) <unk>; no "▁" prepended
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=True)
    if style == "sp_metaspace":
        tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace(replacement="▁", prepend_scheme="always")])
    elif style == "sp_unk":
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="never")
    else:
        tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tok.add_special_tokens([AddedToken(t, normalized=False) for t in ("<unk>", "<s>", "</s>")])
    if style == "llama2":  # a normalized added token is matched, and decoded, by its normalized form ("▁<sep>")
        tok.add_tokens([AddedToken("<sep>", normalized=True)])
    if style == "llama2_metaspace":  # one that eats the spaces around it
        tok.add_special_tokens([AddedToken("[INST]", normalized=False, lstrip=True, rstrip=True)])
    if style != "sp_metaspace":
        single = "<s> $A </s>" if style == "sp_unk" else "<s> $A"
        tok.post_processor = processors.TemplateProcessing(single=single, pair=single + " $B", special_tokens=[("<s>", 1), ("</s>", 2)])
    return tok


def build_wordpiece(style):
    """BERT's tokenizer as tokenizers' BertWordPieceTokenizer builds it (uncased: the defaults;
    cased: accents and case kept, no CJK spacing, the Whitespace pre-tokenizer)."""
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=40))
    if style == "bert":
        tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    else:
        tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False)
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=style == "bert")
    tok.train_from_iterator(corpus, trainers.WordPieceTrainer(vocab_size=700, special_tokens=specials, show_progress=False))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if style == "bert":
        tok.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    else:
        tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                           special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tok


def train_sentencepiece(rule, byte_fallback):
    """A SentencePiece unigram model trained by the sentencepiece package itself, as a ModelProto:
    its pieces, scores and (nmt_nfkc) precompiled charsmap are what real T5 / ALBERT / XLM-R
    files carry."""
    import io
    import sentencepiece
    from transformers.convert_slow_tokenizer import import_protobuf
    lines = [line for line in text.split("\n") if line.strip()] + UNICODE * 20
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, model_type="unigram", vocab_size=700,
                                             normalization_rule_name=rule, byte_fallback=byte_fallback, hard_vocab_limit=False,
                                             control_symbols=["[CLS]", "[SEP]", "[MASK]"], minloglevel=2)
    proto = import_protobuf().ModelProto()
    proto.ParseFromString(model.getvalue())
    return proto


def build_unigram(style):
    """Unigram tokenizers in the shapes transformers gives them: XLM-RoBERTa as v5's
    XLMRobertaTokenizer writes it (Precompiled, WhitespaceSplit + Metaspace), T5 and ALBERT through
    transformers' converters (Precompiled with Strip and Replace; ALBERT adds NFKD, StripAccents and
    Lowercase), and a byte-fallback Unigram through SpmConverter with an identity charsmap."""
    import tempfile
    import types
    from transformers import XLMRobertaTokenizer
    from transformers.convert_slow_tokenizer import AlbertConverter, SpmConverter, T5Converter
    proto = train_sentencepiece("identity" if style == "unigram_bytes" else "nmt_nfkc", byte_fallback=style == "unigram_bytes")
    if style == "xlmr":
        vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + [(p.piece, p.score) for p in proto.pieces[3:]] + [("<mask>", 0.0)]
        with tempfile.TemporaryDirectory() as d:
            XLMRobertaTokenizer(vocab=vocab, _spm_precompiled_charsmap=proto.normalizer_spec.precompiled_charsmap).save_pretrained(d)
            return Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    with tempfile.NamedTemporaryFile(suffix=".model") as f:
        f.write(proto.SerializeToString())
        f.flush()
        ids = {p.piece: i for i, p in enumerate(proto.pieces)}
        original = types.SimpleNamespace(vocab_file=f.name, add_prefix_space=True, _extra_ids=3, keep_accents=False, do_lower_case=True,
                                         convert_tokens_to_ids=ids.__getitem__)
        if style == "t5":
            return T5Converter(original).converted()
        if style == "albert":
            return AlbertConverter(original).converted()

        class ByteFallbackSpm(SpmConverter):
            handle_byte_fallback = True
        return ByteFallbackSpm(original).converted()


def build_wordlevel():
    """tokenizers' WordLevelTrainer output: a word per token, [UNK] for the rest, lowercased,
    Whitespace words, [CLS] $A [SEP] (pairs with type id 1), no decoder (tokens joined by spaces)."""
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(corpus, trainers.WordLevelTrainer(vocab_size=400, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                       special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tok


cases = UNICODE + [text[1000:3000], "", " ", "   leading and trailing   ", "numbers 1234567 3.14159 2024-11-24",
                   "special <|endoftext|> inside", "<|end_of_text|>after", "x" * 300, "\n\n\n", "a  \n  b",
                   # SentencePiece-style cases: byte fallback for what the vocabulary lacks, added tokens, "▁" in the text
                   "Hello world", "  two leading spaces", "trailing spaces  ", "\n", "line one\nline two\n", "\t indented\n\tagain",
                   "Ωmega ∂ 你好世界 𝔘𝔫 ☃ 🦙 \U0001f469\u200d\U0001f4bb", "<s>starts with bos",
                   "a <s> b</s>c", "text <unk> unknown", "\U0001f999{x}~\x07 \u00bf\u00bf|", "▁already▁marked ▁",
                   "[INST] hi [/INST]  [INST]x", "x<sep>y <sep> z <sep>",
                   "\u3000ideographic space\u00a0no-break", "ｆｕｌｌｗｉｄｔｈ ﬁ ①",
                   " ".join(text[5000:9000].split(" ")[:400]) * 3,
                   # offsets through lstrip, case mapping, decomposition, reordering and composition
                   " <mask> here", "x<mask>y  <mask>", "ΣΑΣ İstanbul ǅ ß ﬃ", "\u1100\u1161\u11a8 한국어",
                   "a\u0323\u0301 q\u0307\u0323 \u1e0b\u0323 \u0301lead", "  \t padded both sides \n ",
                   # BERT: control and format characters, punctuation runs, contractions the decoder cleans up, a
                   # word longer than max_input_chars_per_word, a [MASK] in the text
                   "ctrl\x00\x01\u200bchars\ufffd here\x7f", "Don't stop!!! Really?? 'quoted' it's (a) $5.00 #tag",
                   "Unaffable HELLO Wörld ÉCOLE naïveté", "x" * 45 + " ok", "the [MASK] sat", "中文字 mixed 日本語text",
                   # SentencePiece charsmaps: a rule shorter than its grapheme cluster (the mark after it is
                   # lost), expansions and removals, <extra_id_n>; Unigram: runs of unknown characters
                   "\u2122\x1eg \ufb01\u0301 \uff76\uff9e A\u030a \u3371 \u2460\u0301", "\x1estarts removed", "x<extra_id_1>y", "crlf\r\nline\r\n\rend\n\r",
                   "\u0b95\u0bcd\u0bb7 \ua000\ua001\ua002 \U00013000\U00013001 zzqqxx",
                   # single_word: letters, digits, marks, _ and joiners on either side keep the token out
                   "word sword words word_ _word word. (word) wordé éword word1 1word wordword word\u0301 \u200dword",
                   "_x a_x _xa (_x) _x_x x_x _x\u00e9 \u00e9_x _x-_x"]


def byte_offsets(s, offsets):
    """tokenizers' character offsets as UTF-8 byte offsets into s."""
    at = [0]
    for ch in s:
        at.append(at[-1] + len(ch.encode("utf-8")))
    return [[at[b], at[e]] for b, e in offsets]


result = {}
for style in ("gpt2", "llama3", "qwen2", "roberta", "lower", "llama2", "llama2_metaspace", "llama2_crossing", "sp_metaspace", "sp_unk",
              "bert", "bert_cased", "xlmr", "t5", "albert", "unigram_bytes", "wordlevel"):
    if style == "wordlevel":
        tok = build_wordlevel()
    elif style.startswith("bert"):
        tok = build_wordpiece(style)
    elif style in ("xlmr", "t5", "albert", "unigram_bytes"):
        tok = build_unigram(style)
    else:
        tok = build(style) if style in ("gpt2", "llama3", "qwen2", "roberta", "lower") else build_sentencepiece(style)
    folder = os.path.join(out, style)
    os.makedirs(folder, exist_ok=True)
    tok.save(os.path.join(folder, "tokenizer.json"))
    rows = []
    for s in cases:
        encoded, encoded_plain = tok.encode(s), tok.encode(s, add_special_tokens=False)
        with_special, plain = encoded.ids, encoded_plain.ids
        rows.append({"text": s, "ids": with_special, "ids_plain": plain, "offsets": byte_offsets(s, encoded.offsets),
                     "offsets_plain": byte_offsets(s, encoded_plain.offsets), "decoded": tok.decode(with_special, skip_special_tokens=False),
                     "decoded_skip": tok.decode(with_special, skip_special_tokens=True)})
    # decoding byte tokens that stop inside a character (a generation cut mid-emoji)
    for s, keep in (("🙂", 1), ("🦙 你", -1)):
        partial = tok.encode(s, add_special_tokens=False).ids[:keep]
        rows.append({"decode_only": partial, "decoded": tok.decode(partial, skip_special_tokens=False)})
    # transformers' tokenizer(a, b, truncation=True, max_length=n): the pair template's ids and
    # type ids, the texts cut longest-first (a single text from its end)
    pairs = []
    for a, b in (("Don't stop!!! Really??", "naïve café résumé"), ("Hello world", ""), (text[1000:1200], "short one"),
                 ("short", text[2000:2300]), ("東京は日本の首都です。", "Привет, мир!")):
        for max_length in (0, 12, 17, 40):
            if max_length:
                tok.enable_truncation(max_length, strategy="longest_first")
            single, paired = tok.encode(a), tok.encode(a, b)
            tok.no_truncation()
            pairs.append({"a": a, "b": b, "max_length": max_length, "single": single.ids, "single_types": single.type_ids,
                          "ids": paired.ids, "type_ids": paired.type_ids})
    # tokenizer(words, is_split_into_words=True): each word on its own, word_ids()
    words = []
    for a, b in ((["Don't", "stop", "!!!", "Really", "naïve"], None), (["東京は", "日本の", "首都", "です"], ["Привет,", "мир"]),
                 (text[1000:1200].split(), ["short", "one"])):
        for max_length in (0, 11):
            if max_length:
                tok.enable_truncation(max_length, strategy="longest_first")
            e = tok.encode(a, b, is_pretokenized=True) if b else tok.encode(a, is_pretokenized=True)
            tok.no_truncation()
            words.append({"a": a, "b": b, "max_length": max_length, "ids": e.ids, "type_ids": e.type_ids,
                          "word_ids": [-1 if w is None else w for w in e.word_ids]})
    size = tok.get_vocab_size(with_added_tokens=True)
    result[style] = {"vocab_size": size, "cases": rows, "pairs": pairs, "words": words, "id_to_token": [tok.id_to_token(i) or "" for i in range(size)],
                     "added_ids": {t.content: i for i, t in tok.get_added_tokens_decoder().items()}}
with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
    json.dump(result, f, ensure_ascii=False)
