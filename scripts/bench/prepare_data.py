"""Tokenizing a corpus into a token file, end to end (start-up, reading, tokenizing, writing):
`runner prepare-data` on 1 thread and on every core against the ways Python users do it on the
same JSONL corpus and GPT-2-style tokenizer (trained by tests/data/hf_tokenizer_reference.py):
nanoGPT's openwebtext prepare.py (`datasets`' load_dataset("json") and map(num_proc=every
core), then the ids concatenated into a uint16 memmap), and the `tokenizers` package's
encode_batch on every core (Rayon) with the ids written by numpy. Every peer's file must hold
runner's ids. Wall seconds and MB/s of JSONL text, median and min-max of N repetitions; peak
resident memory of each peer's main process (nanoGPT's workers are
processes of their own, not counted).

  .venv/bin/python3 scripts/bench/prepare_data.py --mb 20 --reps 5 [--runner build/runner]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "build", "runner")

# The Python peers, each a fresh process as a user runs it: argv = tokenizer.json corpus.jsonl out.bin eos.
TOKENIZERS_PEER = r"""
import json, sys, numpy as np
from tokenizers import Tokenizer
tok, corpus, out, eos = Tokenizer.from_file(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
with open(corpus) as f:
    docs = [json.loads(line)["text"] for line in f if line.strip()]
ids = []
for enc in tok.encode_batch(docs, add_special_tokens=False):
    ids.extend(enc.ids)
    ids.append(eos)
np.array(ids, dtype=np.uint16).tofile(out)
"""
NANOGPT_PEER = r"""
import os, sys, numpy as np
os.environ["HF_DATASETS_CACHE"] = os.path.join(os.path.dirname(sys.argv[3]), "hf_cache")
from datasets import load_dataset
from datasets.utils.logging import disable_progress_bar
from tokenizers import Tokenizer
disable_progress_bar()
tok, corpus, out, eos = Tokenizer.from_file(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
def process(example):
    ids = tok.encode(example["text"], add_special_tokens=False).ids + [eos]
    return {"ids": ids, "len": len(ids)}
ds = load_dataset("json", data_files=corpus, split="train")
ds = ds.map(process, remove_columns=["text"], num_proc=os.cpu_count())
arr = np.memmap(out, dtype=np.uint16, mode="w+", shape=(int(np.sum(ds["len"], dtype=np.uint64)),))
idx = 0
for batch_idx in range(min(1024, len(ds))):
    batch = ds.shard(num_shards=min(1024, len(ds)), index=batch_idx, contiguous=True).with_format("numpy")
    chunk = np.concatenate(batch["ids"])
    arr[idx:idx + len(chunk)] = chunk
    idx += len(chunk)
arr.flush()
"""


def timed(cmd, env=None):
    """Wall seconds and peak resident MiB of one run (its own rusage, not its peers')."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{cmd[0]} failed:\n{err.read().decode()[-3000:]}")
    return seconds, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--runner", default=RUNNER, help="the runner binary (default: build/runner)")
    args = ap.parse_args()
    from tokenizers import Tokenizer
    cores = os.cpu_count()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/data/hf_tokenizer_reference.py"), tmp, ROOT], check=True,
                       capture_output=True)
        tok_path = os.path.join(tmp, "gpt2", "tokenizer.json")
        eos = Tokenizer.from_file(tok_path).token_to_id("<|endoftext|>")
        with open(os.path.join(ROOT, "recipes/lib/shakespeare.txt"), encoding="utf-8") as f:
            paragraphs = [p for p in f.read().split("\n\n") if p.strip()]
        corpus = os.path.join(tmp, "corpus.jsonl")
        size = 0
        with open(corpus, "w", encoding="utf-8") as f:
            while size < args.mb * 1e6:
                for p in paragraphs:
                    line = json.dumps({"text": p + "\n"}) + "\n"
                    f.write(line)
                    size += len(line.encode())
        mb = size / 1e6
        peers = {
            "runner prepare-data, 1 thread": [args.runner, "prepare-data", "--tokenizer", tok_path, "--input", corpus,
                                              "--eos_token", "<|endoftext|>", "--num_proc", "1", "--output"],
            f"runner prepare-data, {cores} threads": [args.runner, "prepare-data", "--tokenizer", tok_path, "--input", corpus,
                                                      "--eos_token", "<|endoftext|>", "--num_proc", str(cores), "--output"],
            f"tokenizers encode_batch, {cores} threads": [sys.executable, "-c", TOKENIZERS_PEER, tok_path, corpus],
            f"nanoGPT prepare.py (datasets map, num_proc={cores})": [sys.executable, "-c", NANOGPT_PEER, tok_path, corpus],
        }
        seconds = {name: [] for name in peers}
        peak = {name: 0.0 for name in peers}
        reference = None
        for _ in range(args.reps):
            for name, cmd in peers.items():
                out = os.path.join(tmp, "out.bin")
                full = cmd + [out] + ([] if "runner" in name else [str(eos)])
                wall, rss = timed(full, env=dict(os.environ, TOKENIZERS_PARALLELISM="true"))
                seconds[name].append(wall)
                peak[name] = max(peak[name], rss)
                with open(out, "rb") as f:
                    data = f.read()
                if reference is None:
                    reference = data
                elif data != reference:
                    raise SystemExit(f"{name}: its token file differs from runner's")
                os.remove(out)
        print(f"{mb:.1f} MB of JSONL ({len(reference) // 2:,} tokens), {cores} cores, {args.reps} repetitions "
              f"(median, min-max); every peer's file equals runner's\n")
        print("| peer | wall s | MB/s | peak resident MiB (main process) |\n|---|---|---|---|")
        for name, v in seconds.items():
            print(f"| {name} | {statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f}) | {mb / statistics.median(v):.1f} | {peak[name]:.0f} |")


if __name__ == "__main__":
    main()
