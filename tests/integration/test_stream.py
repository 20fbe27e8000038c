"""data.stream: training from shards in streaming mode resumes exactly. A run resumed from any
of its checkpoints ends with weights bit-identical to the uninterrupted run's, in one process
(with and without dataloader workers), under `mpiexec -n 2` with workers, from Parquet and from
token files (more Parquet and Arrow cases: test_arrow_data.py, StreamShards); a
resume reads no record before the saved position (train_stream_records_skipped is 0 for text,
and the later the checkpoint, the fewer records the resumed run reads: what resuming costs
does not grow with how far the stream had gone). max_steps is required; a checkpoint of another
split of the stream, a missing shard, a missing key and a stream given as eval data are one
line and exit 2, and so are ranks that build different streams."""
import filecmp
import json
import os
import random
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, SOURCE, TempDir, run, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

RECIPE = """
local data, models = require "runner.data", require "runner.models"
local s = data.stream{ source = %(source)s, column = "text", buffer_size = 40, seed = 5, block_size = 17, eos_token_id = 10 }
torch.manual_seed(0)
return {
  args = { max_steps = 8, per_device_train_batch_size = 3, learning_rate = 3e-3, logging_steps = 2,
           save_strategy = "steps", save_steps = 2, report_to = "none", seed = 1 },
  datasets = { train = s },
  model = models.gpt{ vocab_size = s:vocab_size(), block_size = 17, n_layer = 1, n_head = 2, n_embd = 16, dropout = 0.1 },
}
"""


def make_shards(folder):
    rng = random.Random(0)
    for s in range(4):
        lines = [f"shard {s} line {i} " + "".join(rng.choice("abcdefgh ") for _ in range(rng.randint(3, 50))) for i in range(150)]
        write(os.path.join(folder, f"part-{s}.txt"), "\n".join(lines) + "\n")
    return os.path.join(folder, "part-*.txt")


def launch(n, *args):
    cmd = [BINARY, *args] if n == 1 else [MPIEXEC, "-n", str(n), BINARY, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def metrics(out):
    with open(os.path.join(out, "train_results.json")) as f:
        return json.load(f)


class Stream(unittest.TestCase):
    def train_and_resume(self, tmp, recipe, n, resume_steps, *extra):
        """Runs 8 steps uninterrupted, then resumes a copy of each checkpoint in resume_steps;
        asserts identical final weights and returns the resumed runs' train metrics."""
        full = os.path.join(tmp, f"full{n}")
        code, _, err = launch(n, recipe, "--output_dir", full, *extra)
        self.assertEqual(code, 0, err)
        resumed = {}
        for step in resume_steps:
            out = os.path.join(tmp, f"resume{n}-{step}")
            shutil.copytree(os.path.join(full, f"checkpoint-{step}"), os.path.join(out, f"checkpoint-{step}"))
            code, _, err = launch(n, recipe, "--output_dir", out, "--resume_from_checkpoint", os.path.join(out, f"checkpoint-{step}"), *extra)
            self.assertEqual(code, 0, err)
            self.assertTrue(filecmp.cmp(os.path.join(full, "model.safetensors"), os.path.join(out, "model.safetensors"), shallow=False),
                            f"resumed from checkpoint-{step}: weights differ from the uninterrupted run")
            resumed[step] = metrics(out)
        return metrics(full), resumed

    def test_resume_one_process(self):
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE % {"source": json.dumps(make_shards(tmp))})
            full, resumed = self.train_and_resume(tmp, recipe, 1, [2, 6])
            for step, m in resumed.items():
                self.assertEqual(m["train_stream_records_skipped"], 0, step)
            # What a resume reads is what its remaining steps need: less from a later checkpoint.
            self.assertLess(resumed[6]["train_stream_records_read"], resumed[2]["train_stream_records_read"])
            self.assertLess(resumed[2]["train_stream_records_read"], full["train_stream_records_read"])
            with open(os.path.join(tmp, "full1", "checkpoint-4", "stream_state.json")) as f:
                state = json.load(f)
            self.assertEqual(state["world"], 1)
            self.assertEqual(state["ranks"][0]["batches"], 4)
            self.assertIn("buffer", state["ranks"][0]["states"][0])

    def test_resume_with_workers(self):
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE % {"source": json.dumps(make_shards(tmp))})
            self.train_and_resume(tmp, recipe, 1, [4], "--dataloader_num_workers", "2")
            # Another split of the stream (a different number of readers) is refused.
            out = os.path.join(tmp, "other")
            shutil.copytree(os.path.join(tmp, "full1", "checkpoint-4"), os.path.join(out, "checkpoint-4"))
            code, _, err = run(recipe, "--output_dir", out, "--resume_from_checkpoint", os.path.join(out, "checkpoint-4"))
            self.assertEqual(code, 2, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn("dataloader_num_workers", err)

    def test_resume_two_ranks_with_workers(self):
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE % {"source": json.dumps(make_shards(tmp))})
            self.train_and_resume(tmp, recipe, 2, [4], "--dataloader_num_workers", "2")
            # A 2-rank stream does not resume on 1 rank.
            out = os.path.join(tmp, "one")
            shutil.copytree(os.path.join(tmp, "full2", "checkpoint-4"), os.path.join(out, "checkpoint-4"))
            code, _, err = run(recipe, "--output_dir", out, "--resume_from_checkpoint", os.path.join(out, "checkpoint-4"), "--dataloader_num_workers", "2")
            self.assertEqual(code, 2, err)
            self.assertIn("same world size", err)

    def test_ranks_must_build_the_same_stream(self):
        with TempDir() as tmp:
            text = RECIPE % {"source": json.dumps(make_shards(tmp))}
            text = text.replace("seed = 5,", 'seed = (require "runner.dist").rank,')  # a seed that differs by rank
            recipe = write(os.path.join(tmp, "r.lua"), text)
            code, _, err = launch(2, recipe, "--output_dir", os.path.join(tmp, "out"))
            self.assertEqual(code, 2, err)
            self.assertIn("datasets.train (a data.stream) differs between ranks", err)

    def test_resume_parquet(self):
        parquet = os.path.join(SOURCE, "recipes", "lib", "shakespeare.parquet")
        with TempDir() as tmp:
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE % {"source": json.dumps(parquet)})
            code, _, err = run("check", recipe, "--output_dir", os.path.join(tmp, "c"))
            if code != 0 and "without Arrow" in err:
                self.skipTest("runner built with RUNNER_WITH_ARROW=OFF")
            self.train_and_resume(tmp, recipe, 1, [4], "--dataloader_num_workers", "2")

    def test_resume_token_files(self):
        with TempDir() as tmp:
            rng = random.Random(1)
            for k in range(3):  # nanoGPT's uint16 ids, with the header runner prepare-data writes
                ids = [rng.randrange(300) for _ in range(700 + 50 * k)]
                with open(os.path.join(tmp, f"tok-{k}.bin"), "wb") as f:
                    f.write(b"".join(i.to_bytes(2, "little") for i in ids))
                write(os.path.join(tmp, f"tok-{k}.bin.json"), json.dumps({"dtype": "uint16", "num_tokens": len(ids), "vocab_size": 300}))
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE % {"source": json.dumps(os.path.join(tmp, "tok-*.bin"))})
            _, resumed = self.train_and_resume(tmp, recipe, 1, [4], "--dataloader_num_workers", "2")
            self.assertEqual(resumed[4]["train_stream_records_skipped"], 0)

    def test_a_folder_streams_only_its_data_files(self):
        # A hub snapshot holds a dataset card and .gitattributes beside its shards; prepare-data's
        # folder holds each token file's JSON header: none of them is data (HF reads only the
        # files of a data format). Before, they were streamed as text or tokens without a word.
        with TempDir() as tmp:
            hub = os.path.join(tmp, "hub")
            make_shards(hub)
            write(os.path.join(hub, "README.md"), "---\nlicense: mit\n---\n# dataset card\n")
            write(os.path.join(hub, ".gitattributes"), "*.txt filter=lfs\n")
            tok = os.path.join(tmp, "tok")
            for k in range(2):
                os.makedirs(tok, exist_ok=True)
                with open(os.path.join(tok, f"tok-{k}.bin"), "wb") as f:
                    f.write(bytes(2 * 600))
                write(os.path.join(tok, f"tok-{k}.bin.json"), json.dumps({"dtype": "uint16", "num_tokens": 600, "vocab_size": 300}))
            for folder, shards in ((hub, 4), (tok, 2)):
                with self.subTest(folder=os.path.basename(folder)):
                    recipe = write(os.path.join(tmp, "folder.lua"), (RECIPE % {"source": json.dumps(folder)}).replace(
                        "torch.manual_seed(0)", "print(\"SHARDS \" .. #s:shards() .. \" \" .. s:shards()[1])\ntorch.manual_seed(0)"))
                    code, out, err = run(recipe, "--output_dir", os.path.join(tmp, "out"), "--max_steps", "2")
                    self.assertEqual(code, 0, err)
                    self.assertIn(f"SHARDS {shards} ", out)
                    self.assertNotIn(".json", out.split("SHARDS", 1)[1].splitlines()[0])

    def test_errors(self):
        with TempDir() as tmp:
            shards = make_shards(tmp)
            recipe = write(os.path.join(tmp, "r.lua"), RECIPE % {"source": json.dumps(shards)})
            cases = [
                ((recipe, "--max_steps", "-1"), "max_steps must be specified"),
                ((write(os.path.join(tmp, "missing.lua"), RECIPE % {"source": json.dumps(os.path.join(tmp, "nope.txt"))}),), "nope.txt"),
                ((recipe, "--train_sampling_strategy", "group_by_length"), "group_by_length"),
            ]
            write(os.path.join(tmp, "rows.jsonl"), '{"content": "a"}\n')
            cases.append(((write(os.path.join(tmp, "key.lua"), RECIPE % {"source": json.dumps(os.path.join(tmp, "rows.jsonl"))}),), "'text'"))
            mixed = os.path.join(tmp, "mixed")
            write(os.path.join(mixed, "a.txt"), "some text\n")
            write(os.path.join(mixed, "b.jsonl"), '{"text": "a"}\n')
            cases.append(((write(os.path.join(tmp, "mixed.lua"), RECIPE % {"source": json.dumps(mixed)}),), "several formats"))
            with open(os.path.join(tmp, "c4.json.gz"), "wb") as f:
                f.write(b"\x1f\x8b\x08\x00")
            cases.append(((write(os.path.join(tmp, "gz.lua"), RECIPE % {"source": json.dumps(os.path.join(tmp, "c4.json.gz"))}),),
                          "compressed shards are not read"))
            as_eval = RECIPE.replace("datasets = { train = s }", "datasets = { train = s, eval = s }")
            cases.append(((write(os.path.join(tmp, "eval.lua"), as_eval % {"source": json.dumps(shards)}),), "datasets.eval"))
            for args, needle in cases:
                with self.subTest(needle=needle):
                    code, _, err = run(*args, "--output_dir", os.path.join(tmp, "out"))
                    self.assertEqual(code, 2, err)
                    self.assertEqual(len(err.strip().splitlines()), 1, err)
                    self.assertIn(needle, err)
            self.assertIn("rows.jsonl", run(os.path.join(tmp, "key.lua"), "--output_dir", os.path.join(tmp, "out"))[2])


if __name__ == "__main__":
    unittest.main()
