"""Automatic restarts (#26.3): `runner launch --max_restarts K` restarts a job whose ranks died
(SIGKILL, a segfault, a lost node) from its newest intact checkpoint, up to K times, and the
final weights equal an uninterrupted run's bit for bit; `--min_ranks M` lets a restart go on
with fewer ranks when hosts are gone (full_determinism keeps it bit-identical). A user error,
a preemption stop and a Ctrl-C are not restarted. Two "hosts" on one machine: MPICH's fork
launcher with two host names."""
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, RecipeTest, read_safetensors, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

# A slow-down hook, so faults land at random moments of training (and of saving: save_steps 5).
RECIPE = """local data, recipe = require "runner.data", require "runner.recipe"
local opt = recipe.options{ steps = 40, slow = 0.0 }
torch.manual_seed(3)
local x = torch.randn(64, 8)
local y = x:matmul(torch.randn(8, 1))
return {
  args = { max_steps = opt.steps, per_device_train_batch_size = 4, learning_rate = 0.01, save_steps = 5,
           logging_steps = 1, save_total_limit = 2 },
  datasets = { train = data.tensors{ x = x, labels = y } },
  model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
  callbacks = { { on_step_end = function(args, state)
    local t = os.clock() while os.clock() - t < opt.slow do end
  end } },
}
"""


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def descendants(pid):
    out = []
    for c in children(pid):
        out.append(c)
        out += descendants(c)
    return out


def state_of(pid):
    """The process's state letter (Z: a zombie, its parent has not reaped it), "" when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def name_of(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def saved_up_to(out):
    """The newest checkpoint's step, 0 when none. Tests wait for "at least step N", never for
    checkpoint-N itself: save_total_limit rotates it away, and a loaded machine may not look in
    between."""
    try:
        steps = [int(n.split("-")[1]) for n in os.listdir(out) if n.startswith("checkpoint-") and n.split("-")[1].isdigit()]
    except OSError:
        return 0
    return max(steps, default=0)


class Restarts(RecipeTest):
    RECIPE = RECIPE

    def out(self, name):
        return os.path.join(self.tmp, name)

    def launch(self, launch_options, out, *run_args, env=None):
        return subprocess.Popen([BINARY, "launch", *launch_options, self.recipe, "--output_dir", out, *run_args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, **(env or {})))

    def reference(self, name, *run_args, ranks=2):
        """An uninterrupted run's final weights."""
        out = self.out(name)
        p = self.launch(["-n", str(ranks)], out, *run_args)
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 0, err)
        return read_safetensors(os.path.join(out, "model.safetensors"))

    def assert_same_weights(self, out, expected):
        got = read_safetensors(os.path.join(out, "model.safetensors"))
        self.assertEqual(sorted(got), sorted(expected))
        for k in expected:
            self.assertTrue((got[k] == expected[k]).all(), k)

    def ranks_of(self, launcher_pid):
        """The job's rank processes and hydra proxies now running under the launcher."""
        procs = descendants(launcher_pid)
        proxies = [p for p in procs if name_of(p) == "hydra_pmi_proxy"]
        # A rank is a live runner under a proxy: not the launcher's own fork before it execs
        # mpiexec (still named runner), not a zombie or an orphan of an earlier attempt.
        ranks = [c for x in proxies for c in children(x) if name_of(c) == "runner" and state_of(c) not in ("", "Z")]
        return ranks, proxies

    def test_ranks_killed_at_10_random_moments_restart_to_the_same_weights(self):
        args = ("--steps", "400", "--slow", "0.02")
        expected = self.reference("uninterrupted", *args)
        out = self.out("killed")
        p = self.launch(["-n", "2", "--max_restarts", "10"], out, *args)
        rng = random.Random(26)
        faults = []
        spent = set()  # every rank of an attempt already faulted
        try:
            while len(faults) < 10 and p.poll() is None:
                ranks, proxies = self.ranks_of(p.pid)
                if len(ranks) != 2 or set(ranks) & spent:
                    time.sleep(0.01)  # the next attempt's ranks are not all up yet
                    continue
                # A random moment of this attempt: start-up, training or a save; then a random
                # fault: a rank SIGKILLed, a rank segfaulting, or its node's proxy gone.
                time.sleep(rng.uniform(0.1, 1.2))
                kind = rng.choice(["SIGKILL", "SIGSEGV", "node"])
                victim = rng.choice(ranks)
                if p.poll() is not None:
                    break
                if state_of(victim) in ("", "Z"):
                    time.sleep(2)
                    if p.poll() is not None:
                        break  # training finished during the pause
                    self.fail(f"rank {victim} ended by itself before fault {len(faults) + 1}: {p.communicate(timeout=300)[1]}")
                if kind == "node":
                    parent = next((x for x in proxies if victim in children(x)), None)
                    os.kill(parent if parent else victim, signal.SIGKILL)
                else:
                    os.kill(victim, signal.SIGKILL if kind == "SIGKILL" else signal.SIGSEGV)
                faults.append((kind, victim))
                spent |= set(ranks)
                if kind == "node":
                    # Its ranks, orphaned, must not train on into the output_dir the restart
                    # resumes from: they end themselves when their process manager is gone.
                    deadline = time.time() + 10
                    while time.time() < deadline and state_of(victim) not in ("", "Z"):
                        time.sleep(0.05)
                    self.assertIn(state_of(victim), ("", "Z"), "a rank orphaned by its proxy's death kept running")
            _, err = p.communicate(timeout=600)
        finally:
            if p.poll() is None:
                p.kill()
        self.assertEqual(len(faults), 10, f"the job ended (exit {p.returncode}) after faults {faults}: {err}")
        self.assertEqual(p.returncode, 0, err)
        restarts = [line for line in err.splitlines() if line.startswith("runner launch: the job failed")]
        self.assertEqual(len(restarts), 10, err)
        self.assertIn("restart 10 of 10 from the newest checkpoint", restarts[-1])
        self.assert_same_weights(out, expected)
        print("faults injected:", " ".join(kind for kind, _ in faults), file=sys.stderr)  # docs/reliability.md's record

    def test_a_fault_that_comes_back_uses_up_the_restarts(self):
        out = self.out("dies_again")
        p = self.launch(["-n", "2", "--max_restarts", "2"], out, "--steps", "400", "--slow", "0.02")
        killed = set()
        try:
            while p.poll() is None and len(killed) < 3:
                ranks, _ = self.ranks_of(p.pid)
                if len(ranks) == 2 and not set(ranks) & killed and saved_up_to(out) >= 5:
                    time.sleep(0.3)
                    os.kill(ranks[1], signal.SIGKILL)
                    killed.add(ranks[1])
                time.sleep(0.01)
            _, err = p.communicate(timeout=300)
        finally:
            if p.poll() is None:
                p.kill()
        self.assertNotIn(p.returncode, (0, 2, 75), err)
        lines = [line for line in err.splitlines() if line.startswith("runner launch: ")]
        self.assertEqual(len(lines), 3, err)
        self.assertIn("restart 1 of 2", lines[0])
        self.assertIn("restart 2 of 2", lines[1])
        self.assertIn("its 2 restarts are used up", lines[2])
        self.assertFalse(os.path.exists(os.path.join(out, "model.safetensors")))

    def test_user_errors_and_stops_are_not_restarted(self):
        # A user error (exit 2) fails the same way every time.
        blocker = write(self.out("a_file"), "not a folder")
        p = self.launch(["-n", "2", "--max_restarts", "3"], blocker, "--steps", "4")
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 2, err)
        self.assertNotIn("runner launch: the job failed", err)
        # A preemption stop exits 75 for the requeue loop, and is not a failure.
        out = self.out("preempted")
        p = self.launch(["-n", "2", "--max_restarts", "3"], out, "--slow", "0.05")
        deadline = time.time() + 120
        while time.time() < deadline and saved_up_to(out) < 5:
            time.sleep(0.02)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 75, err)
        self.assertNotIn("runner launch: the job failed", err)

    def test_a_restart_goes_on_with_fewer_ranks_when_a_host_is_gone(self):
        # Two one-slot "hosts" on this machine; full_determinism makes 2 ranks and 1 rank agree
        # bit for bit when the global batch is kept (the restart doubles gradient accumulation).
        args = ("--steps", "30", "--slow", "0.05", "--full_determinism", "true")
        expected = self.reference("two_ranks", *args)
        # (1) The hostfile loses node-b before the fault (as a scheduler or an operator would edit it).
        hostfile = write(self.out("hosts"), "node-a:1\nnode-b:1\n")
        out = self.out("fewer_hostfile")
        p = self.launch(["-n", "2", "-f", hostfile, "--launcher_args", "-launcher fork", "--max_restarts", "2", "--min_ranks", "1"], out, *args)
        self.kill_a_rank_after(p, out, step=10, before=lambda: write(hostfile, "node-a:1\n"))
        out_text, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("restart 1 of 2 on 1 of its 2 ranks from the newest checkpoint", err)
        self.assertIn("gradient_accumulation_steps 1 -> 2 keeps the global batch", out_text)
        self.assert_same_weights(out, expected)
        # (2) node-b is listed but does not answer: the probe through the launcher fails.
        write(hostfile, "node-a:1\nnode-b:1\n")
        wrapper = write(self.out("mpiexec_wrapper.sh"),
                        f'#!/bin/sh\ncase "$*" in *"-hosts node-b:1 -n 1 true"*) exit 1;; esac\nexec {MPIEXEC} "$@"\n')
        os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IEXEC)
        out = self.out("fewer_probe")
        p = self.launch(["-n", "2", "-f", hostfile, "--launcher_args", "-launcher fork", "--max_restarts", "2", "--min_ranks", "1"], out, *args,
                        env={"RUNNER_MPIEXEC": wrapper})
        self.kill_a_rank_after(p, out, step=10)
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("restart 1 of 2 on 1 of its 2 ranks (gone: node-b (the probe exited 1)) from the newest checkpoint", err)
        self.assert_same_weights(out, expected)
        # (3) Fewer than --min_ranks left: the job stops with the failure's code.
        out = self.out("too_few")
        p = self.launch(["-n", "2", "-f", hostfile, "--launcher_args", "-launcher fork", "--max_restarts", "2", "--min_ranks", "2"], out, *args,
                        env={"RUNNER_MPIEXEC": wrapper})
        self.kill_a_rank_after(p, out, step=5)
        _, err = p.communicate(timeout=300)
        self.assertNotIn(p.returncode, (0, 2, 75), err)
        self.assertIn("the hosts left hold 1 rank, fewer than --min_ranks 2; gone: node-b (the probe exited 1)", err)

    def test_a_rank_whose_process_manager_is_gone_before_it_starts_ends_itself(self):
        # A node lost while its ranks start: the rank, reparented before runner's main runs,
        # must not go on (into MPI_Init, into training into the output_dir the restart resumes
        # from). Deterministic: a grandchild execs runner only once its parent has exited.
        # HYDI_CONTROL_FD marks a rank of hydra, which always puts its proxy between.
        out, log = self.out("orphan"), self.out("orphan.log")
        env = dict(os.environ, PMI_RANK="1", PMI_SIZE="2", HYDI_CONTROL_FD="9")
        read_end, write_end = os.pipe()
        child = os.fork()
        if child == 0:  # the "process manager": starts the rank and dies at once
            try:
                manager = os.getpid()
                if os.fork() == 0:
                    while os.getppid() == manager:
                        time.sleep(0.005)
                    os.write(write_end, f"{os.getpid()} {os.getppid()}".encode())
                    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    os.dup2(fd, 2)
                    os.execve(BINARY, [BINARY, self.recipe, "--output_dir", out], env)
            finally:
                os._exit(0)  # never back into the test runner, in either process
        os.waitpid(child, 0)
        os.close(write_end)
        rank, adopter = (int(x) for x in os.read(read_end, 100).split())
        os.close(read_end)
        if adopter != 1:  # a subreaper adopted it: a live parent, which nothing can tell from a manager
            os.kill(rank, signal.SIGKILL)
            self.skipTest(f"orphans are adopted by pid {adopter} here, not init")
        deadline = time.time() + 60
        while time.time() < deadline and state_of(rank) not in ("", "Z"):
            time.sleep(0.05)
        self.assertIn(state_of(rank), ("", "Z"), "a rank whose process manager was gone before it started kept running")
        with open(log) as f:
            self.assertIn("the process manager that started this rank was gone before it started: the job has failed", f.read())
        self.assertFalse(os.path.exists(out))

    def test_resume_from_checkpoint_auto_starts_afresh_or_resumes(self):
        out = self.out("auto")
        r = subprocess.run([BINARY, self.recipe, "--output_dir", out, "--steps", "6", "--resume_from_checkpoint", "auto"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("Resuming from", r.stdout + r.stderr)
        r = subprocess.run([BINARY, self.recipe, "--output_dir", out, "--steps", "8", "--resume_from_checkpoint", "auto"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"Resuming from {out}/checkpoint-6", r.stdout + r.stderr)
        # true keeps HF's meaning: an error when there is nothing to resume.
        r = subprocess.run([BINARY, self.recipe, "--output_dir", self.out("auto_none"), "--resume_from_checkpoint", "true"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no valid checkpoint found", r.stderr)

    def kill_a_rank_after(self, p, out, step, before=None):
        deadline = time.time() + 120
        while time.time() < deadline and saved_up_to(out) < step:
            self.assertIsNone(p.poll(), "the job ended before the fault")
            time.sleep(0.02)
        if before:
            before()
        ranks, _ = self.ranks_of(p.pid)
        self.assertEqual(len(ranks), 2)
        os.kill(ranks[1], signal.SIGKILL)


if __name__ == "__main__":
    unittest.main()
