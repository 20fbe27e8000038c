"""ELECTRA folders, as the HF examples fine-tune google/electra-*-discriminator: an
ElectraForSequenceClassification and an ElectraForTokenClassification folder (embeddings
narrower than the encoder, projected by embeddings_project) give transformers' logits and loss;
an ElectraForPreTraining folder (a discriminator, as the Hub holds them) gets a new
dense → GELU → out_proj head, trains, and what the Trainer writes loads with
AutoModelForSequenceClassification with runner's logits; LoRA with peft's default targets for
ELECTRA (query, value) saves adapters peft loads onto that folder with runner's logits.
Exit 77 (skipped) without transformers."""
import json
import os
import re
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, read_safetensors, run, write  # noqa: E402

try:
    import torch
    import transformers
    from test_bert_folder import IDS, LOGITS, MASK, TYPES, lua_list
except ImportError as e:
    print(f"SKIP: transformers not installed ({e}); scripts/setup installs it")
    sys.exit(77)

transformers.logging.set_verbosity_error()


def electra_config(**kw):
    return transformers.ElectraConfig(vocab_size=64, embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=48, max_position_embeddings=16, type_vocab_size=2, **kw)


class ElectraFolder(unittest.TestCase):
    def runner_logits(self, d, folder, options=""):
        script = (LOGITS.replace("FOLDER", folder).replace("OPTIONS", options).replace("IDS", lua_list(IDS))
                  .replace("MASK", lua_list(MASK)).replace("TYPES", lua_list(TYPES)))
        code, out, err = run("check", write(os.path.join(d, "logits.lua"), script), cwd=d)
        self.assertEqual(code, 0, err[-3000:])
        text = out + err
        return np.array(json.loads(re.search(r"LOGITS (.*)$", text, re.M).group(1))), float(re.search(r"LOSS (\S+)", text).group(1))

    def hf_logits(self, model, labels=(1, 0)):
        with torch.no_grad():
            out = model(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK), token_type_ids=torch.tensor(TYPES),
                        labels=torch.tensor(labels))
        return out.logits.numpy(), float(out.loss)

    def test_sequence_and_token_classification_folders_give_transformers_logits(self):
        with TempDir() as d:
            torch.manual_seed(0)
            hf = transformers.ElectraForSequenceClassification(electra_config(num_labels=3, classifier_dropout=0.3)).eval()
            hf.save_pretrained(os.path.join(d, "cls"))
            self.assertIn("electra.embeddings_project.weight", read_safetensors(os.path.join(d, "cls", "model.safetensors")))
            logits, loss = self.runner_logits(d, "cls")
            want_logits, want_loss = self.hf_logits(hf)
            np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(loss, want_loss, places=5)

            # A config.json whose embedding_size is not positive is one line, exit 2.
            with open(os.path.join(d, "cls", "config.json")) as f:
                config = json.load(f)
            config["embedding_size"] = 0
            os.makedirs(os.path.join(d, "bad"))
            write(os.path.join(d, "bad", "config.json"), json.dumps(config))
            os.symlink(os.path.join(d, "cls", "model.safetensors"), os.path.join(d, "bad", "model.safetensors"))
            script = (LOGITS.replace("FOLDER", "bad").replace("OPTIONS", "").replace("IDS", lua_list(IDS))
                      .replace("MASK", lua_list(MASK)).replace("TYPES", lua_list(TYPES)))
            code, _, err = run("check", write(os.path.join(d, "bad.lua"), script), cwd=d)
            self.assertEqual(code, 2, err)
            self.assertIn("embedding_size must be > 0, got 0", err)

            labels = [[-100, 1, 2, 0, 2, -100, -100, -100], [-100, 0, 0, 1, -100, 2, 1, -100]]
            hf = transformers.ElectraForTokenClassification(electra_config(num_labels=3)).eval()
            hf.save_pretrained(os.path.join(d, "tok"))
            script = LOGITS.replace("labels = torch.tensor{ 1, 0 }", "labels = torch.tensor(LABELS)").replace("LABELS", lua_list(labels))
            script = script.replace("list(out.logits)", "list(out.logits:reshape{-1, 3})")
            script = (script.replace("FOLDER", "tok").replace("OPTIONS", "").replace("IDS", lua_list(IDS))
                      .replace("MASK", lua_list(MASK)).replace("TYPES", lua_list(TYPES)))
            code, out, err = run("check", write(os.path.join(d, "tok.lua"), script), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            logits = np.array(json.loads(re.search(r"LOGITS (.*)$", out + err, re.M).group(1)))
            want_logits, want_loss = self.hf_logits(hf, labels=labels)
            np.testing.assert_allclose(logits, want_logits.reshape(-1, 3), rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(float(re.search(r"LOSS (\S+)", out + err).group(1)), want_loss, places=5)

    def test_discriminator_folder_fine_tunes_and_loads_in_transformers_and_peft(self):
        try:
            import peft
        except ImportError:
            self.skipTest("peft is not installed")
        with TempDir() as d:
            torch.manual_seed(0)
            pre = transformers.ElectraForPreTraining(electra_config()).eval()
            pre.save_pretrained(os.path.join(d, "pre"))
            self.assertTrue(any(n.startswith("discriminator_predictions.") for n in read_safetensors(os.path.join(d, "pre", "model.safetensors"))))
            recipe = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(4, 64, {32, 8})
local model = models.from_pretrained("pre", { num_labels = 3 })
LORA
return {
  args = { output_dir = "OUT", max_steps = 6, learning_rate = 3e-3, per_device_train_batch_size = 8, report_to = "none", save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, attention_mask = torch.ones(32, 8):long(), labels = ids:select(1, 1):remainder(3) } },
  model = model,
}
"""
            code, out, err = run(write(os.path.join(d, "full.lua"), recipe.replace("LORA", "").replace("OUT", "full")), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            self.assertEqual(set(read_safetensors(os.path.join(d, "full", "model.safetensors"))),
                             set(transformers.ElectraForSequenceClassification(electra_config(num_labels=3)).state_dict()))
            hf = transformers.AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "full")).eval()
            self.assertEqual(type(hf).__name__, "ElectraForSequenceClassification")
            logits, loss = self.runner_logits(d, "full")
            want_logits, want_loss = self.hf_logits(hf)
            np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
            self.assertAlmostEqual(loss, want_loss, places=5)
            # The head trained: its logits are not the new head's.
            fresh, _ = self.runner_logits(d, "pre", ", { num_labels = 3 }")
            self.assertGreater(np.abs(logits - fresh).max(), 1e-3)

            lora = "model = models.lora(model, { r = 4, alpha = 8 })"
            code, out, err = run(write(os.path.join(d, "lora.lua"), recipe.replace("LORA", lora).replace("OUT", "lora")), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            with open(os.path.join(d, "lora", "adapter_config.json")) as f:
                self.assertEqual(sorted(json.load(f)["target_modules"]), ["query", "value"])
            base = transformers.ElectraForSequenceClassification.from_pretrained(os.path.join(d, "pre"), num_labels=3)
            model = peft.PeftModel.from_pretrained(base, os.path.join(d, "lora")).eval()
            logits, _ = self.runner_logits(d, "lora")
            with torch.no_grad():
                want = model(input_ids=torch.tensor(IDS), attention_mask=torch.tensor(MASK), token_type_ids=torch.tensor(TYPES)).logits
            np.testing.assert_allclose(logits, want.numpy(), rtol=1e-5, atol=1e-5)

    def test_encoder_classifier_builds_an_electra_transformers_reads(self):
        with TempDir() as d:
            recipe = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(0)
local ids = torch.randint(4, 64, {16, 8})
return {
  args = { output_dir = "out", max_steps = 2, per_device_train_batch_size = 8, report_to = "none", save_strategy = "no" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids:select(1, 1):remainder(2) } },
  model = models.encoder_classifier{ model_type = "electra", vocab_size = 64, hidden_size = 32, embedding_size = 16, n_layer = 2,
                                     n_head = 4, intermediate_size = 48, max_position_embeddings = 16 },
}
"""
            code, out, err = run(write(os.path.join(d, "new.lua"), recipe), cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            hf = transformers.AutoModelForSequenceClassification.from_pretrained(os.path.join(d, "out")).eval()
            self.assertEqual((type(hf).__name__, hf.config.embedding_size), ("ElectraForSequenceClassification", 16))
            logits, loss = self.runner_logits(d, "out")
            np.testing.assert_allclose(logits, self.hf_logits(hf)[0], rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    unittest.main()
