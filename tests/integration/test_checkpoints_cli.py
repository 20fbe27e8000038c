"""Checkpoints through the CLI: folder contents and formats, resume (bit-identical final
weights, a warning when step arguments changed), and the errors for bad resume paths."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, read_safetensors, run, write  # noqa: E402

RECIPE = """local data = require "runner.data"
torch.manual_seed(3)
local x = torch.randn(40, 3)
local y = x:matmul(torch.tensor{{1.5}, {-2}, {0.5}}) + 0.25
return {
  args = { max_steps = 12, per_device_train_batch_size = 4, gradient_accumulation_steps = 2,
           learning_rate = 0.05, warmup_steps = 2, save_steps = 4, logging_steps = 3 },
  datasets = { train = data.tensors{ x = x, labels = y } },
  model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Dropout(0.1), nn.Linear(8, 1)),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
}
"""


class CheckpointsCli(unittest.TestCase):
    def test_ctrl_c_names_the_last_checkpoint_and_how_to_resume(self):
        out = os.path.join(self.tmp, "interrupted")
        p = subprocess.Popen([BINARY, self.recipe, "--output_dir", out, "--max_steps", "1000000", "--save_steps", "2",
                              "--logging_steps", "1000"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while not os.path.isdir(os.path.join(out, "checkpoint-2")) and time.time() < deadline and p.poll() is None:
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^runner: interrupted \(Ctrl-C\); the last checkpoint is .*/interrupted/checkpoint-\d+: resume with "
                                   r"`runner .*r\.lua --output_dir .*interrupted --max_steps 1000000 --save_steps 2 --logging_steps 1000 "
                                   r"--resume_from_checkpoint true`$")

    def setUp(self):
        self.tmp = TempDir().__enter__()
        self.recipe = write(os.path.join(self.tmp, "r.lua"), RECIPE)
        self.full = os.path.join(self.tmp, "full")
        code, self.full_out, err = run(self.recipe, "--output_dir", self.full)
        self.assertEqual(code, 0, err)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_checkpoint_folders_follow_the_output_contract(self):
        self.assertEqual(sorted(d for d in os.listdir(self.full) if d.startswith("checkpoint-")),
                         ["checkpoint-12", "checkpoint-4", "checkpoint-8"])
        self.assertFalse([d for d in os.listdir(self.full) if d.startswith(".tmp")], "temporary folders left behind")
        ck = os.path.join(self.full, "checkpoint-8")
        self.assertEqual(sorted(os.listdir(ck)), ["loop_state.json", "manifest.json", "model.safetensors", "optimizer.json", "optimizer.safetensors",
                                                  "recipe.lua", "rng_state.json", "scheduler.json", "trainer_state.json",
                                                  "training_args.json"])
        with open(os.path.join(ck, "trainer_state.json")) as f:
            text = f.read()
        state = json.loads(text)
        self.assertEqual(text, json.dumps(state, indent=2, sort_keys=True) + "\n")  # HF's formatting
        self.assertEqual(state["global_step"], 8)
        self.assertEqual([e["step"] for e in state["log_history"]], [3, 6])
        opt = read_safetensors(os.path.join(ck, "optimizer.safetensors"))
        self.assertIn("exp_avg.0.weight", opt)
        self.assertEqual(opt["exp_avg_sq.3.bias"].shape, (1,))
        with open(os.path.join(ck, "recipe.lua")) as f:
            self.assertEqual(f.read(), RECIPE)

    def test_resume_finishes_with_the_same_weights(self):
        for step in (4, 8):
            out = os.path.join(self.tmp, f"resumed{step}")
            code, stdout, err = run(self.recipe, "--output_dir", out, "--resume_from_checkpoint",
                                    os.path.join(self.full, f"checkpoint-{step}"))
            self.assertEqual(code, 0, err)
            a = read_safetensors(os.path.join(self.full, "model.safetensors"))
            b = read_safetensors(os.path.join(out, "model.safetensors"))
            for name in a:
                self.assertTrue((a[name] == b[name]).all(), f"{name} differs after resuming at {step}")
            with open(os.path.join(self.full, "trainer_state.json")) as f:
                full_state = json.load(f)
            with open(os.path.join(out, "trainer_state.json")) as f:
                resumed_state = json.load(f)
            strip = lambda h: [{k: v for k, v in e.items() if "runtime" not in k and "per_second" not in k and "wait" not in k} for e in h]  # noqa: E731
            self.assertEqual(strip(full_state["log_history"]), strip(resumed_state["log_history"]))

    def test_resume_true_takes_the_latest_and_warns_about_changed_steps(self):
        code, stdout, err = run(self.recipe, "--output_dir", self.full, "--resume_from_checkpoint", "true",
                                "--max_steps", "14", "--logging_steps", "5")
        self.assertEqual(code, 0, err)
        self.assertIn("Resuming from " + os.path.join(self.full, "checkpoint-12"), stdout)
        self.assertIn("logging_steps: 5 (from args) != 3 (from trainer_state.json)", stdout)

    def test_resuming_another_runs_checkpoint_warns(self):
        # A reused output_dir: resume_from_checkpoint=true would take the old run's newest
        # checkpoint; a different recipe or different training arguments are named.
        other = write(os.path.join(self.tmp, "other.lua"), RECIPE.replace("torch.manual_seed(3)", "torch.manual_seed(4)"))
        code, stdout, err = run(other, "--output_dir", self.full, "--resume_from_checkpoint", "true", "--learning_rate", "0.1",
                                "--max_steps", "14")
        self.assertEqual(code, 0, err)
        self.assertIn("checkpoint-12 was written by a different recipe than " + other, stdout)
        self.assertIn("saved with other arguments: learning_rate 0.05 -> 0.1, max_steps 12 -> 14", stdout)

    def test_bad_resume_paths(self):
        code, _, err = run(self.recipe, "--output_dir", os.path.join(self.tmp, "empty"), "--resume_from_checkpoint", "true")
        self.assertEqual(code, 2)
        self.assertIn("no valid checkpoint found in output directory", err)
        code, _, err = run(self.recipe, "--output_dir", os.path.join(self.tmp, "x"), "--resume_from_checkpoint", "/nope/checkpoint-1")
        self.assertEqual(code, 2)
        self.assertIn("can't find a valid checkpoint at /nope/checkpoint-1", err)

    def test_malformed_checkpoint_metadata_names_the_file_and_key(self):
        cases = [("trainer_state.json", "global_step", "x", "'global_step': expected an integer"),
                 ("trainer_state.json", "log_history", 3, "'log_history': expected a list"),
                 ("trainer_state.json", "best_metric", "x", "'best_metric': expected a number"),
                 ("trainer_state.json", "epoch", [], "'epoch': expected a number"),
                 ("scheduler.json", "steps_taken", "x", "'steps_taken': expected an integer"),
                 ("optimizer.json", "step", "two", "'step': expected an integer"),
                 ("optimizer.json", "type", 3, "'type': expected a string"),
                 ("loop_state.json", "tr_loss", "x", "'tr_loss': expected a number"),
                 ("rng_state.json", "cpu", 5, "'cpu': expected a string")]
        for name, key, value, expected in cases:
            with self.subTest(file=name, key=key):
                ck = os.path.join(self.tmp, "bad", "checkpoint-8")
                shutil.rmtree(os.path.join(self.tmp, "bad"), ignore_errors=True)
                shutil.copytree(os.path.join(self.full, "checkpoint-8"), ck)
                os.remove(os.path.join(ck, "manifest.json"))  # as HF or an older runner wrote it: the fields are checked
                with open(os.path.join(ck, name)) as f:
                    data = json.load(f)
                data[key] = value
                with open(os.path.join(ck, name), "w") as f:
                    json.dump(data, f)
                code, _, err = run(self.recipe, "--output_dir", os.path.join(self.tmp, "bad"), "--resume_from_checkpoint", "true")
                self.assertEqual(code, 2, err)
                lines = err.strip().splitlines()
                self.assertEqual(len(lines), 1, err)
                self.assertIn(os.path.join(ck, name) + ": " + expected, lines[0])


if __name__ == "__main__":
    unittest.main()
