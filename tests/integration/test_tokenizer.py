"""data.tokenizer("tokenizer.json") in a recipe: tok:encode / tok:decode give what the
`tokenizers` package gives (the Llama 3 style byte-level and Llama 2 style SentencePiece
tokenizers hf_tokenizer_reference.py builds), and a missing or unsupported file is one clear
line."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, run, write  # noqa: E402

PYTHON = os.environ.get("RUNNER_PYTHON", sys.executable)


def lua_string(s):
    """A quoted Lua string with any text: control characters, quotes and backslashes as 3-digit
    decimal escapes (a long bracket would turn CR and CR LF into LF), other characters as UTF-8."""
    return '"' + "".join(f"\\{ord(c):03d}" if ord(c) < 32 or c in '"\\' or ord(c) == 127 else c for c in s) + '"'


class Tokenizer(unittest.TestCase):
    def check_style(self, style, bos):
        with TempDir() as tmp:
            p = subprocess.run([PYTHON, os.path.join(SOURCE, "tests/data/hf_tokenizer_reference.py"), tmp, SOURCE], capture_output=True, text=True)
            if p.returncode == 77:
                self.skipTest("the tokenizers package is not installed")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(tmp, "expected.json"), encoding="utf-8") as f:
                expected = json.load(f)[style]
            cases = [c for c in expected["cases"] if "text" in c]
            lines = ['local data, recipe = require "runner.data", require "runner.recipe"',
                     f'local tok = data.tokenizer(recipe.path("{style}/tokenizer.json"))', 'local cases = {']
            lines += [f"  {{ {lua_string(c['text'])}, {lua_string(c['decoded_skip'])} }}," for c in cases]
            lines += ["}", "for i, c in ipairs(cases) do",
                      "  local ids = tok:encode(c[1])",
                      '  print("IDS " .. i .. " " .. table.concat(ids:tolist(), " "))',
                      '  assert(tok:decode(ids, {skip_special_tokens = true}) == c[2], "decode " .. i)',
                      "end",
                      f'print("VOCAB " .. tok:vocab_size() .. " " .. tostring(tok:token_to_id("{bos}")))',
                      'return { datasets = { train = data.tensors{ x = torch.zeros(2, 1), labels = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }']
            recipe = write(os.path.join(tmp, "r.lua"), "\n".join(lines) + "\n")
            code, _, err = run("check", recipe, "--output_dir", os.path.join(tmp, "o"))
            self.assertEqual(code, 0, err[-3000:])
            got = {}
            for line in err.splitlines():
                if "] IDS " in line:
                    i, *ids = line.split("] IDS ")[1].split(" ")
                    got[int(i)] = [int(x) for x in ids if x]
            self.assertEqual(len(got), len(cases))
            for i, c in enumerate(cases, 1):
                self.assertEqual(got[i], c["ids"], c["text"])
            self.assertIn(f"VOCAB {expected['vocab_size']} {expected['added_ids'][bos]}", err)

    def test_encode_and_decode_from_a_recipe_match_tokenizers(self):
        self.check_style("llama3", "<|begin_of_text|>")

    def test_sentencepiece_style_with_byte_fallback_matches_tokenizers(self):
        self.check_style("llama2", "<s>")

    def test_text_pairs_and_truncation_from_a_recipe_match_tokenizers(self):
        """tok(a, b, {max_length = n}) as transformers' tokenizer(a, b, truncation=True,
        max_length=n): BERT's [CLS] A [SEP] B [SEP] with token_type_ids, longest-first cut."""
        with TempDir() as tmp:
            p = subprocess.run([PYTHON, os.path.join(SOURCE, "tests/data/hf_tokenizer_reference.py"), tmp, SOURCE], capture_output=True, text=True)
            if p.returncode == 77:
                self.skipTest("the tokenizers package is not installed")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(tmp, "expected.json"), encoding="utf-8") as f:
                expected = json.load(f)["bert"]
            pairs = [c for c in expected["pairs"] if c["b"]]
            words = expected["words"]
            lines = ['local data, recipe = require "runner.data", require "runner.recipe"',
                     'local tok = data.tokenizer(recipe.path("bert/tokenizer.json"))',
                     'local function show(t) return table.concat(t:tolist(), " ") end']
            for i, c in enumerate(pairs):
                opts = f", {{ max_length = {c['max_length']} }}" if c["max_length"] else ""
                lines.append(f"do local e = tok({lua_string(c['a'])}, {lua_string(c['b'])}{opts}); "
                             f'print("PAIR {i} " .. show(e.input_ids) .. " | " .. show(e.token_type_ids) .. " | " .. show(e.attention_mask)) end')
                if c["max_length"]:
                    lines.append(f'print("ONE {i} " .. show(tok:encode({lua_string(c["a"])}{opts})))')
            for i, c in enumerate(words):  # tok(words[, pair_words], {is_split_into_words = true}): word_ids too
                table = lambda ws: "{ " + ", ".join(lua_string(w) for w in ws) + " }"
                args = table(c["a"]) + (", " + table(c["b"]) if c["b"] else "")
                opts = f", max_length = {c['max_length']}" if c["max_length"] else ""
                lines.append(f"do local e = tok({args}, {{ is_split_into_words = true{opts} }}); "
                             f'print("WORDS {i} " .. show(e.input_ids) .. " | " .. show(e.token_type_ids) .. " | " .. show(e.word_ids)) end')
            lines.append('return { datasets = { train = data.tensors{ x = torch.zeros(2, 1), labels = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }')
            code, _, err = run("check", write(os.path.join(tmp, "r.lua"), "\n".join(lines) + "\n"), "--output_dir", os.path.join(tmp, "o"))
            self.assertEqual(code, 0, err[-3000:])
            got, one = {}, {}
            for line in err.splitlines():
                if "] PAIR " in line:
                    i, rest = line.split("] PAIR ")[1].split(" ", 1)
                    got[int(i)] = [[int(x) for x in part.split()] for part in rest.split(" | ")]
                if "] ONE " in line:
                    i, rest = line.split("] ONE ")[1].split(" ", 1)
                    one[int(i)] = [int(x) for x in rest.split()]
            by_words = {}
            for line in err.splitlines():
                if "] WORDS " in line:
                    i, rest = line.split("] WORDS ")[1].split(" ", 1)
                    by_words[int(i)] = [[int(x) for x in part.split()] for part in rest.split(" | ")]
            self.assertEqual(len(by_words), len(words))
            for i, c in enumerate(words):
                self.assertEqual(by_words[i], [c["ids"], c["type_ids"], c["word_ids"]], (c["a"][:3], c["max_length"]))
            self.assertEqual(len(got), len(pairs))
            for i, c in enumerate(pairs):
                self.assertEqual(got[i], [c["ids"], c["type_ids"], [1] * len(c["ids"])], (c["a"][:20], c["max_length"]))
                if c["max_length"]:
                    self.assertEqual(one[i], c["single"])
                    self.assertLessEqual(len(c["ids"]), c["max_length"])
            self.assertTrue(any(1 in c["type_ids"] for c in pairs))

    def test_missing_or_unsupported_files_are_one_line(self):
        with TempDir() as tmp:
            write(os.path.join(tmp, "bad.json"), json.dumps({"model": {"type": "WordLevel2", "vocab": {}}}))
            write(os.path.join(tmp, "pieces.json"), json.dumps({"model": {"type": "Unigram", "vocab": [["a", -1.0], ["b"]], "unk_id": 0}}))
            write(os.path.join(tmp, "charsmap.json"), json.dumps({"normalizer": {"type": "Precompiled", "precompiled_charsmap": "AAEAAA=="},
                                                                  "model": {"type": "Unigram", "vocab": [["a", -1.0]], "unk_id": 0}}))
            for name, message in (("missing.json", "cannot open the tokenizer file"), ("bad.json", 'model "WordLevel2" is not supported yet'),
                                  ("pieces.json", "Unigram: vocab entry 1 is not [piece, score]"),
                                  ("charsmap.json", "normalizer Precompiled: precompiled_charsmap has a trie size (256 bytes)")):
                recipe = write(os.path.join(tmp, "r.lua"), f'local tok = (require "runner.data").tokenizer((require "runner.recipe").path("{name}"))\nreturn {{}}\n')
                code, _, err = run("check", recipe, "--output_dir", os.path.join(tmp, "o"))
                self.assertEqual(code, 2, err)
                self.assertIn(message, err)
                self.assertIn("r.lua:1", err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)


if __name__ == "__main__":
    unittest.main()
