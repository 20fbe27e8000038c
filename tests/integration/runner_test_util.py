"""Helpers for the integration tests: run the binary, read safetensors with numpy only."""
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import unittest

import numpy as np

BINARY = os.environ["RUNNER_BINARY"]
SOURCE = os.environ["RUNNER_SOURCE_DIR"]

DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32, "U8": np.uint8, "BOOL": np.bool_,
          "F16": np.float16}


def run(*args, cwd=None, timeout=300, env=None):
    """Runs runner (`env`: variables added to this process's environment); returns (exit code, stdout, stderr)."""
    p = subprocess.run([BINARY, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, **env} if env else None)
    return p.returncode, p.stdout, p.stderr


def read_safetensors(path):
    """An independent safetensors reader: the format spec, struct and numpy, nothing else."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    data = blob[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        arr = np.frombuffer(data[begin:end], dtype=DTYPES[info["dtype"]]).reshape(info["shape"])
        out[name] = arr
    return out


class TempDir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="runner_it_")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


class RecipeTest(unittest.TestCase):
    """A class's tests share one temporary folder, holding the class's RECIPE (if it has one)
    as r.lua (cls.recipe); the folder goes when the class is done."""
    RECIPE = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir().__enter__()
        if cls.RECIPE:
            cls.recipe = write(os.path.join(cls.tmp, "r.lua"), cls.RECIPE)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def write_jsonl(path, rows):
    return write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def tagged(out, tag):
    """The rest of each line of `out` that holds `tag` followed by a space (a recipe's print("TAG ..."))."""
    return [l.split(tag + " ", 1)[1] for l in out.splitlines() if (tag + " ") in l]


def check_one_line_errors(test, folder, cases, preamble=""):
    """Each `expr` of `cases` (expr -> message), evaluated by `runner check` in a recipe after
    the data and models requires and `preamble`, must fail with exit 2 and one error line
    holding `message`."""
    for expr, message in cases.items():
        with test.subTest(expr=expr):
            script = ('local data, models = require "runner.data", require "runner.models"\n' + preamble +
                      f"local x = {expr}\nreturn {{ datasets = {{ train = data.tensors{{ x = torch.zeros(2, 1) }} }}, model = nn.Linear(1, 1) }}\n")
            code, out, err = run("check", write(os.path.join(folder, "bad.lua"), script), cwd=folder)
            test.assertEqual(code, 2, err[-2000:])
            lines = [l for l in err.strip().splitlines() if "error" in l]
            test.assertEqual(len(lines), 1, err)
            test.assertIn(message, lines[0])


def rank_pid(out, rank, tries=50):
    """The pid of rank `rank` of a job writing to `out`: hydra gives rank R PMI_RANK=R, and
    its command line names the folder (so does a `runner launch`, which has no PMI_RANK).
    Looks `tries` times, 0.1 s apart, since a loaded machine may be slow to start it; None if
    it never shows."""
    for _ in range(tries):
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = f.read().split(b"\0")
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            if out.encode() in cmd and f"PMI_RANK={rank}".encode() in env and b"launch" not in cmd.split(b"\0"):
                return int(pid)
        time.sleep(0.1)
    return None
