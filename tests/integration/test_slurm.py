"""Slurm, for real (#26.2): a private Slurm cluster on this machine (fake_slurm.py) runs
`srun -n 2 runner`, refuses a step without PMI in one line, and runs docs/distributed.md's
batch script, which is signalled before its time limit, saves, requeues itself and finishes
bit-identical to an uninterrupted run. Exit 77 (a visible skip) without Slurm or root."""
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from fake_slurm import FakeSlurm, unavailable  # noqa: E402
from runner_test_util import BINARY, SOURCE, TempDir, read_safetensors, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

RECIPE = """local data, recipe, dist = require "runner.data", require "runner.recipe", require "runner.dist"
local opt = recipe.options{ steps = 40, tick = false }
print("world_size=" .. dist.world_size)
torch.manual_seed(3)
local x = torch.randn(64, 8)
local y = x:matmul(torch.randn(8, 1))
return {
  args = { max_steps = opt.steps, per_device_train_batch_size = 4, learning_rate = 0.01, save_steps = 25,
           logging_steps = 5, save_total_limit = 2 },
  datasets = { train = data.tensors{ x = x, labels = y } },
  model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
  callbacks = { { on_step_end = function(args, state)
    -- tick: each step ends at the next wall-clock second, so the run lasts its step count in
    -- seconds whatever the machine's speed or load (os.time is the only wall clock Lua has).
    if opt.tick then local t = os.time() while os.time() == t do end end
  end } },
}
"""


def docs_batch_script():
    with open(os.path.join(SOURCE, "docs", "distributed.md")) as f:
        text = f.read()
    block = re.search(r"```shell\n(#!/bin/bash\n#SBATCH .*?)```", text, re.S)
    assert block, "docs/distributed.md has no ```shell batch script"
    return block.group(1)


class Slurm(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir().__enter__()
        cls.recipe = write(os.path.join(cls.tmp, "r.lua"), RECIPE)
        cls.slurm = FakeSlurm().__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.slurm.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_srun_runs_the_ranks_and_a_step_without_pmi_is_one_line(self):
        out = os.path.join(self.tmp, "srun")
        r = self.slurm.run("srun", "-n", "2", BINARY, self.recipe, "--output_dir", out, "--steps", "6")
        self.assertEqual(r.returncode, 0, r.stderr + self.slurm.log())
        self.assertEqual(r.stdout.count("world_size=2"), 2, r.stdout)
        self.assertTrue(os.path.exists(os.path.join(out, "model.safetensors")))
        r = self.slurm.run("srun", "--mpi=none", "-n", "2", BINARY, self.recipe, "--output_dir", os.path.join(self.tmp, "nopmi"), "--steps", "6")
        self.assertEqual(r.returncode, 2, r.stderr)
        errors = [line for line in r.stderr.splitlines() if line.startswith("runner: error:")]
        self.assertEqual(len(errors), 1, r.stderr)
        self.assertIn("MPI sees a world of 1", errors[0])

    def test_the_docs_batch_script_requeues_itself_and_finishes_bit_identical(self):
        args = "--steps 55 --tick"  # 55 s of training: longer than Slurm's signal may be late (about 40 s)
        expected_dir = os.path.join(self.tmp, "uninterrupted")
        # The slow-down hook only spends time: the uninterrupted run needs none.
        r = subprocess.run([MPIEXEC, "-n", "2", BINARY, self.recipe, "--output_dir", expected_dir, "--steps", "55"],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(self.tmp, "requeued")
        script = docs_batch_script()
        for old, new in (("build/runner", BINARY), (" r.lua ", f" {self.recipe} "), ("--output_dir out ", f"--output_dir {out} {args} ")):
            self.assertIn(old, script)
            script = script.replace(old, new)
        path = write(os.path.join(self.tmp, "job.sh"), script)
        log = os.path.join(self.tmp, "job.log")
        # A one-minute limit with the signal 50 s before it (Slurm's timer checks every 30 s, so
        # it comes 10-40 s in): the run is stopped at least once before its 55 s are done.
        r = self.slurm.run("sbatch", "--parsable", "--ntasks=2", "--time=1", "--signal=USR1@50", "-o", log, path)
        self.assertEqual(r.returncode, 0, r.stderr)
        job = self.slurm.wait_for(r.stdout.strip().split(";")[0], timeout=900)
        with open(log) as f:
            text = f.read()
        self.assertEqual(job["JobState"], "COMPLETED", text[-3000:])
        self.assertGreaterEqual(int(job["Restarts"]), 1, text[-3000:])
        # Each stop is a requeue; a stop after a step resumes from that step's checkpoint.
        self.assertEqual(text.count("runner: stopped by SIGUSR1"), int(job["Restarts"]), text[-3000:])
        stops = re.findall(r"runner: stopped by SIGUSR1 after step (\d+)", text)
        self.assertTrue(stops, text[-3000:])
        for step in stops:
            self.assertIn(f"Resuming from {out}/checkpoint-{step}", text)
        # The stop line's resume command names the MPI plugin the step used (SLURM_MPI_TYPE).
        self.assertRegex(text, r"resume with `srun --mpi=pmi2 -n 2 runner ")
        expected = read_safetensors(os.path.join(expected_dir, "model.safetensors"))
        got = read_safetensors(os.path.join(out, "model.safetensors"))
        for k in expected:
            self.assertTrue((got[k] == expected[k]).all(), k)
        print(f"sbatch: {job['Restarts']} requeues (stopped after steps {', '.join(stops)}), final weights identical", file=sys.stderr)


if __name__ == "__main__":
    reason = unavailable()
    if reason:
        print("skipped: " + reason)
        sys.exit(77)
    unittest.main()
