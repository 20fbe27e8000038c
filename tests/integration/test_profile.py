"""profile_steps (#25): the PyTorch profiler over a few global steps. On the CPU the trace
holds aten ops inside one ProfilerStep#N range per profiled step, is Chrome trace JSON (what
Perfetto, chrome://tracing and TensorBoard's profiler plugin read), the log sums the ops up by
self time, and the run trains exactly as without the profiler. The CUDA side (kernels, the
summary by CUDA time) is test_gpu.py, test_profile_steps_records_cuda_kernels."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import RecipeTest, run  # noqa: E402

GPT = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(5)
local ids = torch.randint(0, 17, {24, 8})
return {
  args = { max_steps = 6, per_device_train_batch_size = 4, learning_rate = 0.01, logging_steps = 1, save_strategy = "no",
           report_to = "none", train_sampling_strategy = "sequential" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids:clone() } },
  model = models.gpt{ vocab_size = 17, block_size = 8, n_layer = 1, n_head = 2, n_embd = 16 },
}
"""


def losses(out):
    with open(os.path.join(out, "trainer_state.json")) as f:
        return [(e["step"], e.get("loss"), e.get("grad_norm")) for e in json.load(f)["log_history"] if "loss" in e]


class Profile(RecipeTest):
    RECIPE = GPT

    def test_steps_3_to_4_give_a_trace_a_summary_and_the_same_training(self):
        plain, profiled = os.path.join(self.tmp, "plain"), os.path.join(self.tmp, "profiled")
        code, _, err = run(self.recipe, "--output_dir", plain)
        self.assertEqual(code, 0, err)
        code, out, err = run(self.recipe, "--output_dir", profiled, "--profile_steps", "3-4")
        self.assertEqual(code, 0, err)
        self.assertEqual(losses(plain), losses(profiled))
        self.assertEqual(len(losses(plain)), 6)

        path = os.path.join(profiled, "profile", "rank0.pt.trace.json")
        with open(path) as f:
            trace = json.load(f)
        events = trace["traceEvents"]
        self.assertIsInstance(events, list)
        spans = [e for e in events if e.get("ph") == "X"]
        for e in spans:
            self.assertIn("ts", e)
            self.assertIn("dur", e)
            self.assertIn("name", e)
        names = {e["name"] for e in spans}
        self.assertTrue(names & {"aten::mm", "aten::addmm", "aten::matmul"}, sorted(names)[:40])
        steps = sorted(e["name"] for e in spans if e["name"].startswith("ProfilerStep#"))
        self.assertEqual(steps, ["ProfilerStep#3", "ProfilerStep#4"])
        # The matmuls (forward, backward) lie inside the two steps; the logging between them
        # (step 3's loss read back) is recorded too, outside the ranges.
        ranges = [(e["ts"], e["ts"] + e["dur"]) for e in spans if e["name"].startswith("ProfilerStep#")]
        mms = [e for e in spans if e["name"] in ("aten::mm", "aten::addmm")]
        self.assertTrue(mms)
        for e in mms:
            self.assertTrue(any(a <= e["ts"] <= b for a, b in ranges), e)

        lines = out.splitlines()
        head = [i for i, line in enumerate(lines) if "***** Profile of step 3-4: the ops with the most CPU self time, per step" in line]
        self.assertEqual(len(head), 1, out)
        self.assertIn("rank0.pt.trace.json", lines[head[0]])
        self.assertIn("CPU ms/step", lines[head[0] + 1])
        block = lines[head[0] + 2:head[0] + 13]
        self.assertTrue(any("aten::" in line for line in block), "\n".join(block))
        self.assertTrue(any("(all " in line and " ops)" in line for line in block), "\n".join(block))
        self.assertNotIn("ProfilerStep#", "\n".join(block))
        self.assertNotIn("nothing was profiled", out)

    def test_a_range_training_never_reaches_warns(self):
        out_dir = os.path.join(self.tmp, "short")
        code, out, err = run(self.recipe, "--output_dir", out_dir, "--num_train_epochs", "1", "--max_steps", "-1", "--profile_steps", "9-10")
        self.assertEqual(code, 0, err)
        self.assertEqual((out + err).count("profile_steps: nothing was profiled: training ran no step of 9-10 (it ended at global step 6)"), 1, out + err)
        self.assertFalse(os.path.exists(os.path.join(out_dir, "profile")))

    def test_a_range_training_ends_inside_is_written_at_the_end(self):
        out_dir = os.path.join(self.tmp, "inside")
        code, out, err = run(self.recipe, "--output_dir", out_dir, "--num_train_epochs", "1", "--max_steps", "-1", "--profile_steps", "6-9")
        self.assertEqual(code, 0, err)
        with open(os.path.join(out_dir, "profile", "rank0.pt.trace.json")) as f:
            steps = sorted(e["name"] for e in json.load(f)["traceEvents"] if e.get("name", "").startswith("ProfilerStep#"))
        self.assertEqual(steps, ["ProfilerStep#6"])
        self.assertIn("***** Profile of step 6:", out)

    def test_bad_values_exit_2_naming_the_argument(self):
        for value, why in (("4-3", "the first step is after the last"), ("x", "expected \"A-B\""), ("0", "steps count from 1"),
                           ("3-", "expected \"A-B\""), ("7", "beyond max_steps (6)")):
            with self.subTest(value=value):
                code, out, err = run(self.recipe, "--output_dir", os.path.join(self.tmp, "bad"), "--profile_steps", value)
                self.assertEqual(code, 2, out + err)
                lines = err.strip().splitlines()
                self.assertEqual(len(lines), 1, err)
                self.assertIn("profile_steps", lines[0])
                self.assertIn(why, lines[0])


if __name__ == "__main__":
    unittest.main()
