"""What the side-by-side step benchmarks (lora_step.py, dpo_step.py) share: a timed process,
and ms/step as the difference of a short and a long run over the extra steps (start-up cancels
out), the peers' reps interleaved."""
import subprocess
import sys
import time


def timed(cmd, cwd):
    t = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{cmd} failed:\n{p.stderr[-3000:]}")
    return time.monotonic() - t


def per_step_ms(peers, reps, short, steps, run):
    """{peer: [ms/step per rep]}; run(peer, n) is the wall time in seconds of a run of n steps."""
    ms = {p: [] for p in peers}
    for rep in range(reps):
        for p in peers:
            first = run(p, short)
            long = run(p, short + steps)
            ms[p].append(1000 * (long - first) / steps)
            print(f"rep {rep + 1}: {p} {ms[p][-1]:.1f} ms/step (short run {first:.1f} s)", file=sys.stderr)
    return ms
