"""Every code block in README.md and docs/*.md runs as written (issue: snippets that were Lua
syntax errors or passed an option the recipe does not have).

- ```lua blocks with a top-level `return`: complete recipes, trained as written (only
  output_dir is redirected into a temporary folder).
- other ```lua blocks: fragments, run by `runner check` after the usual requires (data,
  models, recipe, callbacks, dist) and followed by a minimal recipe; a fragment that names
  something undefined or is not valid Lua fails.
- ```python blocks: run with the test's Python (PyTorch installed).
- ```sh blocks: every runner command line is checked with `runner check` (mpiexec, srun and
  `runner launch` with its options stripped: the ranks would all parse the same line); every
  scripts/... command must exist and be executable.
Untagged blocks are sample output, not code. The files snippets read (input.txt, data.txt,
corpus.txt, train.jsonl, sft.jsonl, pairs.jsonl, train-*.parquet, sft.parquet, tokenizer.json, base.lua) are provided in the folder they run in.
"""
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, SOURCE, TempDir, run, write  # noqa: E402

PREAMBLE = ('local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"\n'
            'local callbacks, dist = require "runner.callbacks", require "runner.dist"\n')
MINIMAL = ('\nreturn { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(4, 1), labels = torch.zeros(4, 1) } },\n'
           '         model = nn.Linear(1, 1) }\n')
BASE_RECIPE = """local data = require "runner.data"
local x = torch.rand(64, 1)
return {
  args = { output_dir = "runs/base", num_train_epochs = 1, learning_rate = 0.1 },
  datasets = { train = data.tensors{ x = x, labels = x * 3 } },
  model = nn.Linear(1, 1),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
}
"""
PYTHON = os.environ.get("RUNNER_PYTHON", sys.executable)


def code_blocks(path):
    """(line, language, text) of each fenced block; list-indented fences are dedented."""
    out, lang, start, lines = [], None, 0, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fence = re.match(r"^(\s*)```(\S*)\s*$", line)
            if fence and lang is None:
                lang, start, lines = fence.group(2), n, []
            elif fence:
                out.append((start, lang, textwrap.dedent("".join(lines))))
                lang = None
            elif lang is not None:
                lines.append(line)
    return out


def doc_files():
    files = [os.path.join(SOURCE, "README.md")]
    docs = os.path.join(SOURCE, "docs")
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return files


def make_fixtures(folder):
    with open(os.path.join(SOURCE, "recipes/lib/sample_text.txt")) as f:
        text = f.read()
    write(os.path.join(folder, "input.txt"), text)
    write(os.path.join(folder, "data.txt"), text)
    write(os.path.join(folder, "base.lua"), BASE_RECIPE)
    write(os.path.join(folder, "corpus.txt"), text)
    write(os.path.join(folder, "tokenizer.json"), json.dumps(byte_level_tokenizer()))
    write(os.path.join(folder, "sft.jsonl"), json.dumps({"prompt": "Name a colour.", "response": "Blue."}) + "\n" +
          json.dumps({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}]}) + "\n")
    write(os.path.join(folder, "pairs.jsonl"), json.dumps({"prompt": "Name a colour.", "chosen": " Blue.", "rejected": " Seven."}) + "\n")
    # Parquet files (pyarrow is a build dependency: its wheel ships the libarrow runner links)
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"text": ["Hello there.", "Blue."], "label": [1, 0]}), os.path.join(folder, "train-00000-of-00001.parquet"))
    pq.write_table(pa.table({"messages": [[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}]]}),
                   os.path.join(folder, "sft.parquet"))
    rng = random.Random(0)
    with open(os.path.join(folder, "train.jsonl"), "w") as f:
        for _ in range(24):
            f.write(json.dumps({"input_ids": [rng.randrange(50257) for _ in range(rng.randrange(5, 40))]}) + "\n")


# `runner generate` lines: recipe.lua (a tiny Llama over the fixture tokenizer's 257 ids) and
# out/, the folder one training step of it writes, with the tokenizer beside the weights.
GENERATE_RECIPE = """local data, models = require "runner.data", require "runner.models"
local ids = torch.randint(0, 257, { 8, 12 })
return {
  args = { output_dir = "out", max_steps = 1, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.llama{ vocab_size = 257, hidden_size = 16, intermediate_size = 32, num_hidden_layers = 1,
                        num_attention_heads = 2, max_position_embeddings = 128 },
}
"""


# LoRA lines: adapters/, the adapters one step of LoRA training on out/ writes.
ADAPTER_RECIPE = """local data, models = require "runner.data", require "runner.models"
local ids = torch.randint(0, 257, { 8, 12 })
return {
  args = { output_dir = "adapters", max_steps = 1, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.lora(models.from_pretrained("out"), { r = 2 }),
}
"""


def make_generate_fixtures(folder):
    """out/ (a model folder), SmolLM2-135M-Instruct/ (the same, under the name the docs use for a
    real model) and adapters/ (LoRA adapters for out/)."""
    write(os.path.join(folder, "recipe.lua"), GENERATE_RECIPE)
    code, _, err = run(os.path.join(folder, "recipe.lua"), cwd=folder)
    assert code == 0, err[-2000:]
    shutil.copy(os.path.join(folder, "tokenizer.json"), os.path.join(folder, "out", "tokenizer.json"))
    shutil.copytree(os.path.join(folder, "out"), os.path.join(folder, "SmolLM2-135M-Instruct"))
    write(os.path.join(folder, "adapter.lua"), ADAPTER_RECIPE)
    code, _, err = run(os.path.join(folder, "adapter.lua"), cwd=folder)
    assert code == 0, err[-2000:]


def byte_level_tokenizer():
    """A minimal byte-level BPE tokenizer.json (GPT-2's byte alphabet, no merges)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars, extra = {}, 0
    for b in range(256):
        chars[b] = chr(b) if b in printable else chr(256 + extra)
        extra += b not in printable
    vocab = {chars[b]: b for b in range(256)}
    return {"version": "1.0", "added_tokens": [{"id": 256, "content": "<|begin_of_text|>", "special": True}],
            "normalizer": None, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
            "post_processor": None, "decoder": {"type": "ByteLevel"},
            "model": {"type": "BPE", "vocab": vocab, "merges": []}}


def runner_argv(line):
    """The runner arguments of a shell line that runs runner, else None."""
    words = shlex.split(line, comments=True)
    for i, w in enumerate(words):
        if re.match(r"[A-Za-z_]\w*=", w):
            continue  # VAR=value, e.g. RUNNER_BINARY=.gpu/bin/runner before a script: not a command
        if w == "runner" or w.endswith("/runner"):
            return words[i + 1:]
    return None


class DocsSnippets(unittest.TestCase):
    def setUp(self):
        self.blocks = [(os.path.relpath(p, SOURCE), n, lang, text) for p in doc_files() for n, lang, text in code_blocks(p)]

    def test_the_docs_have_code_to_check(self):
        langs = [lang for _, _, lang, _ in self.blocks]
        self.assertGreaterEqual(langs.count("lua"), 10)
        self.assertIn("sh", langs)
        self.assertIn("python", langs)

    def test_lua_blocks_run(self):
        for where, n, lang, text in self.blocks:
            if lang != "lua":
                continue
            with self.subTest(f"{where}:{n}"), TempDir() as tmp:
                make_fixtures(tmp)
                out = os.path.join(tmp, "out")
                if re.search(r"^return\b", text, re.M):
                    recipe = write(os.path.join(tmp, "snippet.lua"), text)
                    code, stdout, err = run(recipe, "--output_dir", out, cwd=tmp, timeout=600)
                    self.assertEqual(code, 0, f"{where}:{n} (a complete recipe) failed:\n{err[-3000:]}")
                    self.assertTrue(os.path.exists(os.path.join(out, "trainer_state.json")), f"{where}:{n} trained nothing")
                else:
                    recipe = write(os.path.join(tmp, "snippet.lua"), PREAMBLE + text + MINIMAL)
                    code, _, err = run("check", recipe, "--output_dir", out, cwd=tmp, timeout=600)
                    self.assertEqual(code, 0, f"{where}:{n} (a fragment) failed:\n{err[-3000:]}")

    def test_python_blocks_run(self):
        for where, n, lang, text in self.blocks:
            if lang != "python":
                continue
            with self.subTest(f"{where}:{n}"), TempDir() as tmp:
                script = write(os.path.join(tmp, "snippet.py"), text)  # a file: TorchScript reads the source
                p = subprocess.run([PYTHON, script], cwd=tmp, capture_output=True, text=True, timeout=600)
                self.assertEqual(p.returncode, 0, f"{where}:{n}:\n{p.stderr[-3000:]}")

    def test_test_files_named_in_scripts_and_docs_exist(self):
        # A comment or page that names a test file that is gone sends readers nowhere.
        named = 0
        for folder in ("scripts", "docs"):
            for root, _, files in os.walk(os.path.join(SOURCE, folder)):
                for name in files:
                    path = os.path.join(root, name)
                    with open(path, errors="replace") as f:
                        text = f.read()
                    for ref in set(re.findall(r"tests/[\w/]+\.(?:py|cpp|h)\b", text)):
                        named += 1
                        self.assertTrue(os.path.exists(os.path.join(SOURCE, ref)), f"{os.path.relpath(path, SOURCE)} names {ref}, which does not exist")
        self.assertGreater(named, 10)

    def test_shell_lines_name_real_commands(self):
        checked = 0
        for where, n, lang, text in self.blocks:
            if lang not in ("sh", "bash", "console"):
                continue
            for k, line in enumerate(text.splitlines()):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                at = f"{where}:{n + 1 + k}: {line}"
                argv = runner_argv(line)
                if argv is not None:
                    if argv and argv[0] == "launch":  # its options (-n N, -f FILE, ...) come before the recipe
                        self.assertTrue(argv[1].startswith("-"), at)
                        argv = argv[1:]
                        while argv and argv[0].startswith("-"):
                            argv = argv[1:] if "=" in argv[0] else argv[2:]
                    if argv and not argv[0].startswith("-") and argv[0] not in ("args", "check", "consolidate", "generate", "prepare-data",
                                                                                "merge-adapters"):
                        argv = ["check"] + argv
                    # recipes/... paths are the repository's; anything else is a fixture file
                    argv = [os.path.join(SOURCE, a) if a.startswith("recipes/") else a for a in argv]
                    with TempDir() as tmp:
                        make_fixtures(tmp)
                        if argv[:1] in (["generate"], ["merge-adapters"]) or any(a.startswith("SmolLM2") for a in argv):
                            make_generate_fixtures(tmp)
                        argv += ["--output_dir", os.path.join(tmp, "out")] if argv[:1] == ["check"] else []
                        code, _, err = run(*argv, cwd=tmp)
                    self.assertEqual(code, 0, f"{at}\n{err[-2000:]}")
                    checked += 1
                    continue
                # a project script or a build tool, after `cd dir &&` and VAR=value prefixes
                words = shlex.split(line, comments=True)
                while words and (re.match(r"^\w+=", words[0]) or words[0] == "cd"):
                    words = words[2:] if words[0] == "cd" else words[1:]
                    if words and words[0] == "&&":
                        words = words[1:]
                self.assertTrue(words, at)
                if words[0].startswith("scripts/"):
                    path = os.path.join(SOURCE, words[0])
                    self.assertTrue(os.access(path, os.X_OK), f"{at}: {words[0]} is not an executable script")
                else:
                    self.assertIsNotNone(shutil.which(words[0]), f"{at}: {words[0]} is not a command here")
                checked += 1
        self.assertGreater(checked, 5)


if __name__ == "__main__":
    unittest.main()
