"""report_to (docs/outputs.md, "Reporting"): TensorBoard event files read back with the
`tensorboard` package's own EventAccumulator and compared with trainer_state.json's
log_history; the JSON Lines log; where the files go; one writer under mpiexec; bad values.
Exit 77 (skipped, shown by ctest) without the tensorboard package (scripts/setup installs it)."""
import glob
import json
import math
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, run, write  # noqa: E402

try:
    import numpy as np
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.compat.proto import event_pb2
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c
    from tensorboard.plugins.hparams import plugin_data_pb2
except ImportError as e:
    print(f"SKIP: tensorboard not installed ({e}); scripts/setup installs it")
    sys.exit(77)

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

RECIPE = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(0)
local x = torch.randn(64, 4)
local y = x:sum(1):gt(0):long():view(-1)
return {
  args = { max_steps = 6, per_device_train_batch_size = 8, logging_steps = 2, eval_strategy = "steps", eval_steps = 3,
           save_strategy = "no", learning_rate = 0.01, report_to = REPORT },
  datasets = { train = data.tensors{ x = x, labels = y }, eval = data.tensors{ x = x, labels = y } },
  model = models.mlp{ sizes = {4, 8, 2}, input = "x" },
}
"""


def hf_tag(key):
    """transformers.integrations.integration_utils.rewrite_logs."""
    if key.startswith("eval_"):
        return "eval/" + key[5:]
    if key.startswith("test_"):
        return "test/" + key[5:]
    return "train/" + key


def check_records(path):
    """The TFRecord framing, checked with tensorboard's own CRC-32C: returns the Events."""
    with open(path, "rb") as f:
        data = f.read()
    events, i = [], 0
    while i < len(data):
        (n,) = struct.unpack("<Q", data[i:i + 8])
        assert struct.unpack("<I", data[i + 8:i + 12])[0] == masked_crc32c(data[i:i + 8]), f"{path}: length CRC"
        record = data[i + 12:i + 12 + n]
        assert struct.unpack("<I", data[i + 12 + n:i + 16 + n])[0] == masked_crc32c(record), f"{path}: data CRC"
        events.append(event_pb2.Event.FromString(record))
        i += 16 + n
    return events


class Reporting(unittest.TestCase):
    def setUp(self):
        self.tmp = TempDir().__enter__()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def train(self, report, *extra, env=None, name="run"):
        recipe = write(os.path.join(self.tmp, name + ".lua"), RECIPE.replace("REPORT", report))
        out = os.path.join(self.tmp, name)
        p = subprocess.run([BINARY, recipe, "--output_dir", out, *extra], capture_output=True, text=True, timeout=300,
                           env={**os.environ, **(env or {})})
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "trainer_state.json")) as f:
            history = json.load(f)["log_history"]
        # trainer_state.json is written when training ends; the final evaluation logs after it.
        if os.path.exists(os.path.join(out, "eval_results.json")):
            with open(os.path.join(out, "eval_results.json")) as f:
                history.append({**json.load(f), "step": history[-1]["step"]})
        return out, history, p

    def test_tensorboard_holds_every_logged_number_under_hf_tags(self):
        out, history, p = self.train('"tensorboard"')
        runs = glob.glob(os.path.join(out, "runs", "*"))
        self.assertEqual(len(runs), 1, runs)
        # HF's default_logdir: runs/<Mon DD_HH-MM-SS>_<host>
        self.assertRegex(os.path.basename(runs[0]), r"^[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_" + re.escape(socket.gethostname()) + "$")
        files = glob.glob(os.path.join(runs[0], "events.out.tfevents.*"))
        self.assertTrue(files)
        for f in files:
            events = check_records(f)
            self.assertEqual(events[0].file_version, "brain.Event:2")

        acc = EventAccumulator(runs[0], size_guidance={"scalars": 0, "tensors": 0})
        acc.Reload()
        got = sorted((tag, s.step, s.value) for tag in acc.Tags()["scalars"] for s in acc.Scalars(tag))
        want = sorted((hf_tag(k), e["step"], float(np.float32(v))) for e in history for k, v in e.items()
                      if k != "step" and isinstance(v, (int, float)) and not isinstance(v, bool))
        self.assertEqual([(t, s) for t, s, _ in got], [(t, s) for t, s, _ in want])
        for (tag, step, a), (_, _, b) in zip(got, want):
            self.assertTrue(a == b or (math.isnan(a) and math.isnan(b)), (tag, step, a, b))
        for tag in ("train/loss", "train/learning_rate", "train/grad_norm", "eval/loss", "train/total_flos"):
            self.assertIn(tag, acc.Tags()["scalars"])

        # The arguments as text (HF's add_text("args", ...)) and as hparams.
        with open(os.path.join(out, "training_args.json")) as f:
            args = json.load(f)
        text = acc.Tensors("args/text_summary")[0].tensor_proto.string_val[0].decode()
        self.assertEqual(json.loads(text), args)
        plugin = {tag: plugin_data_pb2.HParamsPluginData.FromString(c) for tag, c in acc.PluginTagToContent("hparams").items()}
        self.assertEqual(set(plugin), {"_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info"})
        hp = plugin["_hparams_/session_start_info"].session_start_info.hparams
        self.assertAlmostEqual(hp["learning_rate"].number_value, 0.01)
        self.assertEqual(hp["lr_scheduler_type"].string_value, args["lr_scheduler_type"])
        self.assertEqual(hp["eval_strategy"].string_value, "steps")
        names = {i.name for i in plugin["_hparams_/experiment"].experiment.hparam_infos}
        self.assertEqual(names, set(args))
        self.assertEqual(plugin["_hparams_/session_end_info"].session_end_info.status, 1)  # STATUS_SUCCESS
        self.assertIn("TensorBoard events: " + runs[0], p.stdout)

    def test_logging_dir_and_the_environment_choose_the_folder(self):
        tb = os.path.join(self.tmp, "tb_arg")
        out, _, p = self.train('"tensorboard"', "--logging_dir", tb, name="arg")
        self.assertTrue(glob.glob(os.path.join(tb, "events.out.tfevents.*")))
        self.assertFalse(os.path.exists(os.path.join(out, "runs")))
        self.assertIn("logging_dir is deprecated", p.stdout + p.stderr)
        env_dir = os.path.join(self.tmp, "tb_env")
        out, _, _ = self.train('"tensorboard"', env={"TENSORBOARD_LOGGING_DIR": env_dir}, name="env")
        self.assertTrue(glob.glob(os.path.join(env_dir, "events.out.tfevents.*")))
        self.assertFalse(os.path.exists(os.path.join(out, "runs")))

    def test_jsonl_has_one_line_per_log_event(self):
        out, history, _ = self.train('"jsonl"')
        with open(os.path.join(out, "log_history.jsonl")) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual(lines, history)
        self.assertFalse(os.path.exists(os.path.join(out, "runs")))

    def test_all_means_both_and_none_means_neither(self):
        out, history, _ = self.train('"all"', name="all")
        self.assertTrue(glob.glob(os.path.join(out, "runs", "*", "events.out.tfevents.*")))
        self.assertTrue(os.path.exists(os.path.join(out, "log_history.jsonl")))
        out, _, _ = self.train('{"none"}', name="none")
        self.assertFalse(os.path.exists(os.path.join(out, "runs")))
        self.assertFalse(os.path.exists(os.path.join(out, "log_history.jsonl")))
        out, _, _ = self.train('{"jsonl", "tensorboard"}', name="list")
        self.assertTrue(glob.glob(os.path.join(out, "runs", "*", "events.out.tfevents.*")))
        self.assertTrue(os.path.exists(os.path.join(out, "log_history.jsonl")))

    def test_only_the_main_process_writes(self):
        recipe = write(os.path.join(self.tmp, "dist.lua"), RECIPE.replace("REPORT", '"all"'))
        out = os.path.join(self.tmp, "dist")
        p = subprocess.run([MPIEXEC, "-n", "2", BINARY, recipe, "--output_dir", out], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        files = glob.glob(os.path.join(out, "runs", "*", "events.out.tfevents.*"))
        pids = {os.path.basename(f).split(".")[-2] for f in files}
        self.assertEqual(len(pids), 1, files)  # one process wrote (training and the final evaluation)
        with open(os.path.join(out, "trainer_state.json")) as f:
            history = json.load(f)["log_history"]
        with open(os.path.join(out, "log_history.jsonl")) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual(lines[:len(history)], history)  # then the final evaluation's line
        self.assertEqual(len(lines), len(history) + 1)

    def test_unknown_integrations_are_refused(self):
        recipe = write(os.path.join(self.tmp, "bad.lua"), RECIPE.replace("REPORT", '"wandb"'))
        code, _, err = run(recipe, "--output_dir", os.path.join(self.tmp, "bad"))
        self.assertEqual(code, 2)
        self.assertIn("args.report_to", err)
        self.assertIn('"wandb" is not available', err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)


if __name__ == "__main__":
    unittest.main()
