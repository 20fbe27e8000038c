"""Every recipe in recipes/ trains end to end (20 steps each), writes its outputs, and
learns: the mean logged loss of the last 5 steps is below that of the first 5."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, read_safetensors, run  # noqa: E402

SHORT = {
    "char_gpt": ["--iters", "20"],
    "char_gpt_parquet": ["--iters", "20"],
    "char_gpt_stream": ["--iters", "20"],
    "torchscript_finetune": ["--max_steps", "20"],
}


class RecipesRun(unittest.TestCase):
    def test_every_recipe_runs(self):
        recipes = sorted(f[:-4] for f in os.listdir(os.path.join(SOURCE, "recipes")) if f.endswith(".lua"))
        self.assertGreaterEqual(len(recipes), 8)
        with TempDir() as tmp:
            module = os.path.join(tmp, "tiny.pt")
            subprocess.run([sys.executable, os.path.join(SOURCE, "scripts/make_tiny_torchscript.py"), module], check=True)
            for name in recipes:
                with self.subTest(recipe=name):
                    out = os.path.join(tmp, name)
                    extra = SHORT.get(name, ["--max_steps", "20"]) + ["--logging_steps", "1", "--save_strategy", "no"]
                    if name == "torchscript_finetune":
                        extra = extra + ["--module", module]
                    code, stdout, stderr = run(os.path.join(SOURCE, "recipes", name + ".lua"), "--output_dir", out, *extra, timeout=600)
                    self.assertEqual(code, 0, stderr)
                    # a LoRA recipe saves its adapters (peft's file), the others the model
                    saved = "adapter_model.safetensors" if os.path.exists(os.path.join(out, "adapter_model.safetensors")) else "model.safetensors"
                    weights = read_safetensors(os.path.join(out, saved))
                    self.assertTrue(weights)
                    with open(os.path.join(out, "trainer_state.json")) as f:
                        losses = [e["loss"] for e in json.load(f)["log_history"] if "loss" in e]
                    self.assertEqual(len(losses), 20)
                    self.assertLess(sum(losses[-5:]) / 5, sum(losses[:5]) / 5, f"{name} did not learn: {losses}")


if __name__ == "__main__":
    unittest.main()
