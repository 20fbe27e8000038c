"""Llama-family models from a recipe, as a user meets them: models.llama trains (the loss
falls), the output folder (model.safetensors + config.json) loads in transformers with the
same logits, models.from_pretrained reads it back, and model:generate in Lua gives
transformers' generate() ids (greedy and beam search). Exit 77 (skipped) without transformers."""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, read_safetensors, run, write  # noqa: E402

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
local text = string.rep("to be or not to be, that is the question. ", 40)
local ids = {}
for i = 1, #text do ids[i] = text:byte(i) % 64 end
local n, block = 64, 16
local rows = {}
for r = 1, n do
  local row, start = {}, (r * 7) % (#ids - block)
  for j = 1, block do row[j] = ids[start + j] end
  rows[r] = row
end
local t = torch.tensor(rows)
return {
  args = { output_dir = "out", max_steps = 30, learning_rate = 3e-3, per_device_train_batch_size = 8,
           logging_steps = 5, save_strategy = "steps", save_steps = 30, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = t, labels = t } },
  model = models.llama{ vocab_size = 64, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,
                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64,
                        tie_word_embeddings = true, eos_token_id = 63, bos_token_id = 1 },
}
"""

# Loads the trained folder and prints what model:generate gives, one JSON line per call.
GENERATE = """
local models = require "runner.models"
local model = models.from_pretrained("out")
local prompts = torch.tensor{ { 0, 0, 20, 15, 0, 2 }, { 52, 47, 32, 2, 15, 32 } }
local mask = torch.tensor{ { 0, 0, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1, 1 } }
for _, beams in ipairs{ 1, 3 } do
  local out = model:generate(prompts, { attention_mask = mask, max_new_tokens = 10, num_beams = beams, pad_token_id = 0 })
  local rows = {}
  for b = 0, out:size(0) - 1 do
    local row = {}
    for j = 0, out:size(1) - 1 do row[#row + 1] = out:select(0, b):select(0, j):item() end
    rows[#rows + 1] = "[" .. table.concat(row, ",") .. "]"
  end
  print("GENERATED " .. beams .. " [" .. table.concat(rows, ",") .. "]")
end
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""


def assert_generate_like_transformers(test, model, cwd, label=""):
    """GENERATE's ids (runner check in `cwd`, whose "out" folder `model` was loaded from) equal
    transformers' generate() on the same left-padded prompts, greedy and beam search."""
    write(os.path.join(cwd, "generate.lua"), GENERATE)
    code, out, err = run("check", os.path.join(cwd, "generate.lua"), cwd=cwd)
    test.assertEqual(code, 0, err[-3000:])
    # print() lines reach stderr with a time stamp: "[hh:mm:ss] GENERATED <beams> <ids>"
    got = {int(m.group(1)): json.loads(m.group(2)) for m in re.finditer(r"GENERATED (\d+) (.*)$", err, re.M)}
    prompts = torch.tensor([[0, 0, 20, 15, 0, 2], [52, 47, 32, 2, 15, 32]])
    mask = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
    for beams in (1, 3):
        with torch.no_grad():
            expected = model.generate(input_ids=prompts, attention_mask=mask, max_new_tokens=10, do_sample=False,
                                      num_beams=beams, pad_token_id=0)
        test.assertEqual(got[beams], expected.tolist(), f"{label} num_beams={beams}")


class LlamaRecipe(unittest.TestCase):
    def test_train_save_load_in_transformers_and_generate(self):
        with TempDir() as d:
            write(os.path.join(d, "train.lua"), TRAIN)
            code, out, err = run(os.path.join(d, "train.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "trainer_state.json")) as f:
                state = json.load(f)
            losses = [e["loss"] for e in state["log_history"] if "loss" in e]
            self.assertLess(losses[-1], 0.7 * losses[0], losses)
            for folder in ("out", "out/checkpoint-30"):
                with open(os.path.join(d, folder, "config.json")) as f:
                    config = json.load(f)
                self.assertEqual(config["architectures"], ["LlamaForCausalLM"])
                self.assertEqual(config["num_key_value_heads"], 2)

            # transformers loads runner's folder and computes runner's logits.
            model = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out"), attn_implementation="eager").eval()
            weights = read_safetensors(os.path.join(d, "out", "model.safetensors"))
            self.assertIn("model.layers.1.self_attn.k_proj.weight", weights)
            self.assertNotIn("lm_head.weight", weights)  # tied to embed_tokens: HF's files hold it once
            self.assertEqual((model.generation_config.bos_token_id, model.generation_config.eos_token_id), (1, 63))
            assert_generate_like_transformers(self, model, d)

    def test_runner_generate_command(self):
        """`runner generate` on the trained folder (its tokenizer.json) and on the recipe (its
        output_dir's weights): the text transformers' generate() gives, decoded."""
        from tokenizers import Tokenizer, decoders
        from tokenizers.models import BPE
        with TempDir() as d:
            write(os.path.join(d, "train.lua"), TRAIN.replace("max_steps = 30", "max_steps = 10"))
            code, out, err = run(os.path.join(d, "train.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            # 64 one-character tokens (printable ASCII from the space), no merges.
            tok = Tokenizer(BPE(vocab={chr(32 + i): i for i in range(64)}, merges=[]))
            tok.decoder = decoders.Fuse()
            tok.save(os.path.join(d, "out", "tokenizer.json"))
            model = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out"), attn_implementation="eager").eval()
            prompts = ["TO BE OR", "WHAT IS"]
            expected = []
            for p in prompts:
                ids = torch.tensor([tok.encode(p).ids])
                with torch.no_grad():
                    gen = model.generate(input_ids=ids, max_new_tokens=12, do_sample=False, num_beams=2)
                expected.append(p + tok.decode(gen[0, ids.shape[1]:].tolist()))
            for target in ("out", "train.lua"):
                code, out, err = run("generate", target, "--prompt", prompts[0], "--prompt", prompts[1], "--max_new_tokens", "12",
                                     "--num_beams", "2", "--tokenizer", os.path.join(d, "out", "tokenizer.json"), cwd=d)
                self.assertEqual(code, 0, err[-3000:])
                self.assertEqual(out, expected[0] + "\n\n" + expected[1] + "\n", target)
            code, out, err = run("generate", "out", "--prompt", "X", "--max_new_tokns", "3", cwd=d)
            self.assertEqual(code, 2)
            self.assertIn("did you mean 'max_new_tokens'", err)
            # --device: cuda:0 by default when a GPU is visible; the CPU asked for by name.
            code, out, err = run("generate", "out", "--prompt", prompts[0], "--max_new_tokens", "12", "--num_beams", "2",
                                 "--device", "cpu", cwd=d)
            self.assertEqual((code, out.split("\n")[0]), (0, expected[0]), err[-2000:])
            code, _, err = run("generate", "out", "--prompt", "X", "--device", "tpu", cwd=d)
            self.assertEqual(code, 2)
            self.assertIn("--device takes cpu, cuda or cuda:N, got \"tpu\"", err)
            if "GPU 0:" not in run("--version")[1]:
                code, _, err = run("generate", "out", "--prompt", "X", "--device", "cuda", cwd=d)
                self.assertEqual(code, 2)
                self.assertIn("--device cuda: no GPU is visible", err)

    def test_generation_config_json_drives_every_generation_path(self):
        """The folder's generation_config.json (several end tokens, max_new_tokens, a
        repetition penalty) is what transformers' generate() uses by default; runner generate,
        model:generate and predict_with_generate all start from it too, so all three stop where
        transformers stops. A setting runner does not implement is refused by name."""
        from tokenizers import Tokenizer, decoders
        from tokenizers.models import BPE
        with TempDir() as d:
            write(os.path.join(d, "train.lua"), TRAIN.replace("max_steps = 30", "max_steps = 10"))
            code, _, err = run(os.path.join(d, "train.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            folder = os.path.join(d, "out")
            tok = Tokenizer(BPE(vocab={chr(32 + i): i for i in range(64)}, merges=[]))
            tok.decoder = decoders.Fuse()
            tok.save(os.path.join(folder, "tokenizer.json"))
            prompt = [52, 47, 32, 2, 15, 32]
            model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
            with torch.no_grad():
                free = model.generate(input_ids=torch.tensor([prompt]), max_new_tokens=12, do_sample=False, repetition_penalty=2.0,
                                      eos_token_id=None, pad_token_id=0)[0, len(prompt):].tolist()
            # a second end token: the first new token the model had not produced before
            at = next(i for i in range(1, len(free)) if free[i] not in free[:i])
            stop = free[at]
            with open(os.path.join(folder, "generation_config.json"), "w") as f:
                json.dump({"eos_token_id": [63, stop], "pad_token_id": 0, "max_new_tokens": 12, "repetition_penalty": 2.0,
                           "do_sample": False, "transformers_version": transformers.__version__}, f)
            model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
            with torch.no_grad():
                expected = model.generate(input_ids=torch.tensor([prompt]))[0].tolist()  # the file's settings
            self.assertEqual(expected[len(prompt):], free[:at + 1])  # stopped at the second end token
            # runner generate: no generation flags at all
            code, out, err = run("generate", "out", "--prompt", tok.decode(prompt), cwd=d)
            self.assertEqual(code, 0, err[-2000:])
            self.assertEqual(out, tok.decode(expected) + "\n")
            # model:generate in Lua, without options
            script = GENERATE.replace("for _, beams in ipairs{ 1, 3 } do", "for _, beams in ipairs{ 1 } do").replace(
                "{ attention_mask = mask, max_new_tokens = 10, num_beams = beams, pad_token_id = 0 }", "{}").replace(
                "torch.tensor{ { 0, 0, 20, 15, 0, 2 }, { 52, 47, 32, 2, 15, 32 } }", f"torch.tensor{{ {{ {', '.join(map(str, prompt))} }} }}")
            write(os.path.join(d, "gen.lua"), script)
            code, _, err = run("check", "gen.lua", cwd=d)
            self.assertEqual(code, 0, err[-2000:])
            got = [json.loads(line.split("GENERATED 1 ", 1)[1]) for line in err.splitlines() if "GENERATED 1 [" in line]
            self.assertEqual(got, [[expected]])
            # predict_with_generate on a model read from the folder
            recipe = """local data, models = require "runner.data", require "runner.models"
return {
  args = { output_dir = "pred", do_train = false, do_predict = true, predict_with_generate = true, report_to = "none" },
  datasets = { test = data.tensors{ input_ids = torch.tensor{ { PROMPT } }, labels = torch.tensor{ { PROMPT } } } },
  model = models.from_pretrained("out"),
}
""".replace("PROMPT", ", ".join(map(str, prompt)))
            write(os.path.join(d, "pred.lua"), recipe)
            code, _, err = run("pred.lua", cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-2000:])
            preds = read_safetensors(os.path.join(d, "pred", "predictions.safetensors"))["predictions"]
            # padded to the prompt + max_new_tokens with the pad id, as Seq2SeqTrainer pads
            self.assertEqual(preds[0].tolist(), expected + [0] * (len(prompt) + 12 - len(expected)))
            # a logits processor runner does not have: refused, naming the file and key
            with open(os.path.join(folder, "generation_config.json"), "w") as f:
                json.dump({"eos_token_id": 63, "no_repeat_ngram_size": 3}, f)
            code, _, err = run("generate", "out", "--prompt", "abc", cwd=d)
            self.assertEqual(code, 2, err)
            self.assertIn('generation_config.json: "no_repeat_ngram_size": 3 is not implemented by runner\'s generation', err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_generate_lengths_and_options_follow_transformers(self):
        """model:generate's max_length (with the prompt) and repetition_penalty options, the
        default length (the prompt + 20, within max_position_embeddings), generation_config.json's
        "top_k": null (transformers 5: the default 50) and a prompt as long as max_length (an
        error in transformers: one line here) give what transformers' generate() gives."""
        config = transformers.LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=8,
                                          eos_token_id=None, bos_token_id=None, pad_token_id=0)
        prompt = [[5, 70, 80, 90, 100]]
        cases = [({"max_length": 9}, 0), ({"max_new_tokens": 10, "repetition_penalty": 1.3}, 0), ({}, 0),
                 ({"max_new_tokens": 6, "do_sample": True}, 3), ({"max_length": 5}, 0)]

        def lua(v):
            return ("true" if v else "false") if isinstance(v, bool) else repr(v)

        with TempDir() as d:
            torch.manual_seed(0)
            model = transformers.LlamaForCausalLM(config).eval()
            model.save_pretrained(os.path.join(d, "m"))
            with open(os.path.join(d, "m", "generation_config.json"), "w") as f:
                json.dump({"top_k": None, "pad_token_id": 0}, f)
            model = AutoModelForCausalLM.from_pretrained(os.path.join(d, "m")).eval()
            lines = ['local models = require "runner.models"', 'local m = models.from_pretrained("m")']
            for i, (options, seed) in enumerate(cases):
                table = "{ " + ", ".join(f"{k} = {lua(v)}" for k, v in options.items()) + " }"
                lines.append(f"torch.manual_seed({seed})")
                lines.append(f"local ok{i}, r{i} = pcall(function() return m:generate(torch.tensor{{ {{ 5, 70, 80, 90, 100 }} }}, {table}) end)")
                lines.append(f'print("CASE {i} " .. (ok{i} and "[" .. table.concat(r{i}:select(0, 0):tolist(), ",") .. "]" or tostring(r{i})))')
            lines.append('return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }')
            write(os.path.join(d, "gen.lua"), "\n".join(lines) + "\n")
            code, _, err = run("check", "gen.lua", cwd=d)
            self.assertEqual(code, 0, err[-2000:])
            got = {int(m.group(1)): m.group(2) for m in re.finditer(r"CASE (\d+) (.*)", err)}
            for i, (options, seed) in enumerate(cases):
                torch.manual_seed(seed)
                try:
                    with torch.no_grad():
                        expected = json.dumps(model.generate(torch.tensor(prompt), **options)[0].tolist()).replace(" ", "")
                except ValueError as e:
                    self.assertIn("max_length` is set to 5", str(e))
                    self.assertIn("generate: the prompt has 5 tokens but max_length is 5", got[i])
                    continue
                self.assertEqual(got[i], expected, options)
            self.assertEqual(len(json.loads(got[2])), 8)  # 3 new tokens: max_position_embeddings stops the default 20

    def test_from_pretrained_follows_the_checkpoint_dtype(self):
        """transformers v5 loads with dtype="auto": config.json's dtype, else the weights'.
        models.from_pretrained does the same ({dtype = ...} overrides), trains a bf16 model as
        HF's Trainer does, and writes config.json with the dtype it trained in."""
        probe = """local models = require "runner.models"
local m = models.from_pretrained("%s"%s)
print("DTYPE " .. m.model.embed_tokens.weight:dtype() .. " " .. m.model.rotary_emb.inv_freq:dtype())
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""
        with TempDir() as d:
            config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
            torch.manual_seed(0)
            transformers.LlamaForCausalLM(config).to(torch.bfloat16).save_pretrained(os.path.join(d, "bf16"))
            with open(os.path.join(d, "bf16", "config.json")) as f:
                self.assertEqual(json.load(f)["dtype"], "bfloat16")
            cases = {("bf16", ""): "bfloat16", ("bf16", ', { dtype = "float32" }'): "float32"}
            # the same folder without the config's dtype: the weights' dtype decides
            shutil.copytree(os.path.join(d, "bf16"), os.path.join(d, "bare"))
            with open(os.path.join(d, "bare", "config.json")) as f:
                bare = json.load(f)
            del bare["dtype"]
            with open(os.path.join(d, "bare", "config.json"), "w") as f:
                json.dump(bare, f)
            cases[("bare", "")] = "bfloat16"
            for (folder, options), want in cases.items():
                write(os.path.join(d, "probe.lua"), probe % (folder, options))
                code, _, err = run("check", "probe.lua", cwd=d)
                self.assertEqual(code, 0, err[-2000:])
                self.assertIn(f"DTYPE {want} float32", err, (folder, options))  # rotary frequencies stay fp32
            # A bf16 model trains in bf16 and its folder says so: transformers reads it back in bf16.
            recipe = TRAIN.replace("max_steps = 30", "max_steps = 3").replace(
                "model = models.llama{ vocab_size = 64, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,\n"
                "                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 64,\n"
                "                        tie_word_embeddings = true, eos_token_id = 63, bos_token_id = 1 },",
                'model = models.from_pretrained("bf16"),')
            self.assertIn('models.from_pretrained("bf16")', recipe)
            write(os.path.join(d, "train.lua"), recipe)
            code, _, err = run("train.lua", cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "config.json")) as f:
                self.assertEqual(json.load(f)["dtype"], "bfloat16")
            trained = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out"))
            self.assertEqual(trained.dtype, torch.bfloat16)
            write(os.path.join(d, "bad.lua"), probe % ("bf16", ', { dtype = "int8" }'))
            code, _, err = run("check", "bad.lua", cwd=d)
            self.assertEqual(code, 2, err)
            self.assertIn('from_pretrained: dtype "int8" is not one of auto, float32, bfloat16, float16, float64', err)

    def test_predict_with_generate(self):
        """predict_with_generate: predictions are transformers' generate() ids (prompt + new
        tokens, padded with the pad id to generation_max_length), compute_metrics gets them,
        and the loss still comes from the labels; generation_config replaces the model's
        generation config as Seq2SeqTrainer does, and the saved model carries it."""
        recipe = TRAIN.replace("max_steps = 30", "max_steps = 8").replace(
            "eos_token_id = 63, bos_token_id = 1 }", "eos_token_id = 63, bos_token_id = 1, pad_token_id = 0 }").replace(
            "datasets = { train = data.tensors{ input_ids = t, labels = t } },",
            """datasets = { train = data.tensors{ input_ids = t, labels = t },
                test = data.tensors{ input_ids = torch.tensor{ { 0, 0, 20, 15, 0, 2 }, { 52, 47, 32, 2, 15, 32 } },
                                     attention_mask = torch.tensor{ { 0, 0, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1, 1 } },
                                     labels = torch.tensor{ { -100, -100, 20, 15, 0, 2 }, { 52, 47, 32, 2, 15, 32 } } } },
  compute_metrics = function(p) return { gen_len = p.predictions:size(1) } end,""").replace(
            'report_to = "none" },', 'report_to = "none", do_predict = true, predict_with_generate = true,\n'
            '           generation_max_length = 14, generation_num_beams = 2, save_strategy = "no" },')
        with TempDir() as d:
            write(os.path.join(d, "train.lua"), recipe)
            code, out, err = run(os.path.join(d, "train.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "out", "test_results.json")) as f:
                results = json.load(f)
            self.assertEqual(results["test_gen_len"], 14)
            self.assertIn("test_loss", results)
            preds = read_safetensors(os.path.join(d, "out", "predictions.safetensors"))["predictions"]
            model = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out"), attn_implementation="eager").eval()
            prompts = torch.tensor([[0, 0, 20, 15, 0, 2], [52, 47, 32, 2, 15, 32]])
            mask = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
            with torch.no_grad():
                expected = model.generate(input_ids=prompts, attention_mask=mask, max_length=14, num_beams=2, do_sample=False)
            expected = torch.nn.functional.pad(expected, (0, 14 - expected.shape[1]), value=0)
            self.assertEqual(preds.tolist(), expected.tolist())

            # generation_config (Seq2SeqTrainingArguments'): a GenerationConfig transformers saved
            # replaces the model's; generation_num_beams still wins; the output carries it.
            gen_dir = os.path.join(d, "gen")
            transformers.GenerationConfig(max_new_tokens=4, num_beams=3, repetition_penalty=1.3, eos_token_id=63,
                                          pad_token_id=0).save_pretrained(gen_dir)
            with_config = recipe.replace("generation_max_length = 14, generation_num_beams = 2,",
                                         'generation_config = "gen", generation_num_beams = 2,').replace('"out"', '"out_gen"')
            self.assertIn('generation_config = "gen"', with_config)
            write(os.path.join(d, "gen.lua"), with_config)
            code, out, err = run(os.path.join(d, "gen.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            preds = read_safetensors(os.path.join(d, "out_gen", "predictions.safetensors"))["predictions"]
            model = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out_gen"), attn_implementation="eager").eval()
            loaded = transformers.GenerationConfig.from_pretrained(gen_dir)
            self.assertEqual((model.generation_config.max_new_tokens, model.generation_config.repetition_penalty), (4, 1.3))
            with torch.no_grad():
                expected = model.generate(input_ids=prompts, attention_mask=mask, generation_config=loaded, num_beams=2)
            expected = torch.nn.functional.pad(expected, (0, 10 - expected.shape[1]), value=0)  # prompt + 4: max_new_tokens wins
            self.assertEqual(preds.tolist(), expected.tolist())
            write(os.path.join(d, "missing.lua"), with_config.replace('generation_config = "gen"', 'generation_config = "nowhere"'))
            code, _, err = run(os.path.join(d, "missing.lua"), cwd=d, timeout=600)
            self.assertEqual(code, 2, err[-3000:])
            self.assertIn('args.generation_config: no such file or folder "nowhere"', err)

    def test_predict_with_generate_under_zero3_equals_one_process(self):
        """ZeRO-3 over two ranks: each rank generates for its slice of every evaluation batch
        from whole parameters (gathered for it), and the gathered predictions are one
        process's."""
        prompts = "{ { 0, 0, 20, 15, 0, 2 }, { 52, 47, 32, 2, 15, 32 }, { 0, 7, 8, 9, 10, 11 }, { 3, 4, 5, 6, 7, 8 }, { 0, 0, 0, 9, 9, 9 }, { 1, 2, 3, 4, 5, 6 } }"
        masks = "{ { 0, 0, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1, 1 }, { 0, 1, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1, 1 }, { 0, 0, 0, 1, 1, 1 }, { 1, 1, 1, 1, 1, 1 } }"
        recipe = TRAIN.replace("max_steps = 30", "max_steps = 4").replace(
            "eos_token_id = 63, bos_token_id = 1 }", "eos_token_id = 63, bos_token_id = 1, pad_token_id = 0 }").replace(
            "datasets = { train = data.tensors{ input_ids = t, labels = t } },",
            f"""datasets = {{ train = data.tensors{{ input_ids = t, labels = t }},
                test = data.tensors{{ input_ids = torch.tensor{prompts}, attention_mask = torch.tensor{masks},
                                     labels = torch.tensor{prompts} }} }},""").replace(
            'report_to = "none" },', 'report_to = "none", do_predict = true, predict_with_generate = true,\n'
            '           generation_max_length = 12, save_strategy = "no", per_device_eval_batch_size = 2 },')
        with TempDir() as d:
            write(os.path.join(d, "train.lua"), recipe)
            code, _, err = run(os.path.join(d, "train.lua"), "--output_dir", "one", cwd=d, timeout=600)
            self.assertEqual(code, 0, err[-3000:])
            p = subprocess.run(["mpiexec", "-n", "2", BINARY, os.path.join(d, "train.lua"), "--output_dir", "two",
                                "--per_device_train_batch_size", "4", "--deepspeed",
                                '{"zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0}}'],
                               cwd=d, capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            one = read_safetensors(os.path.join(d, "one", "predictions.safetensors"))["predictions"]
            two = read_safetensors(os.path.join(d, "two", "predictions.safetensors"))["predictions"]
            self.assertEqual(one.shape, (6, 12))
            self.assertEqual(two.tolist(), one.tolist())

    def test_predict_with_generate_refusals(self):
        with TempDir() as d:
            # A model that cannot generate.
            write(os.path.join(d, "mlp.lua"), 'return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(4, 1), '
                  'labels = torch.zeros(4, 1) } }, model = nn.Linear(1, 1), args = { output_dir = "mlp_out" } }\n')
            code, out, err = run(os.path.join(d, "mlp.lua"), "--predict_with_generate", "true", cwd=d)
            self.assertEqual(code, 2, err)
            self.assertIn("cannot generate", err)

    # TRAIN logging every step, 6 steps, no saves: what the fused/plain comparisons train.
    SHORT = TRAIN.replace("logging_steps = 5, save_strategy = \"steps\", save_steps = 30",
                          "logging_steps = 1, save_strategy = \"no\"").replace("max_steps = 30", "max_steps = 6")

    def train_both_ways(self, d, runs, loss_rtol):
        """Trains each (name, recipe, env) of `runs` (fused first, plain second) and checks the
        logged losses agree to loss_rtol and the final weights to 1e-4 relative; returns the weights."""
        losses, weights = {}, {}
        for name, recipe, env in runs:
            write(os.path.join(d, name + ".lua"), recipe)
            code, _, err = run(os.path.join(d, name + ".lua"), "--output_dir", name, cwd=d, timeout=600, env=env)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, name, "trainer_state.json")) as f:
                losses[name] = [e["loss"] for e in json.load(f)["log_history"] if "loss" in e]
            weights[name] = read_safetensors(os.path.join(d, name, "model.safetensors"))
        (fused, _, _), (plain, _, _) = runs
        self.assertEqual(len(losses[fused]), 6)
        for a, b in zip(losses[fused], losses[plain]):
            self.assertAlmostEqual(a, b, delta=loss_rtol * abs(b))
        for k, w in weights[plain].items():
            w = w.astype("float64")
            diff = float(abs(weights[fused][k].astype("float64") - w).max()) / max(1e-12, float(abs(w).max()))
            self.assertLess(diff, 1e-4, k)
        return weights[fused], weights[plain]

    def test_fused_loss_trains_like_the_plain_loss(self):
        # The default computes the training loss without logits (docs/models.md); the option
        # off keeps the plain path. Same logged losses and final weights, through the recipe.
        base = self.SHORT
        self.assertNotEqual(base, TRAIN)
        plain = base.replace("bos_token_id = 1 }", "bos_token_id = 1, fused_linear_cross_entropy = false }")
        self.assertNotEqual(plain, base)
        with TempDir() as d:
            self.train_both_ways(d, [("fused", base, None), ("plain", plain, None)], 1e-4)
            write(os.path.join(d, "bad.lua"), base.replace("bos_token_id = 1 }", "bos_token_id = 1, fused_linear_cross_entropy = 1 }"))
            code, _, err = run("check", os.path.join(d, "bad.lua"), cwd=d)
            self.assertEqual(code, 2, err)
            self.assertIn("fused_linear_cross_entropy must be true or false", err)

    def test_fused_kernels_train_like_the_plain_chains(self):
        # RMSNorm, SwiGLU and the rotary embeddings are runner's fused ops (runtime/kernels);
        # RUNNER_FUSED_KERNELS=0 runs HF's op chains instead. Same curve and weights up to float
        # rounding, with dropout in attention so the random streams must line up too.
        base = self.SHORT.replace("bos_token_id = 1 }", "bos_token_id = 1, attention_dropout = 0.1 }")
        self.assertNotEqual(base, self.SHORT)
        with TempDir() as d:
            fused, plain = self.train_both_ways(d, [("fused", base, None), ("plain", base, {"RUNNER_FUSED_KERNELS": "0"})], 1e-5)
            # ...and the switch did switch: the fused RMSNorm sums its rows in another order.
            self.assertTrue(any((fused[k] != w).any() for k, w in plain.items()))

    def test_bad_config_is_one_clear_line(self):
        with TempDir() as d:
            write(os.path.join(d, "r.lua"), 'local models = require "runner.models"\n'
                  'return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } },\n'
                  '  model = models.llama{ vocab_size = 8, hidden_size = 30, num_attention_heads = 4, num_hiden_layers = 1 } }\n')
            code, out, err = run("check", os.path.join(d, "r.lua"), cwd=d)
            self.assertEqual(code, 2, err)
            self.assertIn("unknown option 'num_hiden_layers'", err)
            self.assertIn("did you mean 'num_hidden_layers'", err)


if __name__ == "__main__":
    unittest.main()
