"""A GPT-2 trained by runner is a Hugging Face model folder (model.safetensors + config.json, in
the output and every checkpoint): transformers' from_pretrained loads it with the logits
runner computes, and models.from_pretrained reads it back. Exit 77 (skipped) without
transformers."""
import json
import os
import re
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import SOURCE, TempDir, run, write  # noqa: E402

try:
    import torch
    import transformers
    from transformers import AutoModelForCausalLM
except ImportError as e:
    print(f"SKIP: transformers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

transformers.logging.set_verbosity_error()

TRAIN = """
local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(0, 64, {32, 16})
return {
  args = { output_dir = "out", max_steps = 6, learning_rate = 3e-3, per_device_train_batch_size = 8,
           save_strategy = "steps", save_steps = 6, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.gpt{ vocab_size = 64, block_size = 16, n_layer = 2, n_head = 2, n_embd = 32, dropout = 0.1 },
}
"""

# The logits of a fixed batch from the folder, as one JSON line.
LOGITS = """
local POSITIONS = nil
local data, models = require "runner.data", require "runner.models"
local model = models.from_pretrained("out")
local batch = { input_ids = torch.tensor{ { 5, 17, 40, 2, 33, 9, 60, 1 } } }
if POSITIONS then batch.position_ids = torch.tensor{ POSITIONS } end
local logits = model(batch).logits
local row = {}
for t = 0, 7 do
  for v = 0, 63 do row[#row + 1] = string.format("%.9g", logits:select(0, 0):select(0, t):select(0, v):item()) end
end
print("LOGITS [" .. table.concat(row, ",") .. "]")
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""


class Gpt2Folder(unittest.TestCase):
    def test_transformers_loads_runner_gpt2_with_the_same_logits(self):
        with TempDir() as d:
            code, out, err = run(write(os.path.join(d, "train.lua"), TRAIN), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            for folder in ("out", "out/checkpoint-6"):
                with open(os.path.join(d, folder, "config.json")) as f:
                    self.assertEqual(json.load(f)["model_type"], "gpt2")
            hf = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out"), dtype=torch.float32).eval()
            self.assertEqual(type(hf).__name__, "GPT2LMHeadModel")
            self.assertAlmostEqual(hf.config.resid_pdrop, 0.1)
            with torch.no_grad():
                expected = hf(torch.tensor([[5, 17, 40, 2, 33, 9, 60, 1]])).logits[0].numpy().reshape(-1)
            write(os.path.join(d, "logits.lua"), LOGITS)
            code, out, err = run("check", "logits.lua", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            line = next(l for l in (out + err).splitlines() if "LOGITS [" in l)
            got = np.array(json.loads(line[line.index("LOGITS [") + 7:]))
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)

            # position_ids index the position embeddings, as HF's (two packed sequences here).
            positions = [0, 1, 2, 3, 0, 1, 2, 3]
            with torch.no_grad():
                packed = hf(torch.tensor([[5, 17, 40, 2, 33, 9, 60, 1]]), position_ids=torch.tensor([positions])).logits[0]
            self.assertGreater(float((packed.reshape(-1) - torch.tensor(expected)).abs().max()), 1e-3)
            write(os.path.join(d, "logits.lua"), LOGITS.replace("local POSITIONS = nil", f"local POSITIONS = {{ {', '.join(map(str, positions))} }}"))
            code, out, err = run("check", "logits.lua", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            line = next(l for l in (out + err).splitlines() if "LOGITS [" in l)
            np.testing.assert_allclose(np.array(json.loads(line[line.index("LOGITS [") + 7:])), packed.numpy().reshape(-1), rtol=1e-5, atol=1e-5)

            # A position past the table (block_size 16): in training, one line naming the field
            # (the Trainer checks the host batch, so a GPU never sees it).
            bad = TRAIN.replace("data.tensors{ input_ids = ids, labels = ids }",
                                "data.tensors{ input_ids = ids, labels = ids, position_ids = torch.arange(0, 16):add(1):expand(32, 16):contiguous() }")
            self.assertNotEqual(bad, TRAIN)
            code, out, err = run(write(os.path.join(d, "bad.lua"), bad), "--output_dir", "bad", cwd=d)
            self.assertEqual(code, 2, err[-2000:])
            self.assertIn("position_ids", err.strip().splitlines()[-1])
            self.assertIn("block_size = 16", err.strip().splitlines()[-1])

    def test_a_fine_tuned_folder_keeps_what_save_pretrained_writes(self):
        """Fine-tuning a GPT-2 and a tied Llama read with models.from_pretrained writes what
        transformers' save_pretrained writes: config.json keeps the token ids, the source
        folder's generation_config.json comes along (eos list, sampling settings), and the tied
        lm_head.weight is not stored a second time; a model runner made gets
        GenerationConfig.from_model_config's file. transformers reads the folders back."""
        from runner_test_util import read_safetensors
        gpt2 = transformers.GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=1, n_head=2,
                                       bos_token_id=5, eos_token_id=6, pad_token_id=0)
        llama = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                         tie_word_embeddings=True, bos_token_id=1, eos_token_id=2)
        generation = {"eos_token_id": [2, 3], "do_sample": True, "temperature": 0.6, "bos_token_id": 1}
        recipe = """local data, models = require "runner.data", require "runner.models"
local ids = torch.randint(0, 64, {8, 16})
return {
  args = { output_dir = "OUT", max_steps = 2, per_device_train_batch_size = 4, save_strategy = "steps", save_steps = 2,
           report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = MODEL,
}
"""
        with TempDir() as d:
            torch.manual_seed(0)
            transformers.GPT2LMHeadModel(gpt2).save_pretrained(os.path.join(d, "gpt2"))
            base = transformers.LlamaForCausalLM(llama)
            base.generation_config = transformers.GenerationConfig(**generation)
            base.save_pretrained(os.path.join(d, "llama"))
            cases = {"gpt2": 'models.from_pretrained("gpt2")', "llama": 'models.from_pretrained("llama")',
                     "scratch": "models.gpt{ vocab_size = 64, block_size = 16, n_layer = 1, n_head = 2, n_embd = 32 }"}
            for name, model in cases.items():
                out = f"out_{name}"
                code, _, err = run(write(os.path.join(d, f"{name}.lua"), recipe.replace("OUT", out).replace("MODEL", model)), cwd=d)
                self.assertEqual(code, 0, err[-3000:])
                for folder in (out, f"{out}/checkpoint-2"):
                    weights = read_safetensors(os.path.join(d, folder, "model.safetensors"))
                    self.assertNotIn("lm_head.weight", weights, folder)  # tied: saved once, as HF saves it
                    hf = AutoModelForCausalLM.from_pretrained(os.path.join(d, folder))
                    self.assertTrue(torch.equal(hf.get_output_embeddings().weight, hf.get_input_embeddings().weight), folder)
                    with open(os.path.join(d, folder, "generation_config.json")) as f:
                        saved = json.load(f)
                    if name == "gpt2":
                        self.assertEqual((hf.config.bos_token_id, hf.config.eos_token_id, hf.config.pad_token_id), (5, 6, 0))
                        self.assertEqual((saved["bos_token_id"], saved["eos_token_id"]), (5, 6))
                    elif name == "llama":
                        self.assertEqual(hf.generation_config.eos_token_id, [2, 3], folder)
                        self.assertTrue(hf.generation_config.do_sample)
                        self.assertAlmostEqual(hf.generation_config.temperature, 0.6)
                    else:
                        self.assertTrue(saved["_from_model_config"])


    def test_generate_gives_transformers_ids(self):
        """A GPT-2 folder generates what GPT2LMHeadModel.generate gives on the same left-padded
        prompts: greedy, beam search, a repetition penalty, and a cache that has to carry
        padding; past n_positions is one line."""
        config = transformers.GPT2Config(vocab_size=64, n_positions=24, n_embd=32, n_layer=2, n_head=4, bos_token_id=1,
                                         eos_token_id=63, pad_token_id=0)
        prompts = [[0, 0, 0, 5, 17, 40], [9, 2, 33, 9, 60, 1]]  # the first left-padded
        mask = [[0, 0, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1]]
        runs = {"greedy": "max_new_tokens = 10", "beams": "max_new_tokens = 8, num_beams = 3",
                "penalty": "max_new_tokens = 10, repetition_penalty = 1.5", "unpadded": "max_new_tokens = 12"}
        lua = ["local models = require 'runner.models'", "local m = models.from_pretrained('gpt2')",
               f"local ids, mask = torch.tensor{{ {{ {', '.join(map(str, prompts[0]))} }}, {{ {', '.join(map(str, prompts[1]))} }} }}, "
               f"torch.tensor{{ {{ {', '.join(map(str, mask[0]))} }}, {{ {', '.join(map(str, mask[1]))} }} }}"]
        for name, options in runs.items():
            call = (f"m:generate(ids:narrow(0, 1, 1), {{ {options} }})" if name == "unpadded"
                    else f"m:generate(ids, {{ attention_mask = mask, {options} }})")
            lua.append(f"do local out = {call}; local rows = {{}}; for _, r in ipairs(out:tolist()) do "
                       f"rows[#rows + 1] = '[' .. table.concat(r, ',') .. ']' end; print('IDS {name} [' .. table.concat(rows, ',') .. ']') end")
        lua.append("local ok, err = pcall(function() return m:generate(ids, { attention_mask = mask, max_new_tokens = 30 }) end)")
        lua.append("print('TOO_LONG ' .. tostring(err))")
        lua.append('return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }')
        with TempDir() as d:
            torch.manual_seed(0)
            hf = transformers.GPT2LMHeadModel(config).eval()
            hf.save_pretrained(os.path.join(d, "gpt2"))
            code, out, err = run("check", write(os.path.join(d, "gen.lua"), "\n".join(lua)), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            got = {m.group(1): json.loads(m.group(2)) for m in re.finditer(r"IDS (\w+) (.*)$", out + err, re.M)}
            ids, attention = torch.tensor(prompts), torch.tensor(mask)
            expected = {
                "greedy": hf.generate(ids, attention_mask=attention, max_new_tokens=10, do_sample=False),
                "beams": hf.generate(ids, attention_mask=attention, max_new_tokens=8, num_beams=3, do_sample=False),
                "penalty": hf.generate(ids, attention_mask=attention, max_new_tokens=10, repetition_penalty=1.5, do_sample=False),
                "unpadded": hf.generate(ids[1:], attention_mask=attention[1:], max_new_tokens=12, do_sample=False),
            }
            for name, want in expected.items():
                self.assertEqual(got[name], want.tolist(), name)
            self.assertIn("n_positions", next(l for l in (out + err).splitlines() if "TOO_LONG" in l))

    def test_fine_tuning_a_hub_folder_with_the_shipped_recipe(self):
        """recipes/gpt2_finetune.lua on a GPT-2 folder with its tokenizer.json (as the hub's):
        the text is encoded with that tokenizer, the output and checkpoints carry the tokenizer
        files (HF's Trainer saves its processing_class), transformers loads the result, and
        `runner generate OUTPUT` decodes what GPT2LMHeadModel.generate gives."""
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
        recipe = os.path.join(SOURCE, "recipes", "gpt2_finetune.lua")
        text = os.path.join(SOURCE, "recipes", "lib", "sample_text.txt")
        with TempDir() as d:
            tok = Tokenizer(models.BPE())
            tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
            tok.decoder = decoders.ByteLevel()
            tok.train([text], trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                                   initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
            eos = tok.token_to_id("<|endoftext|>")
            config = transformers.GPT2Config(vocab_size=tok.get_vocab_size(), n_positions=96, n_embd=32, n_layer=2, n_head=2,
                                             bos_token_id=eos, eos_token_id=eos)
            torch.manual_seed(0)
            transformers.GPT2LMHeadModel(config).save_pretrained(os.path.join(d, "gpt2"))
            tok.save(os.path.join(d, "gpt2", "tokenizer.json"))
            code, out, err = run(recipe, "--model_dir", "gpt2", "--output_dir", "out", "--max_steps", "8", "--save_steps", "4",
                                 "--save_strategy", "steps", "--eval_strategy", "no", "--learning_rate", "3e-3", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            self.assertIn("gpt2_finetune: text encoded with gpt2/tokenizer.json", out + err)
            for folder in ("out", "out/checkpoint-4", "out/checkpoint-8"):
                with open(os.path.join(d, folder, "tokenizer.json")) as f, open(os.path.join(d, "gpt2", "tokenizer.json")) as g:
                    self.assertEqual(json.load(f), json.load(g), folder)
            fast = transformers.PreTrainedTokenizerFast(tokenizer_file=os.path.join(d, "out", "tokenizer.json"))
            hf = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out"), dtype=torch.float32).eval()
            prompt = "The king"
            ids = torch.tensor([fast.encode(prompt)])
            want = fast.decode(hf.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=12, do_sample=False)[0])
            code, out, err = run("generate", "out", "--prompt", prompt, "--max_new_tokens", "12", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            self.assertEqual(out, want + "\n")  # each continuation on its own line

    def test_predict_with_generate_one_process_zero3_and_transformers_agree(self):
        """predict_with_generate with a models.gpt: one process gives GPT2LMHeadModel.generate's
        ids on the saved folder, and ZeRO-3 over two ranks (each block's parameters gathered
        around its cached forward) gives one process's."""
        import subprocess
        from runner_test_util import BINARY, read_safetensors
        prompts = [[0, 0, 20, 15, 9, 2], [52, 47, 32, 2, 15, 32], [0, 7, 8, 9, 10, 11], [3, 4, 5, 6, 7, 8]]
        masks = [[0, 0, 1, 1, 1, 1], [1] * 6, [0, 1, 1, 1, 1, 1], [1] * 6]
        lua = lambda rows: "{ " + ", ".join("{ " + ", ".join(map(str, r)) + " }" for r in rows) + " }"
        recipe = f"""local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local t = torch.randint(1, 64, {{16, 12}})
return {{
  args = {{ output_dir = "out", max_steps = 4, per_device_train_batch_size = 4, learning_rate = 1e-3, report_to = "none",
           do_predict = true, predict_with_generate = true, generation_max_length = 14, save_strategy = "no",
           per_device_eval_batch_size = 2 }},
  datasets = {{ train = data.tensors{{ input_ids = t, labels = t }},
               test = data.tensors{{ input_ids = torch.tensor{lua(prompts)}, attention_mask = torch.tensor{lua(masks)},
                                    labels = torch.tensor{lua(prompts)} }} }},
  model = models.gpt{{ vocab_size = 64, block_size = 16, n_layer = 2, n_head = 2, n_embd = 32 }},
}}
"""
        with TempDir() as d:
            write(os.path.join(d, "train.lua"), recipe)
            code, _, err = run(os.path.join(d, "train.lua"), "--output_dir", "one", cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            p = subprocess.run(["mpiexec", "-n", "2", BINARY, os.path.join(d, "train.lua"), "--output_dir", "two",
                                "--per_device_train_batch_size", "2", "--deepspeed",
                                '{"zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0}}'],
                               cwd=d, capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            one = read_safetensors(os.path.join(d, "one", "predictions.safetensors"))["predictions"]
            two = read_safetensors(os.path.join(d, "two", "predictions.safetensors"))["predictions"]
            self.assertEqual(one.shape, (4, 14))
            self.assertEqual(two.tolist(), one.tolist())
            hf = AutoModelForCausalLM.from_pretrained(os.path.join(d, "one")).eval()
            with torch.no_grad():
                want = hf.generate(input_ids=torch.tensor(prompts), attention_mask=torch.tensor(masks), max_length=14, do_sample=False,
                                   pad_token_id=hf.generation_config.eos_token_id)
            want = torch.nn.functional.pad(want, (0, 14 - want.shape[1]), value=hf.generation_config.eos_token_id)
            self.assertEqual(one.tolist(), want.tolist())

if __name__ == "__main__":
    unittest.main()
