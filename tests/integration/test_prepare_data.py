"""runner prepare-data: a corpus (.txt documents, .jsonl lines, Parquet and Arrow rows) tokenized
into a nanoGPT-style token file that numpy's memmap reads as nanoGPT does, holding exactly the
`tokenizers` package's ids with the end-of-text token after each document, the same file for
any --num_proc; the JSON header beside it; a recipe trains from it with data.token_bin (dtype
from the header); bad input is one line and exit 2. Exit 77 (skipped) without the tokenizers
package (or, for the Parquet/Arrow case, pyarrow and datasets)."""
import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, run, write  # noqa: E402

try:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
except ImportError as e:
    print(f"SKIP: tokenizers not installed ({e}); scripts/setup installs it")
    sys.exit(77)


def train_tokenizer(folder, vocab_size):
    with open(os.path.join(SOURCE, "recipes/lib/shakespeare.txt")) as f:
        text = f.read()[:60000]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([text], trainer)
    path = os.path.join(folder, "tokenizer.json")
    tok.save(path)
    write(os.path.join(folder, "tokenizer_config.json"), json.dumps({"eos_token": "<|endoftext|>"}))
    return tok, path


DOCS = ["First Citizen:\nBefore we proceed any further, hear me speak.\n",
        "Ünïcödé — 日本語 🙂 and   spaces\ttabs\n",
        "short"]


class PrepareData(unittest.TestCase):
    def test_token_file_header_and_training_from_it(self):
        with TempDir() as d:
            tok, tok_path = train_tokenizer(d, 400)
            write(os.path.join(d, "a.txt"), DOCS[0])
            write(os.path.join(d, "b.jsonl"), json.dumps({"text": DOCS[1]}) + "\n\n" + json.dumps({"text": DOCS[2], "id": 3}) + "\n")
            out = os.path.join(d, "train.bin")
            code, _, err = run("prepare-data", "--tokenizer", tok_path, "--input", os.path.join(d, "a.txt"),
                               "--input", os.path.join(d, "b.jsonl"), "--output", out)
            self.assertEqual(code, 0, err)
            eos = tok.token_to_id("<|endoftext|>")
            expected = []
            for doc in DOCS:
                expected += tok.encode(doc, add_special_tokens=False).ids + [eos]
            tokens = np.memmap(out, dtype=np.uint16, mode="r")  # nanoGPT's reader
            self.assertEqual(tokens.tolist(), expected)
            with open(out + ".json") as f:
                header = json.load(f)
            self.assertEqual(header["dtype"], "uint16")
            self.assertEqual(header["num_tokens"], len(expected))
            self.assertEqual(header["num_documents"], 3)
            self.assertEqual(header["eos_token_id"], eos)
            self.assertEqual(header["vocab_size"], tok.get_vocab_size())
            self.assertFalse(os.path.exists(out + ".tmp-prepare"))

            # uint32 on request; the header gives data.token_bin its dtype.
            out32 = os.path.join(d, "train32.bin")
            code, _, err = run("prepare-data", "--tokenizer", tok_path, "--input", os.path.join(d, "a.txt"),
                               "--output", out32, "--dtype", "uint32", "--no_eos")
            self.assertEqual(code, 0, err)
            self.assertEqual(np.fromfile(out32, dtype=np.uint32).tolist(), tok.encode(DOCS[0]).ids)

            recipe = write(os.path.join(d, "r.lua"), """local data, models = require "runner.data", require "runner.models"
return {
  args = { output_dir = "out", max_steps = 2, per_device_train_batch_size = 2, report_to = "none" },
  datasets = { train = data.token_bin{ path = "train32.bin", block_size = 8 } },
  model = models.gpt{ vocab_size = 400, block_size = 8, n_layer = 1, n_head = 2, n_embd = 16 },
}
""")
            code, _, err = run(recipe, cwd=d)
            self.assertEqual(code, 0, err[-2000:])

            # A truncated token file no longer matches its header.
            with open(out32, "r+b") as f:
                f.truncate(8)
            code, _, err = run("check", recipe, cwd=d)
            self.assertEqual(code, 2, err)
            self.assertIn("its header says", err)

    def test_bad_input_is_one_line_and_keeps_the_old_file(self):
        with TempDir() as d:
            tok, tok_path = train_tokenizer(d, 300)
            out = os.path.join(d, "train.bin")
            write(out, "old")
            write(os.path.join(d, "bad.jsonl"), json.dumps({"text": "fine"}) + "\n" + json.dumps({"body": "x"}) + "\n")
            code, _, err = run("prepare-data", "--tokenizer", tok_path, "--input", os.path.join(d, "bad.jsonl"), "--output", out)
            self.assertEqual(code, 2, err)
            self.assertIn("bad.jsonl:2", err)
            self.assertIn('no string field "text"', err)
            with open(out) as f:
                self.assertEqual(f.read(), "old")
            self.assertFalse(os.path.exists(out + ".tmp-prepare"))
            code, _, err = run("prepare-data", "--tokenizer", tok_path, "--input", os.path.join(d, "missing.txt"), "--output", out)
            self.assertEqual(code, 2, err)
            self.assertIn("missing.txt", err)
            code, _, err = run("prepare-data", "--tokenizr", tok_path)
            self.assertEqual(code, 2, err)
            self.assertIn("did you mean 'tokenizer'", err)

    def test_parquet_and_arrow_rows_on_several_threads_give_the_same_file(self):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
            from datasets import Dataset
            from datasets.utils.logging import disable_progress_bar
            disable_progress_bar()
        except ImportError as e:
            self.skipTest(f"pyarrow/datasets not installed ({e})")
        with TempDir() as d:
            tok, tok_path = train_tokenizer(d, 500)
            with open(os.path.join(SOURCE, "recipes/lib/shakespeare.txt")) as f:
                lines = [line for line in f.read().splitlines() if line.strip()]
            # More rows than two batches hold (4096 documents each), so several threads run at once.
            parquet_docs = (lines * 2)[:9000]
            arrow_docs = [l + " \u00e9\U0001F642" for l in lines[:3000]]
            pq.write_table(pa.table({"id": list(range(len(parquet_docs))), "content": parquet_docs}),
                           os.path.join(d, "train-00000.parquet"), row_group_size=700)
            Dataset.from_dict({"content": arrow_docs}).save_to_disk(os.path.join(d, "saved"))
            arrow_file = [os.path.join(d, "saved", n) for n in os.listdir(os.path.join(d, "saved")) if n.endswith(".arrow")]
            self.assertEqual(len(arrow_file), 1)
            eos = tok.token_to_id("<|endoftext|>")
            expected = []
            for enc in tok.encode_batch(parquet_docs + arrow_docs, add_special_tokens=False):
                expected += enc.ids + [eos]
            outputs = []
            for num_proc in ["1", "3"]:
                out = os.path.join(d, f"train{num_proc}.bin")
                code, _, err = run("prepare-data", "--tokenizer", tok_path, "--input", os.path.join(d, "train-00000.parquet"),
                                   "--input", arrow_file[0], "--text_field", "content", "--num_proc", num_proc, "--output", out)
                self.assertEqual(code, 0, err)
                tokens = np.memmap(out, dtype=np.uint16, mode="r").tolist()
                first_difference = next((i for i, (a, b) in enumerate(zip(tokens, expected)) if a != b), None)
                self.assertEqual((len(tokens), first_difference), (len(expected), None), f"--num_proc {num_proc}")
                with open(out + ".json") as f:
                    self.assertEqual(json.load(f)["num_documents"], len(parquet_docs) + len(arrow_docs))
                with open(out, "rb") as f:
                    outputs.append(f.read())
            self.assertEqual(outputs[0], outputs[1])

            # A column that is not there names the file, the column and the option; the old file stays.
            out = os.path.join(d, "train1.bin")
            code, _, err = run("prepare-data", "--tokenizer", tok_path, "--input", os.path.join(d, "train-00000.parquet"),
                               "--output", out)
            self.assertEqual(code, 2, err)
            self.assertIn("train-00000.parquet", err)
            self.assertIn("no column 'text'", err)
            self.assertIn("--text_field", err)
            self.assertEqual(len([l for l in err.splitlines() if l.strip()]), 1, err)
            with open(out, "rb") as f:
                self.assertEqual(f.read(), outputs[0])
            code, _, err = run("prepare-data", "--tokenizer", tok_path, "--input", arrow_file[0], "--output", out,
                               "--num_proc", "0")
            self.assertEqual(code, 2, err)
            self.assertIn("--num_proc must be a positive whole number", err)


if __name__ == "__main__":
    unittest.main()
