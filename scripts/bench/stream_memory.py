"""Streaming memory (#27): runner's data.stream reads a Parquet corpus larger than the memory it
may use. For each corpus size (multiples of --cap_mb) a corpus of 1 MB Parquet shards (uncompressed,
4 row groups each; ~1000-character rows of tinyshakespeare rotated per shard, so the shards
differ) is written into a temporary folder (deleted after), then a tiny GPT (1 layer, n_embd 8, so
reading dominates) trains on data.stream{tokenizer = "bytes"} over all the shards with 2
dataloader workers for --steps steps, inside a memory cap: a cgroup v1 memory cgroup
(memory.limit_in_bytes; needs root and /sys/fs/cgroup/memory; a cgroup v2 memory.max where that is
the hierarchy; else no cap, sampling only). VmRSS is sampled from /proc/PID/status every 100 ms:
peak (VmHWM), and the median RSS of the first and the last quarter of the samples (growth = last -
first). The cgroup's memory.max_usage_in_bytes counts the page cache too (reclaimed under the cap).

  .venv/bin/python3 scripts/bench/stream_memory.py --runner build/runner --cap_mb 512 --sizes 0.5 3 --steps 300 --workers 2
  .venv/bin/python3 scripts/bench/stream_memory.py --runner build/runner --cap_mb 512 --sizes 0.5 3 --full_pass   # every record read
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get("RUNNER_BINARY", os.path.join(ROOT, "build", "runner"))
TEXT = next((p for p in ("/work/shared/data/tinyshakespeare.txt", os.path.join(ROOT, "recipes/lib/shakespeare.txt")) if os.path.exists(p)))

RECIPE = '''local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"
local opt = recipe.options{ source = "", tokenizer = "bytes", steps = 100, batch_size = 128, block_size = 128, buffer_size = 1000,
                            full_pass = false }
local train = data.stream{ source = opt.source, column = "text", buffer_size = opt.buffer_size, seed = 1,
                           tokenizer = opt.tokenizer, block_size = opt.block_size, eos_token_id = opt.tokenizer == "bytes" and 10 or nil }
torch.manual_seed(1)
-- full_pass: a model with one weight per token id and no logits, so a step costs little more than
-- its batch and the whole corpus can be read in minutes.
local model = opt.full_pass and nn.Embedding(train:vocab_size(), 1)
  or models.gpt{ vocab_size = train:vocab_size(), block_size = opt.block_size, n_layer = 1, n_head = 1, n_embd = 8, dropout = 0.0, bias = false }
return { args = { output_dir = "out", max_steps = opt.steps, per_device_train_batch_size = opt.batch_size, learning_rate = 1e-3,
                  logging_steps = 100000, save_strategy = "no", report_to = "none" },
         datasets = { train = train }, model = model,
         compute_loss = opt.full_pass and function(m, inputs) return m(inputs.input_ids):mean() end or nil }
'''


def write_corpus(folder, total_bytes, shard_bytes=1 << 20, row_chars=1000):
    """Parquet shards of about shard_bytes of UTF-8 text each, uncompressed; returns (shards, rows per shard, text bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    with open(TEXT, encoding="utf-8") as f:
        base = f.read()
    chunks = [base[i:i + row_chars] for i in range(0, len(base), row_chars)]
    per_shard = max(1, shard_bytes // row_chars)
    n = max(1, int(total_bytes // (per_shard * row_chars)))
    written = 0
    for s in range(n):
        start = (s * 37) % len(chunks)
        rows = [chunks[(start + j) % len(chunks)] for j in range(per_shard)]
        written += sum(len(r.encode()) for r in rows)
        pq.write_table(pa.table({"text": rows}), os.path.join(folder, f"train-{s:05d}.parquet"), compression="none",
                       row_group_size=max(1, per_shard // 4))
    return n, per_shard, written


class Cap:
    """A memory cgroup (v1 memory.limit_in_bytes or v2 memory.max) for one child, or None."""

    def __init__(self, cap_bytes):
        self.path, self.kind = None, "none (no writable memory cgroup): sampling only"
        for base, limit, kind in (("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "cgroup v1 memory.limit_in_bytes"),
                                  ("/sys/fs/cgroup", "memory.max", "cgroup v2 memory.max")):
            if kind.startswith("cgroup v1") and not os.path.exists(os.path.join(base, limit)):
                continue
            if kind.startswith("cgroup v2") and "memory" not in open_or_empty(os.path.join(base, "cgroup.controllers")):
                continue
            path = os.path.join(base, f"streambench_{os.getpid()}")
            try:
                os.mkdir(path)
                with open(os.path.join(path, limit), "w") as f:
                    f.write(str(cap_bytes))
                self.path, self.kind = path, f"{kind} = {cap_bytes >> 20} MiB"
                break
            except OSError:
                if os.path.isdir(path):
                    os.rmdir(path)

    def enter(self):  # in the child, before exec
        if self.path:
            with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    def read(self, name):
        try:
            with open(os.path.join(self.path, name)) as f:
                return f.read().strip()
        except (OSError, TypeError):
            return None

    def close(self):
        if self.path:
            for _ in range(50):
                try:
                    os.rmdir(self.path)
                    return
                except OSError:
                    time.sleep(0.1)


def open_or_empty(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def run_capped(cmd, cap_bytes, cwd):
    """Runs cmd in a memory cap, sampling VmRSS every 100 ms; returns a dict of results."""
    cap = Cap(cap_bytes)
    samples, hwm = [], [0]
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=cap.enter)
    out = []
    reader = threading.Thread(target=lambda: out.extend(p.stdout))
    reader.start()
    while p.poll() is None:
        rss, h = status_kb(p.pid, "VmRSS"), status_kb(p.pid, "VmHWM")
        if rss:
            samples.append(rss)
        if h:
            hwm[0] = max(hwm[0], h)
        time.sleep(0.1)
    reader.join()
    r = {"rc": p.returncode, "seconds": time.time() - t0, "out": "".join(out), "cap": cap.kind,
         "cgroup_max_usage": cap.read("memory.max_usage_in_bytes") or cap.read("memory.peak"),
         "cgroup_failcnt": cap.read("memory.failcnt")}
    cap.close()
    q = max(1, len(samples) // 4)
    r["peak_kb"] = max([hwm[0]] + samples) if samples else hwm[0]
    r["first_q_kb"] = statistics.median(samples[:q]) if samples else 0
    r["last_q_kb"] = statistics.median(samples[-q:]) if samples else 0
    r["n_samples"] = len(samples)
    return r


def metric(out, name):
    for line in out.splitlines():
        if name + " " in line and "=" in line:
            return float(line.split("=")[-1])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runner", default=RUNNER, help="the runner binary (default: $RUNNER_BINARY or build/runner)")
    ap.add_argument("--cap_mb", type=int, default=512)
    ap.add_argument("--sizes", type=float, nargs="+", default=[0.5, 3.0], help="corpus sizes, multiples of the cap")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--full_pass", action="store_true",
                    help="read the whole corpus: a one-weight-per-token model, 256 x 1024 tokens a step, as many steps as the corpus holds")
    args = ap.parse_args()
    args.runner = os.path.abspath(args.runner)  # the runs start in the corpus folder
    cap = args.cap_mb << 20
    rows = []
    for size in args.sizes:
        tmp = tempfile.mkdtemp(prefix="streambench_")
        try:
            t0 = time.time()
            n, per_shard, nbytes = write_corpus(tmp, size * cap)
            gen = time.time() - t0
            with open(os.path.join(tmp, "r.lua"), "w") as f:
                f.write(RECIPE)
            steps = args.steps
            cmd = [args.runner, "r.lua", "--source", os.path.join(tmp, "*.parquet"), "--dataloader_num_workers", str(args.workers),
                   "--output_dir", os.path.join(tmp, "out")]
            if args.full_pass:
                batch, block = 256, 1024
                steps = nbytes // (batch * block) + 2  # every byte (and its row's newline) once, and into the next epoch
                cmd += ["--full_pass", "--batch_size", str(batch), "--block_size", str(block)]
            cmd += ["--steps", str(steps)]
            r = run_capped(cmd, cap, tmp)
            if r["rc"] != 0:
                print(r["out"][-3000:], file=sys.stderr)
            records = metric(r["out"], "train_stream_records_read") or 0
            rows.append((size, n, nbytes, gen, r, records, records / per_shard, steps))
            print(f"size {size}x: {n} shards, {nbytes / 1e6:.0f} MB text (written in {gen:.0f} s); rc {r['rc']}, peak RSS "
                  f"{r['peak_kb'] / 1024:.0f} MiB, {r['n_samples']} samples", file=sys.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    shape = "256 x 1024 byte tokens a step, the whole corpus" if args.full_pass else f"{args.steps} steps of 128 x 128 byte tokens"
    print(f"\nmemory cap: {rows[0][4]['cap'] if rows else '-'}; {shape}, "
          f"{args.workers} dataloader workers, buffer_size 1000\n")
    print("| corpus | shards | corpus / cap | exit | records read (shards' worth) | peak RSS MiB (VmHWM) | RSS first quarter -> last quarter MiB | cgroup max usage MiB (incl. page cache) | run s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for size, n, nbytes, gen, r, records, shards_read, _ in rows:
        usage = f"{int(r['cgroup_max_usage']) / 2**20:.0f}" if r["cgroup_max_usage"] else "-"
        print(f"| {nbytes / 1e9:.2f} GB | {n} | {nbytes / cap:.1f} | {r['rc']} | {records:.0f} ({shards_read:.1f}) | {r['peak_kb'] / 1024:.0f} "
              f"| {r['first_q_kb'] / 1024:.0f} -> {r['last_q_kb'] / 1024:.0f} | {usage} | {r['seconds']:.0f} |")


if __name__ == "__main__":
    main()
