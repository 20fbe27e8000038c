"""Reliability (#13): preemption (SIGTERM / SIGUSR1 save a checkpoint and exit 75, also under
mpiexec), SIGKILL at random moments then resume (bit-identical), damaged checkpoints found by
their manifest, a full disk during a save, one run per output folder, and leftovers of
crashed saves swept. docs/reliability.md records the figures."""
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, rank_pid, read_safetensors, run, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

# Dropout and AdamW: resuming must restore the RNG and the optimizer to be bit-identical.
# RUNNER_TEST_STEP_SECONDS slows each step down so a signal lands mid-training.
RECIPE = """local data = require "runner.data"
torch.manual_seed(3)
local x = torch.randn(64, 16)
local y = x:matmul(torch.randn(16, 1)) + 0.25
local slow = tonumber(os.getenv("RUNNER_TEST_STEP_SECONDS") or "0")
return {
  args = { max_steps = 40, per_device_train_batch_size = 4, learning_rate = 0.01, save_steps = 5,
           save_total_limit = 2, logging_steps = 5 },
  datasets = { train = data.tensors{ x = x, labels = y } },
  model = nn.Sequential(nn.Linear(16, 256), nn.Tanh(), nn.Dropout(0.1), nn.Linear(256, 1)),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
  callbacks = { { on_step_end = function()
    local t = os.clock() while os.clock() - t < slow do end
  end } },
}
"""


def weights(folder):
    return read_safetensors(os.path.join(folder, "model.safetensors"))


class Reliability(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir().__enter__()
        cls.recipe = write(os.path.join(cls.tmp, "r.lua"), RECIPE)
        cls.full = os.path.join(cls.tmp, "full")
        code, _, err = run(cls.recipe, "--output_dir", cls.full)
        assert code == 0, err
        cls.reference = weights(cls.full)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_reference_weights(self, folder):
        got = weights(folder)
        self.assertEqual(sorted(got), sorted(self.reference))
        for k in got:
            self.assertTrue((got[k] == self.reference[k]).all(), f"{k} differs from the uninterrupted run")

    def start(self, out, *extra, step_seconds=0.05, ranks=1):
        env = dict(os.environ, RUNNER_TEST_STEP_SECONDS=str(step_seconds))
        cmd = [BINARY, self.recipe, "--output_dir", out, *extra]
        if ranks > 1:
            cmd = [MPIEXEC, "-n", str(ranks), *cmd]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def wait_for_step(self, out, step, p):
        """Until checkpoint-<step> or a later one exists (rotation may delete it at once)."""
        deadline = time.time() + 60
        while time.time() < deadline and p.poll() is None:
            names = os.listdir(out) if os.path.isdir(out) else []
            if any(d.startswith("checkpoint-") and int(d.split("-")[1]) >= step for d in names):
                return
            time.sleep(0.02)
        self.fail(f"checkpoint-{step} never appeared")

    def resume(self, out, *extra):
        code, _, err = run(self.recipe, "--output_dir", out, "--resume_from_checkpoint", "true", *extra)
        self.assertEqual(code, 0, err)

    def test_preemption_saves_a_checkpoint_exits_75_and_resumes_bit_identically(self):
        for sig, name in ((signal.SIGTERM, "SIGTERM"), (signal.SIGUSR1, "SIGUSR1")):
            with self.subTest(signal=name):
                out = os.path.join(self.tmp, f"preempted_{name}")
                p = self.start(out)
                self.wait_for_step(out, 5, p)
                p.send_signal(sig)
                _, err = p.communicate(timeout=60)
                self.assertEqual(p.returncode, 75, err)  # preempted with a checkpoint: a requeue loop resumes
                stopped = [line for line in err.splitlines() if line.startswith(f"runner: stopped by {name} after step ")]
                self.assertEqual(len(stopped), 1, err)
                step = int(stopped[0].split("after step ")[1].split(";")[0])
                self.assertLess(step, 40)
                self.assertIn(f"checkpoint-{step}: resume with `", stopped[0])
                self.assertTrue(os.path.isdir(os.path.join(out, f"checkpoint-{step}")))
                self.assertFalse(os.path.exists(os.path.join(out, "model.safetensors")), "a preempted run wrote final outputs")
                self.resume(out)
                self.assert_reference_weights(out)

    def test_a_second_stop_signal_exits_at_once(self):
        out = os.path.join(self.tmp, "twice")
        p = self.start(out, "--save_steps", "1", step_seconds=5.0)  # a step takes 5 s: both signals land in one step
        # Right after a step ended (its checkpoint appeared), so the next one is far from over;
        # on a busy machine a fixed sleep could land near a step's end and let the run finish.
        self.wait_for_step(out, 1, p)
        p.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        p.send_signal(signal.SIGTERM)  # within 2 s: the same stop delivered twice, ignored
        time.sleep(2.2)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertIn("SIGTERM received: saving a checkpoint after this optimizer step", err)
        self.assertIn("runner: stopped by SIGTERM", err)

    def test_preemption_under_mpiexec_stops_every_rank_at_one_step(self):
        full = os.path.join(self.tmp, "full2")
        r = subprocess.run([MPIEXEC, "-n", "2", BINARY, self.recipe, "--output_dir", full], capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(self.tmp, "preempted_mpi")
        p = self.start(out, ranks=2)
        self.wait_for_step(out, 5, p)
        # Only rank 1 is told (a rank-local signal): the vote makes every rank stop together.
        victim = rank_pid(out, 1, tries=1)
        self.assertIsNotNone(victim)
        os.kill(victim, signal.SIGUSR1)
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 75, err)  # every rank's code, reported by mpiexec
        self.assertEqual(err.count("runner: stopped by"), 1, err)
        r = subprocess.run([MPIEXEC, "-n", "2", BINARY, self.recipe, "--output_dir", out, "--resume_from_checkpoint", "true"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        a, b = weights(full), weights(out)
        for k in a:
            self.assertTrue((a[k] == b[k]).all(), k)

    def test_sigkill_at_20_random_moments_then_resume_is_bit_identical(self):
        # Saves every 5 steps with rotation: kills land in forward, backward, the optimizer
        # step, checkpoint writes and deletions. A half-written checkpoint is never chosen.
        rng = random.Random(1234)
        every_step = ("--save_steps", "1")  # a save (and a deletion) after every step
        p = self.start(os.path.join(self.tmp, "timing"), *every_step, step_seconds=0)
        self.wait_for_step(os.path.join(self.tmp, "timing"), 1, p)
        first = time.time()
        p.communicate()
        duration = time.time() - first  # from the first checkpoint to the end
        identical = mid_save = fresh = 0
        for trial in range(20):
            out = os.path.join(self.tmp, f"killed_{trial}")
            p = self.start(out, *every_step, step_seconds=0)
            if trial % 5 == 0:  # some during start-up and the first steps
                time.sleep(rng.uniform(0.1, 0.6))
            else:
                self.wait_for_step(out, 1, p)
                time.sleep(rng.uniform(0, duration))
            p.kill()
            p.communicate()
            names = os.listdir(out) if os.path.isdir(out) else []
            mid_save += any(d.startswith(".tmp-") for d in names)  # killed while a save was staged
            if any(d.startswith("checkpoint-") for d in names):
                self.resume(out, *every_step)
            else:
                fresh += 1
                code, _, err = run(self.recipe, "--output_dir", out, *every_step)
                self.assertEqual(code, 0, err)
            self.assert_reference_weights(out)
            identical += 1
        print(f"\nSIGKILL at 20 random moments: {identical}/20 bit-identical after resuming; {mid_save} killed during a save, "
              f"{fresh} before the first checkpoint (run again from scratch)", file=sys.stderr)
        self.assertEqual(identical, 20)

    def test_a_damaged_checkpoint_is_named_and_the_newest_intact_one_is_used(self):
        for damage in ("truncate", "flip"):
            with self.subTest(damage=damage):
                out = os.path.join(self.tmp, f"damaged_{damage}")
                code, _, err = run(self.recipe, "--output_dir", out, "--save_total_limit", "3")  # keeps 30, 35, 40
                self.assertEqual(code, 0, err)
                shutil.rmtree(os.path.join(out, "checkpoint-40"))
                with open(os.path.join(out, "checkpoint-35", "manifest.json")) as f:
                    self.assertIn("optimizer.safetensors", json.load(f)["files"])
                path = os.path.join(out, "checkpoint-35", "optimizer.safetensors")
                with open(path, "r+b") as f:
                    if damage == "truncate":
                        f.truncate(os.path.getsize(path) - 100)
                    else:
                        f.seek(os.path.getsize(path) - 50)
                        byte = f.read(1)
                        f.seek(-1, 1)
                        f.write(bytes([byte[0] ^ 0x10]))
                code, _, err = run(self.recipe, "--output_dir", out, "--resume_from_checkpoint", os.path.join(out, "checkpoint-35"))
                self.assertEqual(code, 2, err)
                self.assertIn(path + ": " + ("checksum mismatch" if damage == "flip" else ""), err)
                if damage == "truncate":
                    self.assertIn("(truncated?)", err)
                code, stdout, err = run(self.recipe, "--output_dir", out, "--resume_from_checkpoint", "true")
                self.assertEqual(code, 0, err)
                self.assertIn("checkpoint-35 is damaged and skipped", stdout + err)
                self.assertIn("resuming from " + os.path.join(out, "checkpoint-30"), stdout + err)
                self.assert_reference_weights(out)

    def test_a_full_disk_during_a_save_keeps_the_previous_checkpoint(self):
        out = os.path.join(self.tmp, "full_disk")
        p = self.start(out, step_seconds=0.2)
        self.wait_for_step(out, 5, p)
        # From now on no file may grow past 8 KB: the next model.safetensors (17 KB) fails
        # with EFBIG, as a full disk fails with ENOSPC.
        resource.prlimit(p.pid, resource.RLIMIT_FSIZE, (8192, resource.RLIM_INFINITY))
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 2, err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^runner: error: .*checkpoint-\d+.*: cannot write: File too large$")
        self.assertEqual([d for d in os.listdir(out) if d.startswith(".tmp-")], [], "a half-written save was left behind")
        self.resume(out)
        self.assert_reference_weights(out)

    def test_one_run_per_output_folder_and_leftovers_are_swept(self):
        out = os.path.join(self.tmp, "locked")
        p = self.start(out, step_seconds=0.2)
        self.wait_for_step(out, 5, p)
        code, _, err = run(self.recipe, "--output_dir", out)
        p.kill()
        p.communicate()
        self.assertEqual(code, 2, err)
        self.assertIn(f'args.output_dir: "{out}" is in use by another runner process (pid {p.pid})', err)
        # The killed run may have left a staged folder; a crashed save's leftovers go at start.
        os.makedirs(os.path.join(out, ".tmp-checkpoint-99-12345"))
        write(os.path.join(out, ".tmp-trainer_state.json-12345"), "{")
        self.resume(out)
        self.assertEqual([d for d in os.listdir(out) if d.startswith(".tmp-")], [])
        self.assert_reference_weights(out)

    def test_nonfinite_policy_logs_skips_or_stops(self):
        # Row 9 has a NaN feature: with sequential batches of 4, step 3's loss and gradients
        # are NaN. HF's default trains on (the weights become NaN); skip leaves them finite;
        # stop saves the last good step and exits 2 with one line.
        recipe = write(os.path.join(self.tmp, "nan.lua"), RECIPE.replace(
            "local y = x:matmul(torch.randn(16, 1)) + 0.25",
            "local y = x:matmul(torch.randn(16, 1)) + 0.25\nx:narrow(0, 9, 1):fill_(0 / 0)").replace("max_steps = 40", "max_steps = 6"))
        import numpy as np
        common = ["--train_sampling_strategy", "sequential", "--save_strategy", "no"]
        out = os.path.join(self.tmp, "nan_log")
        code, _, err = run(recipe, "--output_dir", out, *common)
        self.assertEqual(code, 0, err)
        self.assertTrue(any(np.isnan(w).any() for w in weights(out).values()))
        out = os.path.join(self.tmp, "nan_skip")
        code, stdout, err = run(recipe, "--output_dir", out, "--nonfinite_policy", "skip", *common)
        self.assertEqual(code, 0, err)
        self.assertIn("step 3: the gradient norm is not finite", stdout)
        self.assertIn("optimizer and scheduler step skipped", stdout)
        self.assertTrue(all(np.isfinite(w).all() for w in weights(out).values()))
        out = os.path.join(self.tmp, "nan_stop")
        code, _, err = run(recipe, "--output_dir", out, "--nonfinite_policy", "stop", *common)
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("step 3: the gradient norm is not finite", err)
        self.assertIn(os.path.join(out, "checkpoint-2") + " holds the last good step", err)
        self.assertTrue(all(np.isfinite(w).all() for w in weights(os.path.join(out, "checkpoint-2")).values()))


if __name__ == "__main__":
    unittest.main()
