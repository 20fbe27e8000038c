"""Signals and launch (#26.4): `runner launch` and plain mpiexec forward SIGTERM / SIGUSR1 /
SIGINT to the ranks; a preemption stop exits 75 and prints a resume command that repeats every
option; `runner launch` takes launcher options and honours RUNNER_MPIEXEC; a launcher without
a working PMI is one line, exit 2; the output folder's lock file goes at every exit;
log_on_each_node repeats only info lines on other nodes; save_on_each_node on a shared folder
warns once. Two "nodes" on one machine: MPICH's fork launcher with two host names."""
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, RecipeTest, read_safetensors, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"
PREEMPTED = 75

# A recipe option (steps) and a slow-down hook, so a signal lands mid-training.
RECIPE = """local data, recipe, dist = require "runner.data", require "runner.recipe", require "runner.dist"
local opt = recipe.options{ steps = 40, slow = 0.0, fail_at = 0 }
print("world_size=" .. dist.world_size .. " num_nodes=" .. dist.num_nodes)
torch.manual_seed(3)
local x = torch.randn(64, 8)
local y = x:matmul(torch.randn(8, 1))
return {
  args = { max_steps = opt.steps, per_device_train_batch_size = 4, learning_rate = 0.01, save_steps = 5,
           logging_steps = 1, log_level = "info" },
  datasets = { train = data.tensors{ x = x, labels = y } },
  model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
  callbacks = { { on_step_end = function(args, state)
    if state.global_step == opt.fail_at then error("failing on purpose") end
    local t = os.clock() while os.clock() - t < opt.slow do end
  end } },
}
"""


def global_step(folder):
    import json
    with open(os.path.join(folder, "trainer_state.json")) as f:
        return json.load(f)["global_step"]


class WithRecipe(RecipeTest):
    RECIPE = RECIPE


class Launch(WithRecipe):

    def out(self, name):
        return os.path.join(self.tmp, name)

    def start(self, cmd, env=None):
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, **(env or {})))

    def wait_for_checkpoint(self, out, p, step=5):
        deadline = time.time() + 120
        while time.time() < deadline and p.poll() is None:
            names = os.listdir(out) if os.path.isdir(out) else []
            if any(d.startswith("checkpoint-") and int(d.split("-")[1]) >= step for d in names):
                return
            time.sleep(0.02)
        self.fail(f"checkpoint-{step} never appeared: {p.communicate()}")

    def assert_stopped_with_checkpoint(self, p, out, err, name, command_start, codes=(PREEMPTED,)):
        self.assertIn(p.returncode, codes, err)
        stopped = [line for line in err.splitlines() if line.startswith(f"runner: stopped by {name} after step ")]
        self.assertEqual(len(stopped), 1, err)
        step = int(stopped[0].split("after step ")[1].split(";")[0])
        self.assertTrue(os.path.isdir(os.path.join(out, f"checkpoint-{step}")), stopped[0])
        self.assertFalse(os.path.exists(os.path.join(out, "model.safetensors")), "a preempted run wrote final outputs")
        self.assertFalse(os.path.exists(os.path.join(out, ".runner.lock")), "the lock file was left behind")
        command = stopped[0].split("resume with `")[1].rstrip("`")
        self.assertTrue(command.startswith(command_start), command)
        return step, command

    def resume_with(self, command, launcher_prefix=()):
        """Runs a printed resume command with this build's binary in place of `runner`."""
        words = shlex.split(command)
        i = words.index("runner")
        words = [*launcher_prefix, *words[:i], BINARY, *words[i + 1:]]
        r = subprocess.run(words, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_runner_launch_forwards_stop_signals_and_the_resume_line_repeats_every_option(self):
        for sig, name in ((signal.SIGTERM, "SIGTERM"), (signal.SIGUSR1, "SIGUSR1")):
            with self.subTest(signal=name):
                out = self.out(f"launch_{name}")
                p = self.start([BINARY, "launch", "-n", "2", self.recipe, "--output_dir", out, "--steps", "30", "--slow", "0.05",
                                "--seed", "7"])
                self.wait_for_checkpoint(out, p)
                p.send_signal(sig)  # the launcher, as an sbatch script's trap would
                _, err = p.communicate(timeout=120)
                step, command = self.assert_stopped_with_checkpoint(p, out, err, name, "runner launch -n 2 ")
                self.assertLess(step, 30)
                self.assertEqual(command, f"runner launch -n 2 {self.recipe} --output_dir {out} --steps 30 --slow 0.05 --seed 7 "
                                          "--resume_from_checkpoint true")
                if sig == signal.SIGTERM:
                    # The printed command resumes the same run: 30 steps, not the recipe's 40.
                    self.resume_with(command)
                    self.assertEqual(global_step(out), 30)
                    self.assertFalse(os.path.exists(os.path.join(out, ".runner.lock")))

    def test_a_launcher_killed_outright_stops_its_ranks_with_a_checkpoint(self):
        # SIGKILL cannot be passed on; mpiexec then gets SIGTERM (its parent died) and the
        # ranks save and stop instead of training on as orphans.
        out = self.out("launch_killed")
        p = self.start([BINARY, "launch", "-n", "2", self.recipe, "--output_dir", out, "--slow", "0.05"])
        self.wait_for_checkpoint(out, p)
        p.kill()
        _, err = p.communicate(timeout=120)  # returns when every process holding its pipes is gone
        self.assertEqual(p.returncode, -signal.SIGKILL)
        self.assertEqual(len([line for line in err.splitlines() if line.startswith("runner: stopped by SIGTERM after step ")]), 1, err)
        self.assertFalse(os.path.exists(os.path.join(out, "model.safetensors")), err)

    def test_runner_launch_forwards_ctrl_c(self):
        out = self.out("launch_int")
        p = self.start([BINARY, "launch", "-n", "2", self.recipe, "--output_dir", out, "--slow", "0.05"])
        self.wait_for_checkpoint(out, p)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 130, err)
        self.assertEqual(err.count("runner: interrupted (Ctrl-C)"), 1, err)
        self.assertFalse(os.path.exists(os.path.join(out, ".runner.lock")))

    def test_plain_mpiexec_forwards_sigterm(self):
        # MPICH 4.0.2's hydra forwards SIGTERM and SIGUSR1 to every rank.
        out = self.out("mpiexec_term")
        p = self.start([MPIEXEC, "-n", "2", BINARY, self.recipe, "--output_dir", out, "--slow", "0.05", "--steps", "35"])
        self.wait_for_checkpoint(out, p)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
        # Every rank exits 75, but hydra's mpiexec, once signalled itself, sometimes loses its
        # proxies' exit codes and exits 0 (runner launch makes up for it: launch_command.cpp).
        _, command = self.assert_stopped_with_checkpoint(p, out, err, "SIGTERM", "mpiexec -n 2 runner ", codes=(PREEMPTED, 0))
        self.assertTrue(command.endswith(f"--output_dir {out} --slow 0.05 --steps 35 --resume_from_checkpoint true"), command)

    def test_single_process_preemption_exits_75_and_quotes_options(self):
        out = self.out("single term")  # a space: the command quotes it
        p = self.start([BINARY, self.recipe, "--output_dir", out, "--slow=0.05", "--steps", "33", "--sandbox"])
        self.wait_for_checkpoint(out, p)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
        _, command = self.assert_stopped_with_checkpoint(p, out, err, "SIGTERM", "runner ")
        self.assertEqual(command, f"runner {self.recipe} --output_dir '{out}' --slow=0.05 --steps 33 --sandbox --resume_from_checkpoint true")
        self.resume_with(command)
        self.assertEqual(global_step(out), 33)

    def test_a_copy_of_the_stop_signal_within_2_s_is_the_same_stop(self):
        # Slurm's time limit signals every process of the job and mpiexec forwards its own copy:
        # a rank gets SIGTERM twice at once, which must not turn into a stop without a checkpoint.
        out = self.out("twice_at_once")
        p = self.start([BINARY, self.recipe, "--output_dir", out, "--slow", "0.3"])
        self.wait_for_checkpoint(out, p)
        p.send_signal(signal.SIGTERM)
        time.sleep(0.1)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
        self.assert_stopped_with_checkpoint(p, out, err, "SIGTERM", "runner ")
        self.assertEqual(err.count("SIGTERM received: saving a checkpoint"), 1, err)

    def test_the_lock_file_goes_at_every_exit_and_a_stale_one_does_not_block(self):
        def lock(out):
            return os.path.join(out, ".runner.lock")
        out = self.out("lock_normal")
        r = subprocess.run([BINARY, self.recipe, "--output_dir", out, "--steps", "3"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(lock(out)), "after a normal exit")
        out = self.out("lock_error")
        r = subprocess.run([BINARY, self.recipe, "--output_dir", out, "--steps", "6", "--fail_at", "2"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertFalse(os.path.exists(lock(out)), "after an error")
        out = self.out("lock_error_mpi")
        r = subprocess.run([MPIEXEC, "-n", "2", BINARY, self.recipe, "--output_dir", out, "--steps", "6", "--fail_at", "2"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertFalse(os.path.exists(lock(out)), "after an error under mpiexec")
        # A second SIGTERM (2 s after the first: a copy within 2 s is the same stop) stops at
        # once, and no destructors run.
        out = self.out("lock_signal")
        p = self.start([BINARY, self.recipe, "--output_dir", out, "--slow", "5.0", "--save_steps", "1"])
        self.wait_for_checkpoint(out, p, step=1)
        p.send_signal(signal.SIGTERM)
        time.sleep(2.3)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertFalse(os.path.exists(lock(out)), "after a stop at once")
        # A lock file a SIGKILLed run left (no process holds it) does not block the next run,
        # which removes it at its end.
        out = self.out("lock_killed")
        p = self.start([BINARY, self.recipe, "--output_dir", out, "--slow", "0.2"])
        self.wait_for_checkpoint(out, p, step=5)
        p.kill()
        p.communicate()
        self.assertTrue(os.path.exists(lock(out)))
        r = subprocess.run([BINARY, self.recipe, "--output_dir", out, "--steps", "2"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(lock(out)))

    def test_a_launcher_without_a_working_pmi_is_one_line_exit_2(self):
        out = self.out("nopmi")
        step = {"SLURM_JOB_ID": "1", "SLURM_STEP_ID": "0", "SLURM_NTASKS": "4", "SLURM_STEP_NUM_TASKS": "4"}
        base = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "PMI_", "PMIX_", "OMPI_"))}
        for rank, expect_line in (("0", True), ("3", False)):
            r = subprocess.run([BINARY, self.recipe, "--output_dir", out, "--steps", "2"], capture_output=True, text=True, timeout=120,
                               env=dict(base, **step, SLURM_PROCID=rank))
            self.assertEqual(r.returncode, 2, r.stderr)
            lines = r.stderr.strip().splitlines()
            if expect_line:
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertRegex(lines[0], r"^runner: error: SLURM_STEP_NUM_TASKS=4 but MPI sees a world of 1 .*srun --mpi=pmi2")
            else:
                self.assertEqual(lines, [], "only the first task speaks")
            self.assertFalse(os.path.exists(os.path.join(out, "checkpoint-2")), "it trained anyway")
        # A batch script or an salloc shell (no step, or Slurm's batch/interactive step ids):
        # runner started there directly is one legitimate process.
        for extra in ({"SLURM_PROCID": "0"}, {"SLURM_STEP_ID": "4294967291", "SLURM_PROCID": "0"}, {}):
            with self.subTest(env=extra):
                env = dict(base, SLURM_JOB_ID="1", SLURM_NTASKS="4", **extra)
                r = subprocess.run([BINARY, self.recipe, "--output_dir", self.out("salloc"), "--steps", "2"], capture_output=True,
                                   text=True, timeout=120, env=env)
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_launch_options_and_runner_mpiexec(self):
        wrapper = write(self.out("wrap/mpiexec"), f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {self.out('wrap/args')}\nexec {MPIEXEC} \"$@\"\n")
        os.chmod(wrapper, 0o755)
        hosts = write(self.out("hosts"), "localhost:2\n")
        out = self.out("hostfile")
        r = subprocess.run([BINARY, "launch", "-n", "2", "-f", hosts, self.recipe, "--output_dir", out, "--steps", "2"],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, RUNNER_MPIEXEC=wrapper))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.out("wrap/args")) as f:
            self.assertEqual(f.read().split(), ["-n", "2", "-f", hosts, BINARY, self.recipe, "--output_dir", out, "--steps", "2"])
        self.assertIn("world_size=2", r.stdout + r.stderr)
        # torchrun's names: --nproc_per_node P on --nnodes 1 is P ranks.
        r = subprocess.run([BINARY, "launch", "--nproc_per_node", "2", "--hostfile=" + hosts, self.recipe, "--output_dir", out, "--steps", "2"],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, RUNNER_MPIEXEC=wrapper))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.out("wrap/args")) as f:
            self.assertEqual(f.read().split()[:6], ["-n", "2", "-ppn", "2", "-f", hosts])
        # --nnodes 2 without hosts: mpiexec puts both ranks here, and the ranks say so at once
        # (torchrun would wait for a second node). A stale torchrun WORLD_SIZE is cleared.
        r = subprocess.run([BINARY, "launch", "--nnodes", "2", "--nproc_per_node", "1", self.recipe, "--output_dir", out, "--steps", "2"],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, WORLD_SIZE="8", RANK="0"))
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = [line for line in r.stderr.splitlines() if line.startswith("runner: error")]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("runner launch --nnodes 2, but this run's ranks are on 1 node", lines[0])
        for args, message in ((["-n", "2", "-f", self.out("missing")], "cannot read the hostfile"),
                              (["-n", "2", "-x", "1"], 'unknown option "-x" before the recipe'),
                              (["-n", "2", "--ppn", "x"], '--ppn takes a positive count, got "x"')):
            with self.subTest(args=args):
                r = subprocess.run([BINARY, "launch", *args, self.recipe], capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, 2, r.stderr)
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(message, lines[0])
        r = subprocess.run([BINARY, "launch", "-n", "2", self.recipe], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, RUNNER_MPIEXEC=self.out("no-such-mpiexec")))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot run " + self.out("no-such-mpiexec"), r.stderr)


# Made-up host names: with the fork launcher hydra starts both proxies here, and nothing resolves them.
TWO_NODES = ["--hosts", "nodea,nodeb", "--ppn", "1", "--launcher_args", "-launcher fork"]


class TwoNodes(WithRecipe):
    """MPICH's fork launcher with two host names: two proxies, so MPI reports two nodes."""

    def launch(self, out, *extra):
        r = subprocess.run([BINARY, "launch", "-n", "2", *TWO_NODES, self.recipe, "--output_dir", out, "--steps", "10", *extra],
                           capture_output=True, text=True, timeout=180)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout + r.stderr

    def test_log_on_each_node_repeats_info_lines_not_progress(self):
        text = self.launch(os.path.join(self.tmp, "log"))
        self.assertIn("num_nodes=2", text)
        rank1 = [line for line in text.splitlines() if "rank 1" in line]
        self.assertTrue(any("***** Running training *****" in line for line in rank1), text)
        self.assertFalse([line for line in rank1 if "'loss'" in line or " step " in line or "metrics *****" in line], text)
        rank0 = [line for line in text.splitlines() if "rank 0" in line]
        self.assertTrue(any("'loss'" in line for line in rank0), text)
        text = self.launch(os.path.join(self.tmp, "log0"), "--log_on_each_node", "false")
        self.assertFalse([line for line in text.splitlines() if "rank 1" in line and "Running training" in line], text)

    def test_save_on_each_node_on_a_shared_folder_warns_once(self):
        out = os.path.join(self.tmp, "shared")
        text = self.launch(out, "--save_on_each_node")
        self.assertEqual(text.count("save_on_each_node: the first processes of different nodes see one another's files"), 1, text)
        self.assertFalse([f for f in os.listdir(out) if f.startswith(".runner-node-")], "markers left behind")
        self.assertIn("so rank 0 writes them once", text)
        self.assertTrue(os.path.isfile(os.path.join(out, "model.safetensors")))
        self.assertTrue([f for f in os.listdir(out) if f.startswith("checkpoint-")], os.listdir(out))
        # One node: no warning.
        r = subprocess.run([MPIEXEC, "-n", "2", BINARY, self.recipe, "--output_dir", out + "1", "--steps", "2", "--save_on_each_node"],
                           capture_output=True, text=True, timeout=180)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("save_on_each_node:", r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main()
