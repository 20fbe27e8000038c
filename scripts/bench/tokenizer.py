"""Tokenizer throughput: runner's tokenizer.json implementation (data.text{tokenizer = ...},
which encodes a whole file in one call on one core) against the `tokenizers` package on the
same text and tokenizers (GPT-2 and Llama 3 style byte-level BPEs, a Llama 2 style
SentencePiece BPE with byte fallback and an XLM-RoBERTa style Unigram with its charsmap, trained by tests/data/hf_tokenizer_reference.py; that the
ids agree is tests/data/test_hf_tokenizer.cpp's job): its Tokenizer.encode of the whole text,
and encode_batch over 1000-line chunks with TOKENIZERS_PARALLELISM=false (one thread; its fast
path for corpora). MB/s of UTF-8 input on one core, median and min-max of N repetitions.

  .venv/bin/python3 scripts/bench/tokenizer.py --mb 10 --reps 5 [--runner build/runner]
"""
import argparse
import os

os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one thread, like runner's data.text
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "build", "runner")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=10)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--runner", default=RUNNER, help="the runner binary (default: build/runner)")
    args = ap.parse_args()
    from tokenizers import Tokenizer
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/data/hf_tokenizer_reference.py"), tmp, ROOT], check=True)
        with open(os.path.join(ROOT, "recipes/lib/shakespeare.txt"), encoding="utf-8") as f:
            base = f.read()
        text = (base * int(args.mb * 1e6 / len(base) + 1))[: int(args.mb * 1e6)]
        corpus = os.path.join(tmp, "corpus.txt")
        with open(corpus, "w", encoding="utf-8") as f:
            f.write(text)
        mb = len(text.encode()) / 1e6
        results = {}
        for style in ("gpt2", "llama3", "llama2", "xlmr"):
            path = os.path.join(tmp, style, "tokenizer.json")
            tok = Tokenizer.from_file(path)
            recipe = os.path.join(tmp, f"{style}.lua")
            with open(recipe, "w") as f:
                f.write(f'''local data = require "runner.data"
local t0 = os.clock()
local ds = data.text{{ path = "{corpus}", tokenizer = "{path}", block_size = 64 }}
print(string.format("SECONDS %.6f TOKENS %d", os.clock() - t0, ds:size() * 64))
return {{ datasets = {{ train = ds }}, model = nn.Linear(1, 1) }}
''')
            ours, theirs, batched = [], [], []
            lines = text.splitlines(keepends=True)
            chunks = ["".join(lines[i:i + 1000]) for i in range(0, len(lines), 1000)]
            for _ in range(args.reps):
                p = subprocess.run([args.runner, "check", recipe, "--output_dir", os.path.join(tmp, "o")], capture_output=True, text=True)
                m = re.search(r"SECONDS ([0-9.]+)", p.stderr)
                if not m:
                    raise SystemExit(p.stderr)
                ours.append(mb / float(m.group(1)))
                t0 = time.process_time()
                ids = tok.encode(text, add_special_tokens=False).ids
                theirs.append(mb / (time.process_time() - t0))
                t0 = time.process_time()
                tok.encode_batch(chunks, add_special_tokens=False)
                batched.append(mb / (time.process_time() - t0))
            results[style] = (ours, theirs, batched, len(ids))
        print(f"{mb:.1f} MB of text, {args.reps} repetitions (median, min-max), MB/s of input on one core\n")
        def cell(v):
            return f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})"
        print("| tokenizer | runner | tokenizers encode (whole text) | tokenizers encode_batch (1000-line chunks) |\n|---|---|---|---|")
        kinds = {"gpt2": "byte-level BPE", "llama3": "byte-level BPE", "llama2": "SentencePiece BPE, byte fallback",
                 "xlmr": "SentencePiece Unigram, nmt_nfkc charsmap"}
        for style, (ours, theirs, batched, n) in results.items():
            print(f"| {style}-style {kinds[style]} ({n / mb / 1e6:.2f} tokens/byte) | {cell(ours)} | {cell(theirs)} | {cell(batched)} |")


if __name__ == "__main__":
    main()
