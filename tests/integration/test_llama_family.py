"""The newer Llama-family members from a recipe, as a user meets them: Qwen 3 (model_type
"qwen3": Qwen3ForCausalLM, Llama's layer with an RMSNorm over each head's query and key and a
head_dim of its own) and Gemma 3 (model_type "gemma3_text": Gemma3ForCausalLM, with unit-offset
norms around attention and the MLP, √C-scaled embeddings, GELU gating, query_pre_attn_scalar
and the sliding layers' own rotation). models.llama{model_type = ...} trains, its folder loads
in transformers with runner's logits and generate() gives runner's ids (through the sliding
window); a transformers-written model loads with models.lora's default targets (peft's), and
peft loads the adapters runner trained with runner's logits. The per-layer logits and gradients
against transformers are test_llama_golden's cases; each member's sequence classifier, saved by
runner, loads in transformers as its *ForSequenceClassification with runner's logits. Exit 77
(skipped) without transformers and peft."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, read_safetensors, run, write  # noqa: E402

try:
    import torch
    import transformers
    from peft import PeftModel
    from transformers import (AutoModelForCausalLM, AutoModelForSequenceClassification, Gemma3ForCausalLM, Gemma3TextConfig,
                              Gemma3TextForSequenceClassification, Qwen3Config, Qwen3ForCausalLM, Qwen3ForSequenceClassification)
except ImportError as e:
    print(f"SKIP: transformers or peft not installed ({e}); scripts/setup installs them")
    sys.exit(77)

from test_llama import assert_generate_like_transformers  # noqa: E402
from test_lora import hf_logits, runner_logits  # noqa: E402

transformers.logging.set_verbosity_error()

ROWS = """
local text = string.rep("to be or not to be, that is the question. ", 40)
local ids = {}
for i = 1, #text do ids[i] = text:byte(i) % 64 end
local rows = {}
for r = 1, 64 do
  local row, start = {}, (r * 7) % (#ids - 16)
  for j = 1, 16 do row[j] = ids[start + j] end
  rows[r] = row
end
local t = torch.tensor(rows)
"""

# head_dim 16 on 32 / 4: both have heads wider than hidden_size / heads (Qwen3-0.6B: 1024 wide,
# 16 heads of 128; Gemma 3 1B: 1152 wide, 4 heads of 256).
MODELS = {
    "qwen3": "model_type = \"qwen3\"",
    # a window of 4 keys on layer 0 (sliding_window_pattern 2: layer 1 attends to all)
    "gemma3_text": "model_type = \"gemma3_text\", query_pre_attn_scalar = 12, sliding_window = 4, sliding_window_pattern = 2, pad_token_id = 0",
}

TRAIN = """
local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
""" + ROWS + """
return {
  args = { output_dir = "out", max_steps = 30, learning_rate = 3e-3, per_device_train_batch_size = 8,
           logging_steps = 5, save_strategy = "steps", save_steps = 30, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = t, labels = t } },
  model = models.llama{ MODEL_OPTIONS, vocab_size = 64, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,
                        num_attention_heads = 4, num_key_value_heads = 2, head_dim = 16, max_position_embeddings = 64,
                        tie_word_embeddings = true, eos_token_id = 63, bos_token_id = 1 },
}
"""

# models.lora with no target_modules: peft's default for qwen3 (q_proj, v_proj).
LORA = """
local data, models = require "runner.data", require "runner.models"
""" + ROWS + """
return {
  args = { output_dir = "adapters", max_steps = 12, learning_rate = 1e-2, per_device_train_batch_size = 8,
           logging_steps = 3, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = t, labels = t } },
  model = models.lora(models.from_pretrained("base"), { r = 4, alpha = 8 }),
}
"""


# A sequence classifier (num_labels = 3, scored at each row's last token that is not pad 0), a
# few steps on labels, saved; then its logits on right-padded rows, one JSON line per row.
CLASSIFY = """
local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.cat({ torch.randint(1, 64, {32, 8}), torch.zeros(32, 4, {dtype = "long"}) }, 1)  -- right padding with 0
return {
  args = { output_dir = "cls", max_steps = 4, learning_rate = 1e-2, per_device_train_batch_size = 8, report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = torch.randint(0, 3, {32}) } },
  model = models.llama{ MODEL_OPTIONS, vocab_size = 64, hidden_size = 32, intermediate_size = 64, num_hidden_layers = 2,
                        num_attention_heads = 4, num_key_value_heads = 2, head_dim = 16, max_position_embeddings = 64,
                        num_labels = 3, pad_token_id = 0 },
}
"""
CLASS_LOGITS = """
local models = require "runner.models"
local model = models.from_pretrained("cls")
local logits = model{ input_ids = torch.tensor{ { 5, 17, 40, 2, 33, 0, 0, 0 }, { 12, 9, 63, 8, 21, 44, 3, 30 } } }.logits
for b = 0, 1 do
  local row = {}
  for k = 0, 2 do row[#row + 1] = string.format("%.9g", logits:select(0, b):select(0, k):item()) end
  print("CLASSES [" .. table.concat(row, ",") .. "]")
end
return { datasets = { train = (require "runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

ARCHITECTURES = {"qwen3": Qwen3ForCausalLM, "gemma3_text": Gemma3ForCausalLM}
CLASSIFIERS = {"qwen3": Qwen3ForSequenceClassification, "gemma3_text": Gemma3TextForSequenceClassification}


def make_base(path, model_type):
    """A transformers model with its norms away from their initial values, so they count."""
    torch.manual_seed(0)
    sizes = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=16, max_position_embeddings=64, tie_word_embeddings=False)
    if model_type == "qwen3":
        model = Qwen3ForCausalLM(Qwen3Config(**sizes))
    else:
        model = Gemma3ForCausalLM(Gemma3TextConfig(**sizes, query_pre_attn_scalar=12, sliding_window=4, sliding_window_pattern=2))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(p + 0.3 * torch.randn_like(p))
    model.save_pretrained(path)


class LlamaFamilyRecipe(unittest.TestCase):
    def test_train_save_load_in_transformers_and_generate(self):
        for model_type, options in MODELS.items():
            with self.subTest(model_type), TempDir() as d:
                write(os.path.join(d, "train.lua"), TRAIN.replace("MODEL_OPTIONS", options))
                code, out, err = run(os.path.join(d, "train.lua"), cwd=d, timeout=600)
                self.assertEqual(code, 0, err[-3000:])
                with open(os.path.join(d, "out", "trainer_state.json")) as f:
                    losses = [e["loss"] for e in json.load(f)["log_history"] if "loss" in e]
                self.assertLess(losses[-1], 0.7 * losses[0], losses)
                with open(os.path.join(d, "out", "config.json")) as f:
                    config = json.load(f)
                architecture = ARCHITECTURES[model_type]
                self.assertEqual((config["architectures"], config["model_type"], config["head_dim"]), ([architecture.__name__], model_type, 16))
                weights = read_safetensors(os.path.join(d, "out", "model.safetensors"))
                self.assertEqual(weights["model.layers.1.self_attn.q_norm.weight"].shape, (16,))
                self.assertEqual(weights["model.layers.1.self_attn.q_proj.weight"].shape, (64, 32))

                model = AutoModelForCausalLM.from_pretrained(os.path.join(d, "out"), attn_implementation="eager").eval()
                self.assertIsInstance(model, architecture)
                torch.testing.assert_close(torch.from_numpy(runner_logits(d, "out")), torch.from_numpy(hf_logits(model)), rtol=1e-5, atol=1e-5)
                assert_generate_like_transformers(self, model, d, model_type)

    def test_sequence_classifier_loads_in_transformers_with_runners_logits(self):
        for model_type, options in MODELS.items():
            with self.subTest(model_type), TempDir() as d:
                write(os.path.join(d, "cls.lua"), CLASSIFY.replace("MODEL_OPTIONS", options))
                code, out, err = run(os.path.join(d, "cls.lua"), cwd=d, timeout=600)
                self.assertEqual(code, 0, err[-3000:])
                model = AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "cls")).eval()
                self.assertIsInstance(model, CLASSIFIERS[model_type])
                write(os.path.join(d, "logits.lua"), CLASS_LOGITS)
                code, out, err = run("check", os.path.join(d, "logits.lua"), cwd=d)
                self.assertEqual(code, 0, err[-3000:])
                got = [json.loads(m.group(1)) for m in re.finditer(r"CLASSES (\S+)$", err, re.M)]
                ids = torch.tensor([[5, 17, 40, 2, 33, 0, 0, 0], [12, 9, 63, 8, 21, 44, 3, 30]])
                with torch.no_grad():
                    expected = model(input_ids=ids).logits
                torch.testing.assert_close(torch.tensor(got), expected, rtol=1e-5, atol=1e-5)

    def test_lora_default_targets_on_a_transformers_model_load_in_peft(self):
        # Gemma's embed_tokens too: peft scales its branch by the embedding's √C as the layer's output
        runs = [(model_type, LORA, ["q_proj", "v_proj"]) for model_type in MODELS] + [
            ("gemma3_text", LORA.replace("{ r = 4, alpha = 8 }", "{ r = 4, alpha = 8, target_modules = { \"q_proj\", \"embed_tokens\" } }"),
             ["embed_tokens", "q_proj"])]
        for model_type, recipe, targets in runs:
            with self.subTest(f"{model_type} {targets}"), TempDir() as d:
                make_base(os.path.join(d, "base"), model_type)
                write(os.path.join(d, "lora.lua"), recipe)
                code, out, err = run(os.path.join(d, "lora.lua"), cwd=d, timeout=600)
                self.assertEqual(code, 0, err[-3000:])
                with open(os.path.join(d, "adapters", "adapter_config.json")) as f:
                    adapter = json.load(f)
                self.assertEqual(sorted(adapter["target_modules"]), targets)
                base = AutoModelForCausalLM.from_pretrained(os.path.join(d, "base"))
                peft_model = PeftModel.from_pretrained(base, os.path.join(d, "adapters"))
                lora_b = [p for n, p in peft_model.named_parameters() if "lora_B" in n]
                self.assertTrue(any(p.abs().max() > 0 for p in lora_b), "the adapters did not train")
                torch.testing.assert_close(torch.from_numpy(runner_logits(d, "adapters")), torch.from_numpy(hf_logits(peft_model)),
                                           rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    unittest.main()
