"""LoRA from a recipe, checked against the peft package: models.lora trains the adapters only
(the loss falls, the optimizer holds adapter state only), the output folder and every
checkpoint hold only adapter_model.safetensors + adapter_config.json, peft loads them onto the
same base model with the logits runner computes, runner loads peft-written adapters with the
logits peft computes, `runner merge-adapters` writes what peft's merge_and_unload gives, and a
resumed LoRA run ends bit-identical to an uninterrupted one. Exit 77 (skipped) without
transformers or peft."""
import json
import os
import re
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, read_safetensors, run, write  # noqa: E402

try:
    import numpy as np
    import torch
    import transformers
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM
except ImportError as e:
    print(f"SKIP: transformers or peft not installed ({e}); scripts/setup installs them")
    sys.exit(77)

transformers.logging.set_verbosity_error()

TARGETS = ["q_proj", "v_proj", "o_proj", "down_proj"]

TRAIN = """
local data, models = require "runner.data", require "runner.models"
local text = string.rep("to be or not to be, that is the question. ", 40)
local ids = {}
for i = 1, #text do ids[i] = text:byte(i) %% 64 end
local rows = {}
for r = 1, 48 do
  local row, start = {}, (r * 7) %% (#ids - 16)
  for j = 1, 16 do row[j] = ids[start + j] end
  rows[r] = row
end
local t = torch.tensor(rows)
local model = models.lora(models.from_pretrained("base"),
                          { r = 4, alpha = 8, dropout = 0.1, target_modules = { "q_proj", "v_proj", "o_proj", "down_proj" } })
return {
  args = { output_dir = "%s", max_steps = 12, learning_rate = 1e-2, per_device_train_batch_size = 8,
           logging_steps = 3, save_strategy = "steps", save_steps = 6, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = t, labels = t } },
  model = model,
}
"""

# The logits of a fixed batch, one JSON line per row, from a model folder (an adapter folder
# loads its base model and the adapters).
LOGITS = """
local data, models = require "runner.data", require "runner.models"
local model = models.from_pretrained("%s")
local ids = torch.tensor{ { 5, 17, 40, 2, 33, 9, 60, 1 }, { 12, 0, 63, 8, 21, 44, 3, 30 } }
local logits = model{ input_ids = ids }.logits
for b = 0, 1 do
  local row = {}
  for t = 0, 7 do
    local step = logits:select(0, b):select(0, t)
    for v = 0, 63 do row[#row + 1] = string.format("%%.9g", step:select(0, v):item()) end
  end
  print("LOGITS [" .. table.concat(row, ",") .. "]")
end
return { datasets = { train = data.tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

IDS = torch.tensor([[5, 17, 40, 2, 33, 9, 60, 1], [12, 0, 63, 8, 21, 44, 3, 30]])


def make_base(path):
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=False)
    LlamaForCausalLM(config).save_pretrained(path)


def hf_logits(model):
    model.eval()
    with torch.no_grad():
        return model(input_ids=IDS).logits.float().numpy()


def runner_logits(cwd, folder):
    write(os.path.join(cwd, "logits.lua"), LOGITS % folder)
    code, out, err = run("check", "logits.lua", cwd=cwd)
    rows = [json.loads(line.split("LOGITS ", 1)[1]) for line in err.splitlines() if "LOGITS [" in line]
    if code != 0 or len(rows) != 2:
        raise AssertionError(f"runner check logits.lua failed ({code}):\n{err[-3000:]}")
    return np.array(rows, dtype=np.float32).reshape(2, 8, 64)


class Lora(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir()
        cls.dir = cls.tmp.__enter__()
        make_base(os.path.join(cls.dir, "base"))
        write(os.path.join(cls.dir, "train.lua"), TRAIN % "out")
        cls.code, cls.out, cls.err = run("train.lua", cwd=cls.dir)
        assert cls.code == 0, cls.err[-3000:]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.__exit__(None, None, None)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def test_output_and_checkpoints_hold_only_the_adapters(self):
        for folder in ("out", "out/checkpoint-6", "out/checkpoint-12"):
            files = set(os.listdir(self.path(folder)))
            self.assertIn("adapter_model.safetensors", files, folder)
            self.assertIn("adapter_config.json", files, folder)
            self.assertNotIn("model.safetensors", files, folder)
            self.assertNotIn("config.json", files, folder)
            weights = read_safetensors(self.path(folder, "adapter_model.safetensors"))
            self.assertEqual(len(weights), 2 * 2 * len(TARGETS))  # A and B per adapted layer, 2 layers
            for name in weights:
                self.assertRegex(name, r"^base_model\.model\.model\.layers\.\d\.(self_attn|mlp)\.\w+_proj\.lora_[AB]\.weight$")
        with open(self.path("out", "adapter_config.json")) as f:
            config = json.load(f)
        self.assertEqual((config["peft_type"], config["r"], config["lora_alpha"], config["lora_dropout"]), ("LORA", 4, 8, 0.1))
        self.assertEqual(sorted(config["target_modules"]), sorted(TARGETS))
        self.assertEqual(config["base_model_name_or_path"], "base")
        # The optimizer's state covers the adapters only.
        optimizer = read_safetensors(self.path("out", "checkpoint-12", "optimizer.safetensors"))
        self.assertTrue(optimizer)
        for name in optimizer:
            self.assertIn(".lora_", name)

    def test_only_adapters_train_and_the_log_says_how_much_memory(self):
        with open(self.path("out", "trainer_state.json")) as f:
            history = json.load(f)["log_history"]
        losses = [h["loss"] for h in history if "loss" in h]
        self.assertLess(losses[-1], losses[0] - 0.05, losses)
        adapter = sum(v.size for v in read_safetensors(self.path("out", "adapter_model.safetensors")).values())
        log = self.out + self.err
        m = re.search(r"trainable params: (\d+) \|\| all params: (\d+) \|\| trainable%: ([\d.]+)", log)
        self.assertIsNotNone(m, log[-3000:])
        base = LlamaForCausalLM.from_pretrained(self.path("base"))
        self.assertEqual(int(m.group(1)), adapter)
        self.assertEqual(int(m.group(2)), adapter + sum(p.numel() for p in base.parameters()))
        # AdamW: exp_avg and exp_avg_sq in fp32 for each adapter element, nothing for the base.
        m = re.search(r"optimizer state = (\d+) bytes; frozen parameters = (\d+) bytes", log)
        self.assertIsNotNone(m, log[-3000:])
        self.assertEqual(int(m.group(1)), 2 * 4 * adapter)
        self.assertEqual(int(m.group(2)), 4 * sum(p.numel() for p in base.parameters()))

    def test_peft_loads_runner_adapters_with_runner_logits(self):
        base = AutoModelForCausalLM.from_pretrained(self.path("base"))
        base_logits = hf_logits(base)
        peft_model = PeftModel.from_pretrained(base, self.path("out"))
        expected = hf_logits(peft_model)
        got = runner_logits(self.dir, "out")
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
        self.assertGreater(np.abs(expected - base_logits).max(), 1e-3)  # the adapters changed the model

    def test_runner_loads_peft_written_adapters_with_peft_logits(self):
        base = AutoModelForCausalLM.from_pretrained(self.path("base"))
        torch.manual_seed(1)
        config = LoraConfig(r=2, lora_alpha=6, target_modules=["k_proj", "up_proj"], init_lora_weights=False, task_type="CAUSAL_LM")
        peft_model = get_peft_model(base, config)
        peft_model.save_pretrained(self.path("peft_adapters"))
        expected = hf_logits(peft_model)
        with open(self.path("peft_adapters", "adapter_config.json")) as f:
            saved = json.load(f)
        self.assertTrue(saved["base_model_name_or_path"].endswith("base"))
        np.testing.assert_allclose(runner_logits(self.dir, "peft_adapters"), expected, rtol=1e-5, atol=1e-5)
        # peft >= 0.14's exclude_modules, as a list (names or suffixes) and as a regular
        # expression (re.fullmatch): the excluded layers have no adapters (runner wanted them)
        for name, exclude in (("exclude_list", ["layers.0.self_attn.k_proj", "up_proj"]), ("exclude_regex", r".*\.1\..*")):
            with self.subTest(exclude=exclude):
                base = AutoModelForCausalLM.from_pretrained(self.path("base"))
                torch.manual_seed(2)
                config = LoraConfig(r=2, lora_alpha=6, target_modules=["k_proj", "up_proj", "q_proj"], exclude_modules=exclude,
                                    init_lora_weights=False, task_type="CAUSAL_LM")
                peft_model = get_peft_model(base, config)
                peft_model.save_pretrained(self.path(name))
                np.testing.assert_allclose(runner_logits(self.dir, name), hf_logits(peft_model), rtol=1e-5, atol=1e-5)

    def test_embedding_adapters_round_trip_with_peft(self):
        """LoRA on embed_tokens as peft's Embedding layer (lora_embedding_A (r, vocab) zeros,
        lora_embedding_B (hidden, r) normal, no dropout): runner trains it and peft loads it with
        runner's logits; runner loads peft's with peft's; merge-adapters equals merge_and_unload."""
        write(self.path("embed.lua"), (TRAIN % "embed_out").replace('{ "q_proj", "v_proj", "o_proj", "down_proj" }', '{ "embed_tokens", "q_proj" }')
              .replace("save_strategy = \"steps\", save_steps = 6", "save_strategy = \"no\""))
        code, out, err = run("embed.lua", cwd=self.dir)
        self.assertEqual(code, 0, err[-3000:])
        saved = read_safetensors(self.path("embed_out", "adapter_model.safetensors"))
        self.assertEqual(saved["base_model.model.model.embed_tokens.lora_embedding_A"].shape, (4, 64))
        self.assertEqual(saved["base_model.model.model.embed_tokens.lora_embedding_B"].shape, (32, 4))
        self.assertGreater(np.abs(saved["base_model.model.model.embed_tokens.lora_embedding_A"]).max(), 0)  # trained from zeros
        # peft's save_embedding_layers "auto": a targeted embed_tokens is saved whole beside its adapters
        np.testing.assert_array_equal(saved["base_model.model.model.embed_tokens.base_layer.weight"],
                                      read_safetensors(self.path("base", "model.safetensors"))["model.embed_tokens.weight"])
        base = AutoModelForCausalLM.from_pretrained(self.path("base"))
        peft_model = PeftModel.from_pretrained(base, self.path("embed_out"))
        np.testing.assert_allclose(runner_logits(self.dir, "embed_out"), hf_logits(peft_model), rtol=1e-5, atol=1e-5)
        code, _, err = run("merge-adapters", "embed_out", "embed_merged", cwd=self.dir)
        self.assertEqual(code, 0, err)
        want = peft_model.merge_and_unload().state_dict()
        got = read_safetensors(self.path("embed_merged", "model.safetensors"))
        np.testing.assert_allclose(got["model.embed_tokens.weight"], want["model.embed_tokens.weight"].numpy(), rtol=1e-6, atol=1e-6)
        torch.manual_seed(3)
        peft_model = get_peft_model(AutoModelForCausalLM.from_pretrained(self.path("base")),
                                    LoraConfig(r=2, lora_alpha=6, target_modules=["embed_tokens", "v_proj"], init_lora_weights=False, task_type="CAUSAL_LM"))
        peft_model.save_pretrained(self.path("peft_embed"))
        np.testing.assert_allclose(runner_logits(self.dir, "peft_embed"), hf_logits(peft_model), rtol=1e-5, atol=1e-5)

    def test_bf16_base_adds_the_branch_as_peft_does(self):
        """A bf16 base with peft's fp32 adapters, outside autocast: the branch is added to the
        layer's output in fp32 and the sum rounded once, as peft does (rounding the branch to
        bf16 first moved logits by ~4e-3)."""
        torch.manual_seed(0)
        config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=False)
        LlamaForCausalLM(config).to(torch.bfloat16).save_pretrained(self.path("base_bf16"))
        base = AutoModelForCausalLM.from_pretrained(self.path("base_bf16"), dtype=torch.bfloat16)
        torch.manual_seed(3)
        peft_model = get_peft_model(base, LoraConfig(r=4, lora_alpha=16, target_modules=["q_proj", "v_proj", "down_proj"],
                                                     init_lora_weights=False, task_type="CAUSAL_LM"))
        peft_model.save_pretrained(self.path("bf16_adapters"))
        np.testing.assert_allclose(runner_logits(self.dir, "bf16_adapters"), hf_logits(peft_model), rtol=1e-6, atol=1e-6)

    def test_every_option_and_default_loads_in_peft_with_runner_logits(self):
        # Each way of choosing and shaping the adapters, trained a few steps by runner, then
        # loaded by peft onto the base: peft must accept the adapter_config.json as written
        # and compute runner's logits.
        options = {
            "defaults": "{}",  # peft's default targets for Llama (q_proj, v_proj), r 8, alpha 8
            "all_linear": '{ target_modules = "all-linear" }',
            # A Python regular expression (peft: re.fullmatch), with a lookbehind that C++'s
            # ECMAScript std::regex does not have.
            "regex": [r'{ target_modules = ".*(?<=self_attn\\.)[qv]_proj" }', ["q_proj", "v_proj"]],
            "rslora": "{ r = 2, alpha = 6, use_rslora = true }",
            "random_b": "{ r = 4, init_lora_weights = false, dropout = 0.2 }",
            "gaussian": '{ init_lora_weights = "gaussian" }',  # peft's: A ~ N(0, 1/r), B zero
            "bf16_base": "{ target_modules = { \"k_proj\", \"up_proj\" } }",
            "exclude": '{ target_modules = "all-linear", exclude_modules = { "o_proj", "down_proj" } }',  # peft's exclude_modules
        }
        expected_targets = {"defaults": ["q_proj", "v_proj"], "all_linear": ["down_proj", "gate_proj", "k_proj", "o_proj", "q_proj", "up_proj", "v_proj"],
                            "rslora": ["q_proj", "v_proj"], "random_b": ["q_proj", "v_proj"], "bf16_base": ["k_proj", "up_proj"],
                            "gaussian": ["q_proj", "v_proj"], "exclude": ["gate_proj", "k_proj", "q_proj", "up_proj", "v_proj"]}
        for name, spec in options.items():
            with self.subTest(options=name):
                if isinstance(spec, list):
                    spec, expected_targets[name] = spec
                base = 'models.from_pretrained("base"):to("bfloat16")' if name == "bf16_base" else 'models.from_pretrained("base")'
                recipe = (TRAIN % f"opt_{name}").replace(
                    'models.lora(models.from_pretrained("base"),\n                          { r = 4, alpha = 8, dropout = 0.1, target_modules = { "q_proj", "v_proj", "o_proj", "down_proj" } })',
                    f"models.lora({base}, {spec})").replace("max_steps = 12", "max_steps = 3").replace('save_strategy = "steps"', 'save_strategy = "no"')
                self.assertIn(f"models.lora({base}", recipe)
                write(self.path(f"opt_{name}.lua"), recipe)
                code, _, err = run(f"opt_{name}.lua", cwd=self.dir)
                self.assertEqual(code, 0, err[-3000:])
                with open(self.path(f"opt_{name}", "adapter_config.json")) as f:
                    config = json.load(f)
                targets = config["target_modules"]
                self.assertEqual(sorted(targets) if isinstance(targets, list) else targets,
                                 expected_targets[name] if name != "regex" else r".*(?<=self_attn\.)[qv]_proj")
                with open(self.path(f"opt_{name}", "adapter_model.safetensors"), "rb") as f:
                    header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
                if name == "gaussian":
                    self.assertEqual(config["init_lora_weights"], "gaussian")
                # peft keeps adapters (and so their file) in fp32 on a bf16 base
                self.assertEqual({v["dtype"] for k, v in header.items() if k != "__metadata__"}, {"F32"})
                peft_model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(self.path("base")), self.path(f"opt_{name}"))
                adapted = sorted({n.rsplit(".", 1)[-1] for n, m in peft_model.named_modules() if hasattr(m, "lora_A") and len(m.lora_A)})
                self.assertEqual(adapted, sorted(expected_targets[name]))
                np.testing.assert_allclose(runner_logits(self.dir, f"opt_{name}"), hf_logits(peft_model), rtol=1e-5, atol=1e-5)

    def test_initialisations_that_rewrite_the_base_are_refused_by_name(self):
        bad = (TRAIN % "pissa").replace("target_modules = {", 'init_lora_weights = "pissa", target_modules = {')
        write(self.path("pissa.lua"), bad)
        code, _, err = run("check", "pissa.lua", cwd=self.dir)
        self.assertEqual(code, 2, err)
        self.assertIn('init_lora_weights = "pissa" is not implemented (it rewrites the base weights or needs data)', err)
        # adapters peft trained from a rewritten base cannot be loaded onto the original one
        shutil.copytree(self.path("out"), self.path("olora_out"))
        with open(self.path("olora_out", "adapter_config.json")) as f:
            config = json.load(f)
        config["init_lora_weights"] = "olora"
        with open(self.path("olora_out", "adapter_config.json"), "w") as f:
            json.dump(config, f)
        write(self.path("olora.lua"), LOGITS % "olora_out")
        code, _, err = run("check", "olora.lua", cwd=self.dir)
        self.assertEqual(code, 2, err)
        self.assertIn('"olora" adapters were trained on a rewritten base model', err)

    def test_a_tied_head_that_differs_from_the_embedding_is_refused(self):
        torch.manual_seed(2)
        config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                             num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=True)
        LlamaForCausalLM(config).save_pretrained(self.path("tied"))
        from safetensors.torch import load_file, save_file
        weights = load_file(self.path("tied", "model.safetensors"))
        weights["lm_head.weight"] = weights["model.embed_tokens.weight"] + 1.0
        save_file(weights, self.path("tied", "model.safetensors"), metadata={"format": "pt"})
        write(self.path("tied.lua"), LOGITS % "tied")
        code, _, err = run("check", "tied.lua", cwd=self.dir)
        self.assertEqual(code, 2, err[-2000:])
        self.assertIn("lm_head.weight differs from model.embed_tokens.weight, but config.json ties them (tie_word_embeddings = true)", err)
        weights["lm_head.weight"] = weights["model.embed_tokens.weight"].clone()  # the same values: fine
        save_file(weights, self.path("tied", "model.safetensors"), metadata={"format": "pt"})
        code, _, err = run("check", "tied.lua", cwd=self.dir)
        self.assertEqual(code, 0, err[-2000:])

    def test_merge_adapters_writes_what_peft_merges(self):
        code, out, err = run("merge-adapters", "out", "merged", cwd=self.dir)
        self.assertEqual(code, 0, err)
        self.assertIn("merged 8 LoRA layers", out)
        # the base folder's generation_config.json comes along (it has no tokenizer files)
        self.assertEqual(sorted(os.listdir(self.path("merged"))), ["config.json", "generation_config.json", "model.safetensors"])
        reference = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(self.path("base")), self.path("out")).merge_and_unload()
        want = {k: v.numpy() for k, v in reference.state_dict().items()}
        got = read_safetensors(self.path("merged", "model.safetensors"))
        self.assertEqual(set(got), set(want))
        for name in want:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-6, err_msg=name)
        merged = AutoModelForCausalLM.from_pretrained(self.path("merged"))
        np.testing.assert_allclose(hf_logits(merged), hf_logits(reference), rtol=1e-5, atol=1e-5)
        # An existing, non-empty folder is never overwritten.
        code, _, err = run("merge-adapters", "out", "merged", cwd=self.dir)
        self.assertEqual(code, 2, err)
        self.assertIn("exists and is not an empty folder", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_resume_is_bit_identical(self):
        os.makedirs(self.path("resumed"))
        shutil.copytree(self.path("out", "checkpoint-6"), self.path("resumed", "checkpoint-6"))
        write(self.path("train_resumed.lua"), TRAIN % "resumed")
        code, _, err = run("train_resumed.lua", "--resume_from_checkpoint", "true", cwd=self.dir)
        self.assertEqual(code, 0, err[-3000:])
        a = read_safetensors(self.path("out", "adapter_model.safetensors"))
        b = read_safetensors(self.path("resumed", "adapter_model.safetensors"))
        for name in a:
            self.assertTrue(np.array_equal(a[name], b[name]), name)

    def test_mistakes_are_one_clear_line(self):
        bad = (TRAIN % "bad").replace('"q_proj", "v_proj", "o_proj", "down_proj"', '"qkv_proj"')
        write(self.path("bad.lua"), bad)
        code, _, err = run("check", "bad.lua", cwd=self.dir)
        self.assertEqual(code, 2, err)
        self.assertIn('models.lora: target modules ["qkv_proj"] not found in the base model', err)
        # A LoRA run's checkpoint on a model without adapters says what it is.
        plain = (TRAIN % "plain").replace("local model = models.lora(models.from_pretrained(\"base\"),", "local model = (models.from_pretrained(\"base\")) or (")
        write(self.path("plain.lua"), plain)
        code, _, err = run("plain.lua", "--resume_from_checkpoint", self.path("out", "checkpoint-6"), "--output_dir", "plain", cwd=self.dir)
        self.assertEqual(code, 2, err[-2000:])
        self.assertIn("can't find a valid checkpoint", err)


if __name__ == "__main__":
    unittest.main()
