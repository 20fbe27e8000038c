"""Acceptance #2.1: quickstart learns y = 2x + 3 and the saved weights match what it printed."""
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


if __name__ == "__main__":
    unittest.main()
