"""Acceptance #2.1: quickstart learns y = 2x + 3 and the saved weights match what it printed.
The first run's default recipe (hello_gpt) learns from held-out-evaluated text and writes a sample."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, read_safetensors, run  # noqa: E402


class Quickstart(unittest.TestCase):
    def test_learns_the_line_and_saves_what_it_printed(self):
        with TempDir() as out:
            code, stdout, stderr = run(os.path.join(SOURCE, "recipes/quickstart.lua"), "--output_dir", out)
            self.assertEqual(code, 0, stderr)
            m = re.search(r"learned weight = ([-\d.]+), bias = ([-\d.]+)", stdout)
            self.assertIsNotNone(m, stdout)
            w, b = float(m.group(1)), float(m.group(2))
            self.assertLess(abs(w - 2), 0.05)
            self.assertLess(abs(b - 3), 0.05)
            # one log line per logging step (320 steps / logging_steps 40)
            self.assertEqual(len(re.findall(r"\{'loss': ", stdout)), 8)
            tensors = read_safetensors(os.path.join(out, "model.safetensors"))
            self.assertEqual(sorted(tensors), ["bias", "weight"])
            self.assertEqual(tensors["weight"].shape, (1, 1))
            self.assertAlmostEqual(float(tensors["weight"][0, 0]), w, places=4)
            self.assertAlmostEqual(float(tensors["bias"][0]), b, places=4)
            for f in ["trainer_state.json", "training_args.json", "train_results.json", "all_results.json"]:
                self.assertTrue(os.path.exists(os.path.join(out, f)), f)


class FirstRun(unittest.TestCase):
    def test_scripts_run_defaults_to_hello_gpt(self):
        with open(os.path.join(SOURCE, "scripts/run")) as f:
            self.assertIn('set -- "$root/recipes/hello_gpt.lua" "$@"', f.read())

    def test_hello_gpt_learns_evaluates_and_writes_a_sample(self):
        with TempDir() as out:
            # The default run, as scripts/run makes it (only the sample is shorter).
            code, stdout, stderr = run(os.path.join(SOURCE, "recipes/hello_gpt.lua"), "--output_dir", out,
                                       "--sample_chars", "120", timeout=900)
            self.assertEqual(code, 0, stderr)
            with open(os.path.join(out, "trainer_state.json")) as f:
                evals = [e["eval_loss"] for e in json.load(f)["log_history"] if "eval_loss" in e]
            self.assertEqual(len(evals), 4)  # every 300 of 1200 steps
            # README: "the evaluation loss falls from about 2.5 to 2.1 nats per character"
            self.assertTrue(2.3 < evals[0] < 2.7, evals)
            self.assertLess(evals[-1], 2.2, evals)
            self.assertTrue(all(b < a for a, b in zip(evals, evals[1:])), evals)  # falls at every evaluation
            sample = stdout.split("a sample of the trained model (120 characters after the prompt):\n", 1)[1]
            sample = sample.split("\n[", 1)[0]  # up to the next log line
            self.assertTrue(sample.startswith("First Citizen:\n"), sample)
            with open(os.path.join(SOURCE, "recipes/lib/shakespeare.txt")) as f:
                vocabulary = set(f.read())
            self.assertEqual(len(sample), len("First Citizen:\n") + 120, repr(sample))
            self.assertTrue(set(sample) <= vocabulary)
            self.assertTrue(os.path.exists(os.path.join(out, "model.safetensors")))


if __name__ == "__main__":
    unittest.main()
