"""Hangs and rank faults explain themselves (docs/distributed.md, Clusters): with two ranks,
under plain `mpiexec -n 2` and under `runner launch -n 2`, a rank that raises, is killed, is
stopped, is stuck in a callback or enters another collective than its peer makes every rank
exit within fault_timeout and a margin, the last line on stderr names the rank, the step, the
phase and the collective, and the flight records in output_dir/flight_record are JSON whose
sequence numbers show where the ranks parted."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, rank_pid, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"
FAULT_TIMEOUT = 4
MARGIN = 30  # a generous upper bound on exit time, not a performance target

RECIPE = """local data = require "runner.data"
local models = require "runner.models"
local dist = require "runner.dist"
torch.manual_seed(1)
return {
  args = { max_steps = MAX_STEPS, per_device_train_batch_size = 4, learning_rate = 0.02, logging_steps = 1000,
           save_strategy = "no", report_to = "none", disable_tqdm = true },
  datasets = { train = data.synthetic.classification{n = 50, features = 6, classes = 3, seed = 2} },
  model = models.mlp{sizes = {6, 16, 3}, input = "x"},
  callbacks = { { on_step_end = function(args, state)
    if dist.rank == 1 and state.global_step == 3 then
      FAULT
    end
  end } },
}
"""

FAULTS = {
    "raise": 'error("boom on rank one")',
    "stuck": "while true do end",
    # rank 1 alone enters a barrier (main_process_first) while rank 0 goes on to the next step's all-reduce
    "diverge": "dist.main_process_first(function() end)",
    # rank 1 says where it is, then trains on until the test kills or stops it
    "mark": 'print("RANK1-AT-STEP-3")',
}


def load_json(path):
    with open(path) as f:
        return json.load(f)


class Faults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir().__enter__()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def command(self, launcher, recipe, out, *extra):
        runner_args = [recipe, "--output_dir", out, "--fault_timeout", str(FAULT_TIMEOUT), *extra]
        if launcher == "mpiexec":
            return [MPIEXEC, "-n", "2", BINARY, *runner_args]
        return [BINARY, "launch", "-n", "2", *runner_args]

    def recipe(self, name, fault, max_steps=8):
        return write(os.path.join(self.tmp, name + ".lua"), RECIPE.replace("FAULT", FAULTS[fault]).replace("MAX_STEPS", str(max_steps)))

    def run_fault(self, launcher, fault):
        name = f"{fault}_{launcher}"
        out = os.path.join(self.tmp, name)
        start = time.time()
        p = subprocess.run(self.command(launcher, self.recipe(name, fault), out), capture_output=True, text=True, timeout=FAULT_TIMEOUT + 120)
        ended = time.time()
        self.report_exit(fault, launcher, ended, out)
        return p, ended - start, out

    def report_exit(self, fault, launcher, ended, out, since=None):
        # The figures of docs/reliability.md: from the fault (rank 1's last collective before
        # its hook, or the signal) to the end of the job.
        if since is None:
            try:
                since = load_json(os.path.join(out, "flight_record", "rank-1.json"))["entries"][-1]["time_started"]
            except (OSError, KeyError, IndexError, ValueError):
                return
        print(f"\n{fault} under {launcher}: every rank exited {ended - since:.1f} s after the fault (fault_timeout = {FAULT_TIMEOUT} s)",
              file=sys.stderr)

    def signal_rank_1(self, launcher, sig, rank=1, settle=1.0):
        """Starts a long run, sends `sig` to rank 1 `settle` s after it passed step 3; returns the
        result, the seconds from the signal to the end of every process, and the output folder."""
        name = f"signal{int(sig)}_{launcher}_rank{rank}"
        out = os.path.join(self.tmp, name)
        cmd = self.command(launcher, self.recipe(name, "mark", max_steps=100000), out, "--log_level_replica", "info")
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen = []
        for line in p.stdout:
            seen.append(line)
            if "RANK1-AT-STEP-3" in line:
                break
        time.sleep(settle)  # a few heartbeats into training: rank 0 has heard where rank 1 is
        victim = rank_pid(out, rank)
        if victim is None:
            p.kill()
            self.fail(f"rank {rank} not found: " + "".join(seen)[-2000:])
        os.kill(victim, sig)
        start = time.time()
        try:
            stdout, stderr = p.communicate(timeout=FAULT_TIMEOUT + MARGIN)
        except subprocess.TimeoutExpired:
            os.kill(victim, signal.SIGKILL)
            p.kill()
            self.fail(f"the job did not end within {FAULT_TIMEOUT + MARGIN} s of {sig.name} to rank 1")
        self.report_exit(sig.name, launcher, time.time(), out, since=start)
        return p.returncode, stderr, time.time() - start, out

    def last_line(self, stderr):
        lines = [l for l in stderr.strip().splitlines() if l.strip()]
        self.assertTrue(lines, "nothing on stderr")
        return lines[-1]

    def assert_names(self, line, rank, step, phase, collective=r"#\d+ \w+"):
        self.assertTrue(line.startswith("runner: error: "), line)
        self.assertIn(f"rank {rank}", line)
        self.assertRegex(line, rf"step {step}\b")
        self.assertIn(phase, line)
        self.assertRegex(line, collective)

    def records(self, out):
        folder = os.path.join(out, "flight_record")
        self.assertTrue(os.path.isdir(folder), f"no {folder}")
        found = {}
        for name in sorted(os.listdir(folder)):
            self.assertRegex(name, r"^rank-\d\.json$")  # no temporary file left
            record = load_json(os.path.join(folder, name))
            seqs = [e["seq"] for e in record["entries"]]
            self.assertEqual(seqs, sorted(seqs))
            self.assertEqual(seqs, list(range(seqs[0], seqs[0] + len(seqs))), "gaps in the sequence numbers")
            found[record["rank"]] = record
        return found

    def both(self):
        return ("mpiexec", "launch")

    def test_a_rank_raising_in_a_callback(self):
        for launcher in self.both():
            with self.subTest(launcher=launcher):
                p, seconds, out = self.run_fault(launcher, "raise")
                self.assertEqual(p.returncode, 2, p.stderr[-2000:])  # a recipe error stays the user's (exit 2)
                self.assertLess(seconds, FAULT_TIMEOUT + MARGIN)
                line = self.last_line(p.stderr)
                self.assertIn("boom on rank one", line)
                self.assert_names(line, 1, 3, "phase on_step_end")
                self.assertEqual(p.stderr.count("boom on rank one"), 1, p.stderr)
                self.assertIn(1, self.records(out))

    def test_a_rank_stuck_in_a_callback(self):
        for launcher in self.both():
            with self.subTest(launcher=launcher):
                p, seconds, out = self.run_fault(launcher, "stuck")
                self.assertEqual(p.returncode, 1, p.stderr[-2000:])
                self.assertLess(seconds, FAULT_TIMEOUT + MARGIN)
                line = self.last_line(p.stderr)
                self.assertRegex(line, r"rank 1 is stuck in the recipe's on_step_end for \d+ s at step 3 \(its last collective #(\d+) ")
                self.assertRegex(line, r"rank 0 has waited \d+ s in collective #\d+ all_reduce")
                self.assertIn("flight record", line)
                records = self.records(out)
                self.assertEqual(sorted(records), [0, 1])
                # rank 0 waits in a collective rank 1 never started
                waiting = records[0]["waiting_in"]["seq"]
                self.assertIsNone(records[1]["waiting_in"])
                self.assertEqual(records[1]["entries"][-1]["seq"], waiting - 1)
                self.assertEqual(records[1]["phase"], "on_step_end")
                self.assertTrue(records[1]["in_user_code"])

    def test_a_rank_entering_another_collective(self):
        for launcher in self.both():
            with self.subTest(launcher=launcher):
                p, seconds, out = self.run_fault(launcher, "diverge")
                self.assertEqual(p.returncode, 1, p.stderr[-2000:])
                self.assertLess(seconds, FAULT_TIMEOUT + MARGIN)
                line = self.last_line(p.stderr)
                self.assertIn("the ranks diverged", line)
                self.assertRegex(line, r"rank 1 waits in another collective, #\d+ barrier \(step 3, phase on_step_end\)")
                records = self.records(out)
                self.assertEqual(records[1]["waiting_in"]["op"], "barrier")
                self.assertNotEqual(records[0]["waiting_in"]["op"], "barrier")
                # the same sequence number, two different collectives: where they parted
                self.assertEqual(records[0]["waiting_in"]["seq"], records[1]["waiting_in"]["seq"])

    def test_a_stopped_rank(self):
        for launcher in self.both():
            with self.subTest(launcher=launcher):
                code, stderr, seconds, out = self.signal_rank_1(launcher, signal.SIGSTOP)
                self.assertEqual(code, 1, stderr[-2000:])
                self.assertLess(seconds, FAULT_TIMEOUT + MARGIN)
                line = self.last_line(stderr)
                self.assertRegex(line, r"rank 1 stopped answering \d+ s ago")
                self.assert_names(line, 1, r"\d+", "phase ")
                records = self.records(out)
                self.assertIn(0, records)
                peers = records[0]["peers"]
                self.assertGreaterEqual(peers[1]["silent_for"], FAULT_TIMEOUT)
                self.assertLessEqual(peers[1]["last_seq"], records[0]["entries"][-1]["seq"])

    def test_a_stopped_rank_0_is_named_by_the_others(self):
        code, stderr, seconds, out = self.signal_rank_1("mpiexec", signal.SIGSTOP, rank=0)
        self.assertEqual(code, 1, stderr[-2000:])
        self.assertLess(seconds, FAULT_TIMEOUT + MARGIN)
        line = self.last_line(stderr)
        self.assertRegex(line, r"^runner: error: \[rank 1\] rank 0 stopped answering \d+ s ago")
        self.assert_names(line, 0, r"\d+", "phase ")
        self.assertIn(1, self.records(out))

    def test_a_killed_rank_under_runner_launch_is_named_by_the_launcher(self):
        # Half a heartbeat (1 s) after step 3: the launcher's copy is refreshed when the step
        # moves, so it names step 3 or later, not the last tick's step.
        code, stderr, seconds, out = self.signal_rank_1("launch", signal.SIGKILL, settle=0.2)
        self.assertEqual(code, 1, stderr[-2000:])
        self.assertLess(seconds, FAULT_TIMEOUT + MARGIN)
        line = self.last_line(stderr)
        self.assertRegex(line, r"^runner: error: rank 1 \(pid \d+\) died without a word")
        self.assert_names(line, 1, r"\d+", "phase ")
        self.assertGreaterEqual(int(re.search(r"at step (\d+)", line).group(1)), 3, line)
        self.assertEqual(sorted(self.records(out)), [0, 1])

    def test_a_killed_rank_under_plain_mpiexec_ends_the_job_at_once(self):
        # MPICH's mpiexec kills every other rank with SIGKILL within a second: nobody can say
        # more than its banner (documented); the job must still end, and not as a success.
        code, stderr, seconds, out = self.signal_rank_1("mpiexec", signal.SIGKILL)
        self.assertNotEqual(code, 0)
        self.assertLess(seconds, 10)


if __name__ == "__main__":
    unittest.main()
