"""save_async (#26.6): checkpoints copied to host memory at the save step and written by a
background thread. They match the synchronous ones file for file, resume bit-identically (one
process, and ZeRO-2 / ZeRO-3 shard files under mpiexec -n 2), a SIGKILL during a background
write never leaves a checkpoint-N that resume would pick, at most one save is in flight,
training goes on while one is written, and a failed write stops the run as a synchronous one
does. RUNNER_TEST_SAVE_SECONDS (a test hook, docs/reliability.md) holds each background
write in the middle to widen the window."""
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, RecipeTest, read_safetensors  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

# Dropout and AdamW: a resume is bit-identical only with the RNG and the optimizer restored.
RECIPE = """local data = require "runner.data"
torch.manual_seed(3)
local x = torch.randn(64, 16)
local y = x:matmul(torch.randn(16, 1)) + 0.25
return {
  args = { max_steps = 20, per_device_train_batch_size = 4, learning_rate = 0.01, save_steps = 5, logging_steps = 5 },
  datasets = { train = data.tensors{ x = x, labels = y } },
  model = nn.Sequential(nn.Linear(16, 256), nn.Tanh(), nn.Dropout(0.1), nn.Linear(256, 1)),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
  callbacks = { { on_step_end = function(args, state) print("step-end " .. state.global_step) end } },
}
"""
ZERO = {2: ["--deepspeed", '{"zero_optimization": {"stage": 2}}'],
        3: ["--deepspeed", '{"zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0}}']}


def weights(folder):
    return read_safetensors(os.path.join(folder, "model.safetensors"))


def checkpoints(out):
    return sorted((d for d in os.listdir(out) if re.fullmatch(r"checkpoint-\d+", d)), key=lambda d: int(d.split("-")[1]))


def files(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = f.read()
    return out


class AsyncSave(RecipeTest):
    RECIPE = RECIPE

    def cmd(self, out, *extra, ranks=1):
        cmd = [BINARY, self.recipe, "--output_dir", out, *extra]
        return [MPIEXEC, "-n", str(ranks), *cmd] if ranks > 1 else cmd

    def run_ok(self, out, *extra, ranks=1, slow=0.0):
        env = dict(os.environ, RUNNER_TEST_SAVE_SECONDS=str(slow))
        r = subprocess.run(self.cmd(out, *extra, ranks=ranks), capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout + r.stderr

    def assert_same_weights(self, a, b):
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            self.assertTrue((a[k] == b[k]).all(), f"{k} differs from the uninterrupted run")

    def assert_same_checkpoints(self, sync_out, async_out):
        self.assertEqual(checkpoints(sync_out), checkpoints(async_out))
        self.assertTrue(checkpoints(sync_out))
        for d in checkpoints(sync_out):
            a, b = files(os.path.join(sync_out, d)), files(os.path.join(async_out, d))
            self.assertEqual(sorted(a), sorted(b), d)
            for name in a:
                if name in ("training_args.json", "manifest.json"):
                    continue  # they name the output folder (and the manifest checksums it)
                self.assertEqual(a[name], b[name], f"{d}/{name} differs between sync and async saves")
            ma = json.loads(a["manifest.json"])["files"]
            mb = json.loads(b["manifest.json"])["files"]
            self.assertEqual(sorted(ma), sorted(mb), d)
            for name in ma:
                if name != "training_args.json":
                    self.assertEqual(ma[name], mb[name], f"{d}: manifest entry of {name}")

    def check_equivalence_and_resume(self, tag, *extra, ranks=1):
        sync_out, async_out = os.path.join(self.tmp, f"{tag}_sync"), os.path.join(self.tmp, f"{tag}_async")
        self.run_ok(sync_out, *extra, ranks=ranks)
        log = self.run_ok(async_out, "--save_async", "true", *extra, ranks=ranks, slow=0.2)
        self.assertIn("written in the background and committed", log)
        self.assert_same_checkpoints(sync_out, async_out)
        self.assert_same_weights(weights(sync_out), weights(async_out))
        # Resume from the async run's checkpoint-10 as if it had stopped there.
        resumed = os.path.join(self.tmp, f"{tag}_resumed")
        os.makedirs(resumed)
        shutil.copytree(os.path.join(async_out, "checkpoint-10"), os.path.join(resumed, "checkpoint-10"))
        self.run_ok(resumed, "--save_async", "true", "--resume_from_checkpoint", "true", *extra, ranks=ranks)
        self.assert_same_weights(weights(sync_out), weights(resumed))
        return sync_out, async_out

    def test_one_process_async_checkpoints_equal_sync_ones_and_resume_bit_identically(self):
        self.check_equivalence_and_resume("single")

    def test_mpiexec_2_zero2_and_zero3_shard_files_equal_and_resume_bit_identically(self):
        for stage in (2, 3):
            with self.subTest(zero=stage):
                _, async_out = self.check_equivalence_and_resume(f"zero{stage}", *ZERO[stage], ranks=2)
                ckpt = os.path.join(async_out, "checkpoint-20")
                self.assertTrue(os.path.exists(os.path.join(ckpt, "optimizer.rank-1-of-2.safetensors")))
                self.assertEqual([d for d in os.listdir(async_out) if d.startswith(".tmp-")], [])

    def test_at_most_one_save_in_flight_none_lost_and_training_goes_on_while_writing(self):
        out = os.path.join(self.tmp, "every_step")
        # Each write takes 1.5 s: far longer than a step, also on a loaded machine.
        log = self.run_ok(out, "--save_async", "true", "--save_steps", "1", "--max_steps", "6", slow=1.5)
        self.assertEqual(checkpoints(out), [f"checkpoint-{n}" for n in range(1, 7)])  # none lost
        for d in checkpoints(out):
            self.assertTrue(os.path.exists(os.path.join(out, d, "manifest.json")), d)
        lines = log.splitlines()

        def at(pattern):
            found = [i for i, line in enumerate(lines) if re.search(pattern, line)]
            self.assertEqual(len(found), 1, f"{pattern!r} in:\n{log}")
            return found[0]
        for n in range(1, 7):
            started, committed = at(rf"Saving checkpoint-{n} in the background"), at(rf"checkpoint-{n} written in the background and committed")
            self.assertLess(started, committed)
            if n < 6:
                # The next step ran while this checkpoint was being written...
                self.assertLess(at(rf"step-end {n + 1}$"), committed)
                # ...and the next save started only once this one was committed.
                self.assertLess(committed, at(rf"Saving checkpoint-{n + 1} in the background"))

    def test_sigkill_during_background_writes_never_leaves_a_checkpoint_resume_would_pick(self):
        reference = os.path.join(self.tmp, "kill_reference")
        self.run_ok(reference, "--max_steps", "40", "--save_total_limit", "2")
        rng = random.Random(26)
        mid_write = 0
        for trial in range(8):
            out = os.path.join(self.tmp, f"killed_{trial}")
            env = dict(os.environ, RUNNER_TEST_SAVE_SECONDS="0.3")
            p = subprocess.Popen(self.cmd(out, "--save_async", "true", "--max_steps", "40", "--save_total_limit", "2"),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            deadline = time.time() + 60
            while not (os.path.isdir(out) and any(d.startswith(".tmp-checkpoint-") for d in os.listdir(out))) and time.time() < deadline:
                time.sleep(0.01)  # the first background write is staged
            time.sleep(rng.uniform(0, 2.0))
            p.kill()
            p.communicate()
            names = os.listdir(out)
            mid_write += any(d.startswith(".tmp-checkpoint-") for d in names)
            for d in checkpoints(out):  # every checkpoint-N is complete, with its manifest
                self.assertTrue(os.path.exists(os.path.join(out, d, "manifest.json")), f"trial {trial}: {d}")
            self.run_ok(out, "--save_async", "true", "--max_steps", "40", "--save_total_limit", "2", "--resume_from_checkpoint", "auto")
            self.assert_same_weights(weights(reference), weights(out))
        print(f"\nsave_async, SIGKILL at 8 random moments: 8/8 bit-identical after resuming; {mid_write} killed during a "
              "background write", file=sys.stderr)
        self.assertGreaterEqual(mid_write, 2)  # timing-dependent: most kills land mid-write (7/8 here), some may not

    def test_a_preemption_stop_waits_for_the_save_in_flight_then_exits_75(self):
        reference = os.path.join(self.tmp, "preempt_reference")
        self.run_ok(reference, "--max_steps", "40")
        out = os.path.join(self.tmp, "preempted")
        env = dict(os.environ, RUNNER_TEST_SAVE_SECONDS="0.5")
        p = subprocess.Popen(self.cmd(out, "--save_async", "true", "--max_steps", "40"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.time() + 60
        while not os.path.isdir(os.path.join(out, "checkpoint-5")) and time.time() < deadline:
            time.sleep(0.01)
        p.send_signal(signal.SIGTERM)
        stdout, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 75, err)
        step = int(re.search(r"runner: stopped by SIGTERM after step (\d+)", err).group(1))
        self.assertLess(step, 40)
        # The stop's own checkpoint was written in the background and committed before the exit.
        self.assertIn(f"checkpoint-{step} written in the background and committed", stdout)
        self.assertTrue(os.path.exists(os.path.join(out, f"checkpoint-{step}", "manifest.json")))
        self.assertEqual([d for d in os.listdir(out) if d.startswith(".tmp-")], [])
        self.run_ok(out, "--save_async", "true", "--max_steps", "40", "--resume_from_checkpoint", "true")
        self.assert_same_weights(weights(reference), weights(out))

    def test_a_failed_background_write_stops_the_run_like_a_synchronous_save(self):
        out = os.path.join(self.tmp, "full_disk")
        env = dict(os.environ, RUNNER_TEST_SAVE_SECONDS="0.3")
        p = subprocess.Popen(self.cmd(out, "--save_async", "true", "--max_steps", "40"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.time() + 60
        while not os.path.isdir(os.path.join(out, "checkpoint-5")) and time.time() < deadline:
            time.sleep(0.01)
        # From now on no file may grow past 8 KB: the next model.safetensors (17 KB) fails
        # with EFBIG on the background thread, as a full disk fails with ENOSPC.
        resource.prlimit(p.pid, resource.RLIMIT_FSIZE, (8192, resource.RLIM_INFINITY))
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 2, err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^runner: error: .*checkpoint-\d+.*: cannot write: File too large$")
        self.assertEqual([d for d in os.listdir(out) if d.startswith(".tmp-")], [], "a half-written save was left behind")
        self.assertTrue(os.path.exists(os.path.join(out, "checkpoint-5", "manifest.json")))  # nothing already saved lost


if __name__ == "__main__":
    unittest.main()
