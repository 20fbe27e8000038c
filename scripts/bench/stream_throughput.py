"""Streaming throughput (#27): reading + shuffling + tokenizing + packing the same Parquet shards
with runner's data.stream and with HF `datasets` (load_dataset("parquet", streaming=True)
.shuffle(seed, buffer_size).map(tokenize, batched=True) + packing into block_size windows in
Python, stacked into int64 batches), with the same tokenizer: "bytes" (Python: list(text.encode()))
and a GPT-2-style byte-level BPE tokenizer.json (trained by tests/data/hf_tokenizer_reference.py;
runner's own implementation vs the `tokenizers` package's encode_batch, TOKENIZERS_PARALLELISM=false).
Both one thread: runner with dataloader_num_workers = 0, where train_data_wait_seconds is the time
the loop spent producing its batches (a tiny 1-layer GPT trains on them; its compute is not
counted); tokens/s = steps x batch x block / that time. Python: wall time from the dataset
load_dataset returned (its set-up not counted) to the last batch of the same number of tokens. The corpus: stream_memory.py's shards (1 MB, 4 row
groups each). Repetitions interleaved; median and min-max.

Second table, "does tokenization keep up with training": recipes/char_gpt_stream.lua as shipped
(4-layer char GPT, bytes) for --recipe_steps steps with dataloader_num_workers 0, 1, 2: the
share of the run the loop waited for data.

  .venv/bin/python3 scripts/bench/stream_throughput.py --runner build/runner --mb 64 --steps 40 --reps 5 --recipe_steps 200
"""
import argparse
import os

os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stream_memory import RECIPE, ROOT, RUNNER, metric, write_corpus  # noqa: E402


def runner_tokens_per_s(args, tmp, tokenizer, steps):
    cmd = [args.runner, os.path.join(tmp, "r.lua"), "--source", os.path.join(tmp, "c", "*.parquet"), "--steps", str(steps),
           "--tokenizer", tokenizer, "--batch_size", str(args.batch), "--block_size", str(args.block),
           "--dataloader_num_workers", "0", "--output_dir", os.path.join(tmp, "out")]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    wait = metric(p.stdout + p.stderr, "train_data_wait_seconds")
    if p.returncode != 0 or not wait:
        raise SystemExit(p.stdout[-2000:] + p.stderr[-2000:])
    return steps * args.batch * args.block / wait


def datasets_tokens_per_s(args, files, tokenizer, steps):
    import numpy as np
    from datasets import load_dataset
    if tokenizer == "bytes":
        def tokenize(b):
            return {"ids": [list(t.encode()) + [10] for t in b["text"]]}
    else:
        from tokenizers import Tokenizer
        tok = Tokenizer.from_file(tokenizer)

        def tokenize(b):
            return {"ids": [e.ids for e in tok.encode_batch(b["text"], add_special_tokens=False)]}
    want = steps * args.batch
    ds = load_dataset("parquet", data_files=files, split="train", streaming=True)
    t0 = time.perf_counter()  # load_dataset's set-up (resolving the files, several seconds here) is not counted
    ds = ds.shuffle(seed=1, buffer_size=args.buffer)
    ds = ds.map(tokenize, batched=True, remove_columns=["text"])
    carry, windows, batches = [], [], 0
    for ex in ds:
        carry.extend(ex["ids"])
        while len(carry) >= args.block:
            windows.append(carry[:args.block])
            del carry[:args.block]
            if len(windows) == args.batch:
                np.asarray(windows, dtype=np.int64)
                windows, batches = [], batches + 1
        if batches * args.batch >= want:
            seconds = time.perf_counter() - t0
            break
    # timed before leaving the loop: closing the iterator sleeps config.SLEEP_TIME_ON_THREADS_SHUTDOWN
    # (5 s, datasets' workaround for apache/arrow#45214), which is not the cost of producing data
    return want * args.block / seconds


def cell(v):
    return f"{statistics.median(v) / 1e6:.2f} ({min(v) / 1e6:.2f}-{max(v) / 1e6:.2f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runner", default=RUNNER, help="the runner binary (default: $RUNNER_BINARY or build/runner)")
    ap.add_argument("--mb", type=float, default=64, help="corpus size, MB of text")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--block", type=int, default=128)
    ap.add_argument("--buffer", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--recipe_steps", type=int, default=200)
    ap.add_argument("--skip_recipe", action="store_true")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="streambench_")
    try:
        os.mkdir(os.path.join(tmp, "c"))
        n, _, nbytes = write_corpus(os.path.join(tmp, "c"), args.mb * 1e6)
        files = sorted(os.path.join(tmp, "c", f) for f in os.listdir(os.path.join(tmp, "c")))
        with open(os.path.join(tmp, "r.lua"), "w") as f:
            f.write(RECIPE.replace("buffer_size = 1000", f"buffer_size = {args.buffer}"))
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/data/hf_tokenizer_reference.py"), os.path.join(tmp, "tok"), ROOT],
                       check=True, capture_output=True)
        tokenizers = {"bytes": "bytes", "gpt2-style BPE tokenizer.json": os.path.join(tmp, "tok", "gpt2", "tokenizer.json")}
        res = {k: ([], []) for k in tokenizers}
        for rep in range(args.reps):
            for name, tok in tokenizers.items():
                res[name][0].append(runner_tokens_per_s(args, tmp, tok, args.steps))
                res[name][1].append(datasets_tokens_per_s(args, files, tok, args.steps))
                print(f"rep {rep} {name}: runner {res[name][0][-1] / 1e6:.2f} M tokens/s, datasets {res[name][1][-1] / 1e6:.2f}",
                      file=sys.stderr)
        print(f"\n{n} Parquet shards, {nbytes / 1e6:.0f} MB of text; {args.steps} batches of {args.batch} x {args.block} tokens "
              f"({args.steps * args.batch * args.block / 1e6:.2f} M tokens) per run, shuffle buffer {args.buffer}, one thread, "
              f"{args.reps} interleaved repetitions (median, min-max)\n")
        print("| tokenizer | runner data.stream M tokens/s | datasets streaming + map + packing M tokens/s | runner / datasets |\n|---|---|---|---|")
        for name, (ours, theirs) in res.items():
            ratios = [a / b for a, b in zip(ours, theirs)]
            print(f"| {name} | {cell(ours)} | {cell(theirs)} | {statistics.median(ratios):.1f}x ({min(ratios):.1f}-{max(ratios):.1f}) |")
        if not args.skip_recipe:
            rows = []
            for workers in (0, 1, 2):
                p = subprocess.run([args.runner, os.path.join(ROOT, "recipes/char_gpt_stream.lua"), "--iters", str(args.recipe_steps),
                                    "--dataloader_num_workers", str(workers), "--save_strategy", "no", "--report_to", "none",
                                    "--output_dir", os.path.join(tmp, "recipe_out")], capture_output=True, text=True, cwd=tmp)
                out = p.stdout + p.stderr
                wait, runtime = metric(out, "train_data_wait_seconds"), metric(out, "train_runtime")
                if p.returncode != 0 or wait is None:
                    raise SystemExit(out[-2000:])
                rows.append((workers, wait, runtime))
            print(f"\nrecipes/char_gpt_stream.lua --iters {args.recipe_steps} (12 x 65 byte tokens a step)\n")
            print("| dataloader_num_workers | train_data_wait_seconds | train_runtime s | waiting share |\n|---|---|---|---|")
            for workers, wait, runtime in rows:
                print(f"| {workers} | {wait:.3f} | {runtime:.1f} | {100 * wait / runtime:.2f}% |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
