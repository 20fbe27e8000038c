"""Token offsets, overflowing windows and whole-word masking, checked with transformers:
tok(text[, pair], {return_offsets_mapping = true, return_special_tokens_mask = true}) gives the
ids, character offsets and special-token mask transformers' fast tokenizer gives (accents, pairs,
truncation); with return_overflowing_tokens (a text, or a pair with truncation = "only_second")
and a stride, the same windows; a batch (lists of texts and pairs) gives transformers'
tokenizer(texts, pairs, padding=..., truncation=True) as padded tensors, on either side;
data.mlm_collator{whole_word_mask = true} masks whole words as transformers'
DataCollatorForLanguageModeling(whole_word_mask=True) groups them (its own
_calc_word_ids_and_prob_mask on transformers' offsets): every word all or nothing, special tokens
never, about mlm_probability of the words. Exit 77 (skipped) without transformers."""
import json
import os
import re
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import check_one_line_errors, TempDir, run, write  # noqa: E402

try:
    import transformers
    from test_bert_folder import pretrained_bert_folder
except ImportError as e:
    print(f"SKIP: transformers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

WORDS = ["river", "bridge", "café", "naïve", "Zürich", "tower", "garden", "library", "market", "station", "harbour", "élan"]


def texts(n, seed):
    rng = np.random.default_rng(seed)
    return [" ".join(WORDS[int(i)] for i in rng.integers(len(WORDS), size=int(rng.integers(6, 14)))) + "." for _ in range(n)]


PAIRS = [("Where is the café?", "The café stands near the naïve bridge in Zürich."), ("élan", "x" * 3 + " harbour, station!"),
         ("a", "b c d e f g h i j k l m n o p q r s t u v w x y z")]

OFFSETS = """local data = require "runner.data"
local tok = data.tokenizer("pre/tokenizer.json")
local function show(t) return table.concat(t:reshape{ -1 }:tolist(), ",") end
for i, p in ipairs(PAIRS) do
  local e = tok(p[1], p[2], { return_offsets_mapping = true, return_special_tokens_mask = true, max_length = 16 })
  print("PAIR " .. i .. " " .. show(e.input_ids) .. " | " .. show(e.offset_mapping) .. " | " .. show(e.special_tokens_mask) .. " | " .. show(e.token_type_ids))
  local same = tok(p[1], p[2], { max_length = 16 })
  assert(same.input_ids:equal(e.input_ids) and same.token_type_ids:equal(e.token_type_ids))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

WINDOWS = """local data = require "runner.data"
local tok = data.tokenizer("pre/tokenizer.json")
local function show(t) return table.concat(t:reshape{ -1 }:tolist(), ",") end
local text, q = TEXT, QUESTION
for i, w in ipairs(tok(text, { max_length = 12, stride = 3, return_overflowing_tokens = true, return_offsets_mapping = true })) do
  print("SINGLE " .. i .. " " .. show(w.input_ids) .. " | " .. show(w.offset_mapping))
end
for i, w in ipairs(tok(q, text, { max_length = 20, stride = 4, truncation = "only_second", return_overflowing_tokens = true })) do
  print("PAIRED " .. i .. " " .. show(w.input_ids) .. " | " .. show(w.token_type_ids))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

BATCH = """local data = require "runner.data"
local tok = data.tokenizer("pre/tokenizer.json")
local function show(t) return table.concat(t:reshape{ -1 }:tolist(), ",") end
for _, o in ipairs{ { max_length = 12 }, { max_length = 16, padding = "max_length", padding_side = "left" } } do
  local b = tok(TEXTS, PAIRS, o)
  print("BATCH " .. b.input_ids:size(1) .. " " .. show(b.input_ids) .. " | " .. show(b.token_type_ids) .. " | " .. show(b.attention_mask))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

MASKING = """local data = require "runner.data"
local tok = data.tokenizer("pre/tokenizer.json")
local rows = data.jsonl("texts.jsonl"):map(function(e)
  local t = tok(e.text, { return_offsets_mapping = true, max_length = 40 })
  return { input_ids = t.input_ids, attention_mask = t.attention_mask, offset_mapping = t.offset_mapping }
end, { remove_columns = { "text" } })
local collate = data.mlm_collator{ tokenizer = tok, mlm_probability = 0.3, whole_word_mask = WHOLE, seed = 3 }
local examples = {}
for i = 0, #rows - 1 do examples[#examples + 1] = rows:get(i) end
local b = collate(examples)
assert(b.offset_mapping == nil, "offset_mapping must not reach the model")
local function show(t) return table.concat(t:tolist(), ",") end
for r = 0, b.input_ids:size(0) - 1 do
  print("ROW " .. r .. " " .. show(b.input_ids:select(0, r)) .. " | " .. show(b.labels:select(0, r)))
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""


class WholeWordMask(unittest.TestCase):
    def folder(self, d):
        pretrained_bert_folder(os.path.join(d, "pre"), texts(200, seed=0), lowercase=True, vocab_size=60)
        hf = transformers.BertTokenizerFast(tokenizer_file=os.path.join(d, "pre", "tokenizer.json"))
        hf.save_pretrained(os.path.join(d, "pre"))  # tokenizer_config.json: mask and pad tokens
        return hf

    def test_offsets_and_special_tokens_mask_match_transformers(self):
        with TempDir() as d:
            hf = self.folder(d)
            pairs = "{ " + ", ".join("{ %s, %s }" % (json.dumps(a, ensure_ascii=False), json.dumps(b, ensure_ascii=False)) for a, b in PAIRS) + " }"
            code, out, err = run("check", write(os.path.join(d, "o.lua"), OFFSETS.replace("PAIRS", pairs)), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            got = {int(m.group(1)): m.groups()[1:] for m in re.finditer(r"PAIR (\d+) (\S+) \| (\S+) \| (\S+) \| (\S+)", out + err)}
            self.assertEqual(len(got), len(PAIRS))
            for i, (a, b) in enumerate(PAIRS, 1):
                want = hf(a, b, truncation=True, max_length=16, return_offsets_mapping=True, return_special_tokens_mask=True)
                ids, offsets, special, types = (list(map(int, g.split(","))) for g in got[i])
                self.assertEqual(ids, want["input_ids"], (a, b))
                self.assertEqual(offsets, [x for pair in want["offset_mapping"] for x in pair], (a, b))
                self.assertEqual(special, want["special_tokens_mask"], (a, b))
                self.assertEqual(types, want["token_type_ids"], (a, b))

    def test_overflowing_windows_match_transformers(self):
        with TempDir() as d:
            hf = self.folder(d)
            text, question = texts(1, seed=9)[0] + " " + texts(1, seed=10)[0], "café?"
            script = WINDOWS.replace("TEXT", json.dumps(text, ensure_ascii=False)).replace("QUESTION", json.dumps(question, ensure_ascii=False))
            code, out, err = run("check", write(os.path.join(d, "w.lua"), script), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            single = [m.groups() for m in re.finditer(r"SINGLE \d+ (\S+) \| (\S+)", out + err)]
            paired = [m.groups() for m in re.finditer(r"PAIRED \d+ (\S+) \| (\S+)", out + err)]
            want = hf(text, truncation=True, max_length=12, stride=3, return_overflowing_tokens=True, return_offsets_mapping=True)
            self.assertGreater(len(want["input_ids"]), 3)
            self.assertEqual([(list(map(int, a.split(","))), list(map(int, b.split(",")))) for a, b in single],
                             [(ids, [x for p in offs for x in p]) for ids, offs in zip(want["input_ids"], want["offset_mapping"])])
            want = hf(question, text, truncation="only_second", max_length=20, stride=4, return_overflowing_tokens=True)
            self.assertGreater(len(want["input_ids"]), 3)
            self.assertEqual([(list(map(int, a.split(","))), list(map(int, b.split(",")))) for a, b in paired],
                             list(zip(want["input_ids"], want["token_type_ids"])))

    def test_a_batch_is_transformers_padded_batch(self):
        with TempDir() as d:
            hf = self.folder(d)
            first, second = ["café", "the river", "a"], ["bridge " * 9, "tower", "naïve élan"]
            lua = lambda xs: "{ " + ", ".join(json.dumps(x, ensure_ascii=False) for x in xs) + " }"
            script = BATCH.replace("TEXTS", lua(first)).replace("PAIRS", lua(second))
            code, out, err = run("check", write(os.path.join(d, "b.lua"), script), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            got = [m.groups() for m in re.finditer(r"BATCH (\d+) (\S+) \| (\S+) \| (\S+)", out + err)]
            self.assertEqual(len(got), 2)
            for (width, ids, types, mask), kw in zip(got, [dict(padding=True, max_length=12), dict(padding="max_length", max_length=16)]):
                hf.padding_side = "left" if kw["padding"] == "max_length" else "right"
                want = hf(first, second, truncation=True, **kw)
                flat = lambda rows: [x for r in rows for x in r]
                self.assertEqual(int(width), len(want["input_ids"][0]))
                self.assertEqual(list(map(int, ids.split(","))), flat(want["input_ids"]), kw)
                self.assertEqual(list(map(int, types.split(","))), flat(want["token_type_ids"]), kw)
                self.assertEqual(list(map(int, mask.split(","))), flat(want["attention_mask"]), kw)

    def masked_rows(self, d, whole):
        code, out, err = run("check", write(os.path.join(d, "m.lua"), MASKING.replace("WHOLE", whole)), cwd=d)
        self.assertEqual(code, 0, err[-3000:])
        return [(list(map(int, m.group(2).split(","))), list(map(int, m.group(3).split(","))))
                for m in re.finditer(r"ROW (\d+) (\S+) \| (\S+)", out + err)]

    def test_whole_words_are_masked_as_transformers_groups_them(self):
        with TempDir() as d:
            hf = self.folder(d)
            corpus = texts(96, seed=5)
            write(os.path.join(d, "texts.jsonl"), "".join(json.dumps({"text": t}) + "\n" for t in corpus))
            enc = [hf(t, truncation=True, max_length=40, return_offsets_mapping=True, return_special_tokens_mask=True) for t in corpus]

            def word_ids(e):
                w, _ = transformers.DataCollatorForLanguageModeling._calc_word_ids_and_prob_mask(
                    np.array([e["offset_mapping"]]), np.array([e["special_tokens_mask"]]))
                return w[0]

            def words_cut(rows):
                whole, cut, picked, total, masked, to_mask = 0, 0, 0, 0, 0, 0
                for (inputs, labels), e in zip(rows, enc):
                    n = len(e["input_ids"])
                    ids = word_ids(e)
                    for t in range(n):
                        if e["special_tokens_mask"][t]:
                            self.assertEqual(labels[t], -100)
                        if labels[t] != -100:
                            self.assertEqual(labels[t], e["input_ids"][t])
                            masked += 1
                            to_mask += inputs[t] == hf.mask_token_id
                    for w in set(ids[ids >= 0].tolist()):
                        tokens = [t for t in range(n) if ids[t] == w]
                        flags = {labels[t] != -100 for t in tokens}
                        total += 1
                        picked += flags == {True}
                        if len(tokens) > 1:
                            whole += flags == {True}
                            cut += len(flags) == 2
                return whole, cut, picked / total, to_mask / max(1, masked)

            whole, cut, rate, mask_share = words_cut(self.masked_rows(d, "true"))
            self.assertEqual(cut, 0)
            self.assertGreater(whole, 20)  # many multi-token words were masked whole
            self.assertAlmostEqual(rate, 0.3, delta=0.05)
            self.assertAlmostEqual(mask_share, 0.8, delta=0.06)
            # Token-level masking cuts words: the check above can fail.
            _, cut, _, _ = words_cut(self.masked_rows(d, "false"))
            self.assertGreater(cut, 20)

    def test_bad_tokenizer_options_are_one_line(self):
        with TempDir() as d:
            self.folder(d)
            cases = {
                'tok("a b", "c d", { max_length = 8, return_overflowing_tokens = true })': 'needs truncation = "only_second"',
                'tok("a b", { return_overflowing_tokens = true })': "return_overflowing_tokens needs max_length",
                'tok("a b", "c", { stride = 2, max_length = 8 })': "go with return_overflowing_tokens = true",
                'tok("a b", { truncation = "only_first", max_length = 8 })': 'truncation must be true, "longest_first" or "only_second"',
                'tok({ "a" }, { is_split_into_words = true, return_offsets_mapping = true })': "are for text, not is_split_into_words",
                'tok("a b c d e f g h", { max_length = 6, stride = 4, return_overflowing_tokens = true })': "stride 4 must be less than",
                'tok({ "a" }, { "b", "c" })': "1 texts but 2 pairs",
                'tok({ "a" }, { padding = "max_length" })': 'padding = "max_length" needs max_length',
                'tok({ "a" }, { padding = "do_not_pad" })': 'padding must be true, "longest" or "max_length"',
                'tok({ "a" }, { return_offsets_mapping = true })': "are for one text at a time",
                'tok("a", { padding = true })': "padding and padding_side are for a batch",
            }
            check_one_line_errors(self, d, cases, preamble='local tok = data.tokenizer("pre/tokenizer.json")\n')

    def test_without_offsets_it_is_one_line(self):
        with TempDir() as d:
            self.folder(d)
            write(os.path.join(d, "texts.jsonl"), json.dumps({"text": "river bridge"}) + "\n")
            script = MASKING.replace("return_offsets_mapping = true, ", "").replace(", offset_mapping = t.offset_mapping", "").replace("WHOLE", "true")
            code, out, err = run("check", write(os.path.join(d, "m.lua"), script), cwd=d)
            self.assertEqual(code, 2, err[-2000:])
            self.assertIn("whole_word_mask needs each example's offset_mapping", err)


if __name__ == "__main__":
    unittest.main()
