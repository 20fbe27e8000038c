"""data.parquet, data.arrow and data.hf_dataset read the files `datasets` and `pyarrow` write
(save_to_disk of a Dataset and of a DatasetDict, to_parquet, Parquet with several row groups,
Arrow IPC files and streams), and every example equals what `datasets` gives for it: tensors
with the values and dtypes of its torch format, strings and structs as its Python rows (None
absent). Only the columns a recipe names are fields. map (tokenizing a text column with a
tokenizer.json, compared with `tokenizers`), filter, train_test_split (compared with datasets')
and data.sft over a messages column (compared with data.sft over the same rows as JSONL) work on
them. Bad files are one line naming the file, the row group or row, and the column; exit 2; a
sandboxed recipe reads none outside its folders.
Exit 77 (skipped) without pyarrow/datasets/tokenizers."""
import json
import os
import re
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, run, write  # noqa: E402

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from datasets import Dataset, DatasetDict, Value, load_dataset, load_from_disk
    from datasets.utils.logging import disable_progress_bar
    from tokenizers import Tokenizer
except ImportError as e:
    print(f"SKIP: pyarrow/datasets/tokenizers not installed ({e}); scripts/setup installs them")
    sys.exit(77)

disable_progress_bar()

ROWS = {
    "id": [0, 1, 2, 3, 4, 5, 6],
    "small": [-3, 0, 7, 2**20, -1, 5, 9],
    "score": [0.5, -1.25, 3.0, 1e-3, 2.5, 0.1, -7.75],
    "flag": [True, False, True, True, False, False, True],
    "text": ["Hello", "naïve café 🙂", "", 'line\nbreak "quoted" \\ tab\t', None, "a b c", "Über"],
    "input_ids": [[1, 2, 3], [], [40000], [5, 6], [7], [8, 9, 10, 11], [12]],
    "matrix": [[[1, 2], [3, 4]], [[5, 6]], [[7, 8], [9, 10], [11, 12]], [[0, 0]], [[1, 1]], [[2, 3]], [[4, 5]]],
    "tags": [["x", "y"], [], ["z"], ["x"], [], ["y"], ["é"]],
    "messages": [
        [{"role": "user", "content": "Say hi"}, {"role": "assistant", "content": "Hi!"}],
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Two?"}, {"role": "assistant", "content": "2"}],
        [{"role": "user", "content": "naïve?"}, {"role": "assistant", "content": "café 🙂"}],
        [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
        [{"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}],
        [{"role": "user", "content": "e"}, {"role": "assistant", "content": "f"}],
        [{"role": "user", "content": "g"}, {"role": "assistant", "content": "h"}],
    ],
}

# Prints each row of each named dataset as one JSON line: tensors as {dtype, value}, text as is.
DUMP = r"""local data = require "runner.data"
local function enc(v)
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v == math.floor(v) and math.abs(v) < 2^53 then return string.format("%%d", v) end
    return string.format("%%.17g", v)
  end
  if t == "string" then
    return '"' .. (v:gsub('[%%c"\\]', function(c) return string.format("\\u%%04x", c:byte()) end)) .. '"'
  end
  if t == "userdata" then return '{"dtype":"' .. tostring(v:dtype()) .. '","value":' .. enc(v:tolist()) .. '}' end
  if next(v) == nil or #v > 0 then
    local o = {}
    for i = 1, #v do o[i] = enc(v[i]) end
    return "[" .. table.concat(o, ",") .. "]"
  end
  local keys, o = {}, {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do o[#o + 1] = enc(k) .. ":" .. enc(v[k]) end
  return "{" .. table.concat(o, ",") .. "}"
end
local function dump(name, ds)
  print("FIELDS " .. name .. " " .. enc(ds:fields()))
  for i = 0, #ds - 1 do print("ROW " .. name .. " " .. enc(ds:get(i))) end
end
%s
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""


def dump(tmp, body):
    """Runs `runner check` on DUMP with `body`; returns {name: [rows]}, {name: fields}."""
    path = write(os.path.join(tmp, "dump.lua"), DUMP % body)
    code, _, err = run("check", path, cwd=tmp)
    if code != 0:
        raise AssertionError(err)
    rows, fields = {}, {}
    for m in re.finditer(r"ROW (\S+) (.*)$", err, re.M):
        rows.setdefault(m.group(1), []).append(json.loads(m.group(2)))
    for m in re.finditer(r"FIELDS (\S+) (.*)$", err, re.M):
        fields[m.group(1)] = json.loads(m.group(2))
    return rows, fields


def drop_none(v):
    if isinstance(v, dict):
        return {k: drop_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [drop_none(x) for x in v]
    return v


def expected(ds, columns=None):
    """What `datasets` gives for each row: its torch format for the columns it makes tensors,
    the Python value (None dropped) for the others."""
    torch_rows = ds.with_format("torch")
    out = []
    for i in range(len(ds)):
        t, plain = torch_rows[i], ds[i]
        row = {}
        for name in columns or ds.column_names:
            v = t[name]
            if hasattr(v, "dtype"):
                row[name] = {"dtype": str(v.dtype).replace("torch.", ""), "value": v.tolist()}
            elif plain[name] is not None:
                row[name] = drop_none(plain[name])
        out.append(row)
    return out


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def hf_dataset():
    ds = Dataset.from_dict(ROWS)
    return ds.cast_column("small", Value("int32"))


class ArrowData(unittest.TestCase):
    def assertRows(self, got, want):
        self.assertEqual(len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(g, w, f"row {i}")

    def test_save_to_disk_dataset_and_dataset_dict(self):
        ds = hf_dataset()
        with TempDir() as tmp:
            ds.save_to_disk(os.path.join(tmp, "one"), num_shards=2)  # two data-*.arrow streams
            DatasetDict({"train": ds, "test": ds.select([6, 2, 4])}).save_to_disk(os.path.join(tmp, "dict"))
            rows, fields = dump(tmp, """
dump("one", data.hf_dataset("one"))
local dd = data.hf_dataset{ path = "dict" }
dump("train", dd.train)
dump("test", dd.test)
dump("only_test", data.hf_dataset{ path = "dict", split = "test", columns = { "text", "input_ids" } })
""")
            one = load_from_disk(os.path.join(tmp, "one"))
            self.assertEqual(len(os.listdir(os.path.join(tmp, "one"))), 4)  # state.json, dataset_info.json, 2 shards
            self.assertRows(rows["one"], expected(one))
            dd = load_from_disk(os.path.join(tmp, "dict"))
            self.assertRows(rows["train"], expected(dd["train"]))
            self.assertRows(rows["test"], expected(dd["test"]))
            self.assertRows(rows["only_test"], expected(dd["test"], ["text", "input_ids"]))
            # tensors first (sorted, as an example's fields), then the text fields in file order
            self.assertEqual(fields["one"], ["flag", "id", "input_ids", "matrix", "score", "small", "text", "tags", "messages"])
            self.assertEqual(fields["only_test"], ["input_ids", "text"])

    def test_parquet_file_folder_glob_and_row_groups(self):
        ds = hf_dataset()
        with TempDir() as tmp:
            ds.to_parquet(os.path.join(tmp, "to_parquet.parquet"))
            table = ds.data.table
            pq.write_table(table, os.path.join(tmp, "groups.parquet"), row_group_size=3)  # 3 row groups
            self.assertEqual(pq.ParquetFile(os.path.join(tmp, "groups.parquet")).num_row_groups, 3)
            os.makedirs(os.path.join(tmp, "shards"))
            pq.write_table(table.slice(0, 4), os.path.join(tmp, "shards", "train-00000-of-00002.parquet"))
            pq.write_table(table.slice(4), os.path.join(tmp, "shards", "train-00001-of-00002.parquet"))
            rows, fields = dump(tmp, """
dump("file", data.parquet("to_parquet.parquet"))
dump("groups", data.parquet{ path = "groups.parquet" })
dump("folder", data.parquet{ path = "shards" })
dump("glob", data.parquet{ path = "shards/train-*.parquet", columns = { "score", "messages" }, dtypes = { score = "float64" } })
""")
            for name, files in [("file", "to_parquet.parquet"), ("groups", "groups.parquet"), ("folder", "shards/*.parquet")]:
                ref = load_dataset("parquet", data_files=os.path.join(tmp, files), split="train")
                self.assertRows(rows[name], expected(ref))
            ref = load_dataset("parquet", data_files=os.path.join(tmp, "shards/*.parquet"), split="train")
            want = expected(ref, ["score", "messages"])
            for w, score in zip(want, ROWS["score"]):
                w["score"] = {"dtype": "float64", "value": score}  # dtypes: the file's doubles as they are
            self.assertRows(rows["glob"], want)
            self.assertEqual(fields["glob"], ["score", "messages"])

    def test_arrow_ipc_file_and_stream(self):
        table = hf_dataset().data.table
        with TempDir() as tmp:
            with pa.ipc.new_file(os.path.join(tmp, "t.arrow"), table.schema) as w:
                for batch in table.to_batches(max_chunksize=2):
                    w.write_batch(batch)
            with pa.ipc.new_stream(os.path.join(tmp, "s.arrow"), table.schema) as w:
                w.write_table(table, max_chunksize=3)
            rows, _ = dump(tmp, """
dump("file", data.arrow("t.arrow"))
dump("stream", data.arrow{ path = "s.arrow", columns = { "id", "matrix", "tags" } })
""")
            ref = Dataset(pa.ipc.open_file(os.path.join(tmp, "t.arrow")).read_all())
            self.assertRows(rows["file"], expected(ref))
            ref = Dataset.from_file(os.path.join(tmp, "s.arrow"))  # datasets' own reader of its stream files
            self.assertRows(rows["stream"], expected(ref, ["id", "matrix", "tags"]))

    def test_dictionary_encoded_strings_read_as_their_values(self):
        # pandas categoricals and pyarrow's dictionary_encode keep the dictionary type in the
        # file's schema; datasets reads them as the strings.
        with TempDir() as tmp:
            table = pa.table({"label": [0, 1, 1], "kind": pa.array(["cat", "dog", "cat"]).dictionary_encode(),
                              "tags": pa.array([["a"], ["b", "a"], []], pa.list_(pa.dictionary(pa.int8(), pa.string())))})
            pq.write_table(table, os.path.join(tmp, "dict.parquet"))
            self.assertEqual(str(pq.read_schema(os.path.join(tmp, "dict.parquet")).field("kind").type),
                             "dictionary<values=string, indices=int32, ordered=0>")
            rows, fields = dump(tmp, 'dump("d", data.parquet("dict.parquet"))')
            ref = load_dataset("parquet", data_files=os.path.join(tmp, "dict.parquet"), split="train")
            self.assertRows(rows["d"], expected(ref))
            self.assertEqual([r["kind"] for r in rows["d"]], ["cat", "dog", "cat"])

    def test_transforms(self):
        ds = hf_dataset()
        tok_path = os.path.join(SOURCE, "recipes/lib/byte_tokenizer/tokenizer.json")
        with TempDir() as tmp:
            ds.save_to_disk(os.path.join(tmp, "one"))
            rows, _ = dump(tmp, f"""
local tok = data.tokenizer("{tok_path}")
local ds = data.hf_dataset("one")
dump("map", ds:map(function(ex, i) return {{ ids = tok:encode(ex.text or "", {{ add_special_tokens = false }}), n = #ex.messages }} end))
dump("filter", ds:filter(function(ex) return ex.text ~= nil and ex.text:find("a") ~= nil end))
local split = ds:train_test_split{{ test_size = 2, seed = 3 }}
dump("split_train", split.train)
dump("split_test", split.test)
split = ds:train_test_split{{ test_size = 2, shuffle = false }}
dump("ordered_train", split.train)
dump("ordered_test", split.test)
""")
            tok = Tokenizer.from_file(tok_path)
            hf = ds.map(lambda ex: {"ids": tok.encode(ex["text"] or "", add_special_tokens=False).ids, "n": len(ex["messages"])})
            # a mapped dataset keeps the tensor columns and drops the text ones (as remove_unused_columns would)
            tensors = ["flag", "id", "input_ids", "matrix", "score", "small"]
            want = expected(hf, tensors + ["ids", "n"])
            self.assertRows(rows["map"], want)
            self.assertRows(rows["filter"], expected(ds.filter(lambda ex: ex["text"] is not None and "a" in ex["text"])))
            # runner's seeded permutation is its own (not numpy's): the same sizes, each row intact, none lost
            by_id = {r["id"]["value"]: r for r in expected(ds)}
            self.assertEqual(len(rows["split_test"]), len(ds.train_test_split(test_size=2, seed=3)["test"]))
            for r in rows["split_train"] + rows["split_test"]:
                self.assertEqual(r, by_id[r["id"]["value"]])
            self.assertEqual(sorted(r["id"]["value"] for r in rows["split_train"] + rows["split_test"]), sorted(by_id))
            split = ds.train_test_split(test_size=2, shuffle=False)
            self.assertRows(rows["ordered_train"], expected(split["train"]))
            self.assertRows(rows["ordered_test"], expected(split["test"]))

    def test_sft_over_a_messages_column(self):
        ds = hf_dataset()
        tok = os.path.join(SOURCE, "recipes/lib/byte_tokenizer/tokenizer.json")
        with TempDir() as tmp:
            ds.to_parquet(os.path.join(tmp, "chat.parquet"))
            with open(os.path.join(tmp, "chat.jsonl"), "w") as f:
                for m in ROWS["messages"]:
                    f.write(json.dumps({"messages": m}) + "\n")
            rows, _ = dump(tmp, f"""
for _, t in ipairs{{ "chatml", "simple" }} do
  dump("parquet_" .. t, data.sft{{ dataset = data.parquet{{ path = "chat.parquet", columns = {{ "messages" }} }}, tokenizer = "{tok}", chat_template = t }})
  dump("jsonl_" .. t, data.sft{{ path = "chat.jsonl", tokenizer = "{tok}", chat_template = t }})
end
""")
            for t in ("chatml", "simple"):
                self.assertEqual(len(rows["parquet_" + t]), 7)
                self.assertEqual(rows["parquet_" + t], rows["jsonl_" + t])


class BadFiles(unittest.TestCase):
    def check_error(self, tmp, source, *needles):
        path = write(os.path.join(tmp, "bad.lua"), f'local data = require "runner.data"\nlocal ds = {source}\n'
                     'return { datasets = { train = ds }, model = nn.Linear(1, 1) }\n')
        code, _, err = run("check", path, cwd=tmp)
        self.assertEqual(code, 2, err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        for n in needles:
            self.assertIn(n, lines[0])
        if os.environ.get("SHOW_ERRORS"):
            print(lines[0])
        return lines[0]

    def test_bad_input(self):
        ds = hf_dataset()
        with TempDir() as tmp:
            ds.to_parquet(os.path.join(tmp, "ok.parquet"))
            self.check_error(tmp, 'data.parquet{ path = "ok.parquet", columns = { "id", "labels" } }',
                             "ok.parquet", "no column 'labels'", "input_ids")
            self.check_error(tmp, 'data.parquet{ path = "ok.parquet", dtypes = { score = "int64" } }',
                             "ok.parquet", "column 'score'", "int64")
            pq.write_table(pa.table({"when": pa.array([1, 2], pa.timestamp("s"))}), os.path.join(tmp, "time.parquet"))
            self.check_error(tmp, 'data.parquet("time.parquet")', "time.parquet", "column 'when'", "timestamp", "columns = {...}")
            pq.write_table(pa.table({"y": pa.array([1, None, 3])}), os.path.join(tmp, "null.parquet"))
            self.check_error(tmp, 'data.parquet("null.parquet")', "null.parquet", "row 1", "column 'y'", "null")
            pq.write_table(pa.table({"m": [[[1, 2], [3]]]}), os.path.join(tmp, "ragged.parquet"))
            self.check_error(tmp, 'data.parquet("ragged.parquet"):get(0)', "ragged.parquet", "row 0", "column 'm'", "ragged")

            # A corrupt data page: the second row group's pages of column "b" overwritten.
            n = 4000
            pq.write_table(pa.table({"a": list(range(n)), "b": [float(i) for i in range(n)]}), os.path.join(tmp, "corrupt.parquet"),
                           row_group_size=n // 2, compression="snappy", use_dictionary=False, write_statistics=False)
            meta = pq.ParquetFile(os.path.join(tmp, "corrupt.parquet")).metadata
            col = meta.row_group(1).column(1)
            blob = bytearray(read_bytes(os.path.join(tmp, "corrupt.parquet")))
            start = col.data_page_offset + 24  # past the page header: the compressed values
            blob[start:start + 64] = b"\xff" * 64
            write_bytes(os.path.join(tmp, "corrupt.parquet"), bytes(blob))
            self.check_error(tmp, 'data.parquet("corrupt.parquet")', "corrupt.parquet", "row group 1", "column 'b'")
            # Projection: a recipe that names only column "a" never reads b's pages.
            rows, fields = dump(tmp, 'dump("a", data.parquet{ path = "corrupt.parquet", columns = { "a" } })')
            self.assertEqual(fields["a"], ["a"])
            self.assertEqual([r["a"]["value"] for r in rows["a"]], list(range(n)))

            # Truncated Arrow files: a datasets stream and an IPC file cut short.
            ds.save_to_disk(os.path.join(tmp, "saved"))
            arrow = [f for f in os.listdir(os.path.join(tmp, "saved")) if f.endswith(".arrow")][0]
            data = read_bytes(os.path.join(tmp, "saved", arrow))
            write_bytes(os.path.join(tmp, "saved", arrow), data[: len(data) * 2 // 3])
            self.check_error(tmp, 'data.hf_dataset("saved")', arrow, "record batch 0", "truncated")
            table = ds.data.table
            with pa.ipc.new_file(os.path.join(tmp, "t.arrow"), table.schema) as w:
                w.write_table(table)
            data = read_bytes(os.path.join(tmp, "t.arrow"))
            write_bytes(os.path.join(tmp, "t.arrow"), data[: len(data) - 100])
            self.check_error(tmp, 'data.arrow("t.arrow")', "t.arrow")
            self.check_error(tmp, 'data.parquet("missing/*.parquet")', "missing/*.parquet", "no file matches")
            self.check_error(tmp, 'data.hf_dataset{ path = "saved", split = "test" }', "saved")
            # A state.json naming a file outside its folder; a DatasetDict split with no rows.
            ds.save_to_disk(os.path.join(tmp, "escape"))
            state_file = os.path.join(tmp, "escape", "state.json")
            with open(state_file) as f:
                state = json.load(f)
            state["_data_files"][0]["filename"] = "../t.arrow"
            write(state_file, json.dumps(state))
            self.check_error(tmp, 'data.hf_dataset("escape")', "state.json", '"../t.arrow", not a file of this folder')
            DatasetDict({"train": ds, "test": ds.select([])}).save_to_disk(os.path.join(tmp, "empty_split"))
            self.check_error(tmp, 'data.hf_dataset{ path = "empty_split", split = "test" }', "state.json", "this split has no rows")

    def test_sandboxed_recipes_read_only_their_folders(self):
        with TempDir() as tmp, TempDir() as outside:
            pq.write_table(pa.table({"x": [1, 2]}), os.path.join(outside, "x.parquet"))
            for fn in ("parquet", "arrow", "hf_dataset"):
                path = write(os.path.join(tmp, "bad.lua"), f'-- runner: sandbox\nlocal data = require "runner.data"\n'
                             f'local ds = data.{fn}("{outside}/x.parquet")\nreturn {{ datasets = {{ train = ds }}, model = nn.Linear(1, 1) }}\n')
                code, _, err = run("check", path, cwd=tmp)
                self.assertEqual(code, 2, err)
                self.assertIn(f"data.{fn}: \"{outside}/x.parquet\" is outside the folders", err)
            # A folder (or glob) inside may not lead outside: a symbolic link in it is checked
            # like a path the recipe names (it was read before).
            os.makedirs(os.path.join(tmp, "d"))
            pq.write_table(pa.table({"x": [3]}), os.path.join(tmp, "d", "a.parquet"))
            os.symlink(os.path.join(outside, "x.parquet"), os.path.join(tmp, "d", "b.parquet"))
            write(os.path.join(outside, "secret.txt"), "password=hunter2\n")
            os.symlink(os.path.join(outside, "secret.txt"), os.path.join(tmp, "d", "notes.txt"))
            for source in ('data.parquet("d")', 'data.parquet("d/*.parquet")',
                           'data.stream{ source = "d", format = "text", block_size = 4 }', 'data.stream{ source = "d/*.txt", block_size = 4 }'):
                with self.subTest(source=source):
                    path = write(os.path.join(tmp, "linked.lua"), f'-- runner: sandbox\nlocal data = require "runner.data"\n'
                                 f'local ds = {source}\nreturn {{ datasets = {{ train = ds }}, model = nn.Linear(1, 1) }}\n')
                    code, _, err = run("check", path, cwd=tmp)
                    self.assertEqual(code, 2, err)
                    self.assertEqual(len(err.strip().splitlines()), 1, err)
                    self.assertIn("is outside the folders a sandboxed recipe may use", err)


STREAM_RECIPE = """
local data, models = require "runner.data", require "runner.models"
local s = data.stream{ source = %s, format = %s, column = "text", buffer_size = 8, seed = 3, block_size = 9, eos_token_id = 10 }
torch.manual_seed(0)
return {
  args = { max_steps = 6, per_device_train_batch_size = 2, learning_rate = 3e-3, save_strategy = "steps", save_steps = 3,
           report_to = "none", dataloader_num_workers = 2 },
  datasets = { train = s },
  model = models.gpt{ vocab_size = s:vocab_size(), block_size = 9, n_layer = 1, n_head = 1, n_embd = 8 },
}
"""


class StreamShards(unittest.TestCase):
    """data.stream over shards datasets and pyarrow write (Parquet with several row groups, the
    Arrow IPC streams of save_to_disk, Arrow IPC files): a run resumed mid-shard ends with the
    uninterrupted run's weights, and reads at most one group's rows to get back there."""

    def resume_matches(self, tmp, source, fmt, group_rows):
        name = os.path.basename(source).replace("*", "_")
        recipe = write(os.path.join(tmp, f"{name}.lua"), STREAM_RECIPE % (json.dumps(source), json.dumps(fmt)))
        full, again = os.path.join(tmp, f"full-{name}"), os.path.join(tmp, f"again-{name}")
        code, _, err = run(recipe, "--output_dir", full)
        self.assertEqual(code, 0, err)
        shutil.copytree(os.path.join(full, "checkpoint-3"), os.path.join(again, "checkpoint-3"))
        code, _, err = run(recipe, "--output_dir", again, "--resume_from_checkpoint", os.path.join(again, "checkpoint-3"))
        self.assertEqual(code, 0, err)
        with open(os.path.join(full, "model.safetensors"), "rb") as a, open(os.path.join(again, "model.safetensors"), "rb") as b:
            self.assertEqual(a.read(), b.read(), f"{name}: the resumed run's weights differ")
        with open(os.path.join(again, "train_results.json")) as f:
            skipped = json.load(f)["train_stream_records_skipped"]
        self.assertLessEqual(skipped, 2 * group_rows)  # two readers, each at most its group's rows

    def test_resume_parquet_and_arrow(self):
        texts = [f"row {i}: " + "xyz" * (i % 7) for i in range(120)]
        with TempDir() as tmp:
            for k in range(2):
                pq.write_table(pa.table({"id": list(range(60)), "text": texts[60 * k:60 * (k + 1)]}),
                               os.path.join(tmp, f"train-{k}.parquet"), row_group_size=10)
            self.resume_matches(tmp, os.path.join(tmp, "train-*.parquet"), "parquet", 10)
            Dataset.from_dict({"text": texts}).save_to_disk(os.path.join(tmp, "saved"), num_shards=2)
            self.resume_matches(tmp, os.path.join(tmp, "saved", "data-*.arrow"), "arrow", 60)
            table = pa.table({"text": texts})
            with pa.ipc.new_file(os.path.join(tmp, "t.arrow"), table.schema) as w:
                for batch in table.to_batches(max_chunksize=16):
                    w.write_batch(batch)
            self.resume_matches(tmp, os.path.join(tmp, "t.arrow"), "arrow", 16)

    def test_missing_column(self):
        with TempDir() as tmp:
            pq.write_table(pa.table({"content": ["a", "b"]}), os.path.join(tmp, "x.parquet"))
            recipe = write(os.path.join(tmp, "r.lua"), STREAM_RECIPE % (json.dumps(os.path.join(tmp, "x.parquet")), json.dumps("parquet")))
            code, _, err = run(recipe, "--output_dir", os.path.join(tmp, "out"))
            self.assertEqual(code, 2, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn("x.parquet", err)
            self.assertIn("no column 'text'", err)


if __name__ == "__main__":
    unittest.main()
