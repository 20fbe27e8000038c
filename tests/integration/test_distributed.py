"""Data-parallel training under `mpiexec`: DDP and ZeRO-1/2 (DeepSpeed and FSDP spellings)
train the GPT and the MLP to the weights of single-process training with the same global
batch (also with gradient accumulation and an uneven last batch over 3 ranks); per-rank
model-state bytes follow the ZeRO formulas. Resuming on another world size:
test_distributed_resume.py; edge cases and failures on one rank: test_distributed_edges.py."""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, read_safetensors, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

MLP = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(1)
return {
  args = { max_steps = 6, per_device_train_batch_size = 4, learning_rate = 0.02, weight_decay = 0.1,
           warmup_steps = 2, logging_steps = 1, save_strategy = "no", report_to = "none" },
  datasets = { train = data.synthetic.classification{n = 50, features = 6, classes = 3, seed = 2} },
  model = models.mlp{sizes = {6, 16, 3}, input = "x"},
}
"""

GPT = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(1)
local ids = torch.randint(0, 32, {50, 8})
return {
  args = { max_steps = 6, per_device_train_batch_size = 4, learning_rate = 0.01, weight_decay = 0.1,
           warmup_steps = 2, logging_steps = 1, save_strategy = "no", report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  -- No biases: the key bias of attention has an exactly-zero gradient (softmax ignores a
  -- per-row constant), so Adam would turn its rounding noise into full-size updates that
  -- differ with any change of summation order.
  model = models.gpt{vocab_size = 32, block_size = 8, n_layer = 2, n_head = 2, n_embd = 16, bias = false},
}
"""

LLAMA = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(1)
local ids = torch.randint(0, 32, {50, 8})
return {
  args = { max_steps = 6, per_device_train_batch_size = 4, learning_rate = 0.01, weight_decay = 0.1,
           warmup_steps = 2, logging_steps = 1, save_strategy = "no", report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.llama{vocab_size = 32, hidden_size = 16, intermediate_size = 24, num_hidden_layers = 2,
                       num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 16},
}
"""

# A Lua model whose second head runs only for batches routed to it (the route masks it per
# example, so one process computes the same sums). Read in order (2 ranks x 4 = a block of 8),
# block 0 reaches it on both ranks, blocks 1 and 3 on rank 0 only, the rest on neither: a rank
# then has no gradient for it in a window after one where it had.
BRANCHY = """local data = require "runner.data"
torch.manual_seed(1)
-- 48 examples in blocks of 8 (one global batch of 2 ranks × 4, read in order): the second
-- head serves blocks 0 and 3 only, so with gradient accumulation 2 its gradient comes from a
-- window's first micro-step, its second, or neither, and without accumulation from every
-- third window.
local rows = {}
for i = 0, 47 do
  local block = math.floor(i / 8)
  rows[#rows + 1] = { x = { math.sin(i * 0.7), math.cos(i * 1.3), math.sin(i * 0.11 + 1), math.cos(i * 0.5), (i % 5) / 5, 1 - (i % 7) / 7 },
                      labels = i % 3, route = { (block == 0 or (i % 8 < 4 and (block == 1 or block == 3))) and 1 or 0 } }
end
return {
  args = { max_steps = 6, per_device_train_batch_size = 4, learning_rate = 0.02, weight_decay = 0.1, warmup_steps = 2,
           logging_steps = 1, save_strategy = "no", report_to = "none", train_sampling_strategy = "sequential" },
  datasets = { train = data.table(rows) },
  model = nn.Module{
    name = "Branchy",
    a = nn.Linear(6, 3), b = nn.Linear(6, 3),
    forward = function(self, batch)
      local logits = self.a(batch.x)
      if batch.route:sum():item() > 0 then logits = logits + self.b(batch.x) * batch.route end
      return { logits = logits, loss = F.cross_entropy(logits, batch.labels) }
    end,
  },
}
"""

# LoRA: frozen base weights beside trainable adapters (units then mix both).
LORA = LLAMA.replace("model = models.llama{", "model = models.lora(models.llama{").replace(
    "max_position_embeddings = 16},", "max_position_embeddings = 16}, {r = 4, alpha = 8, target_modules = \"all-linear\"}),")

MODES = {
    "ddp": [],
    "zero1": ["--deepspeed", '{"zero_optimization": {"stage": 1}}'],
    "zero2": ["--deepspeed", '{"zero_optimization": {"stage": 2, "reduce_bucket_size": 300}}'],
    "fsdp_shard_grad_op": ["--fsdp", "shard_grad_op"],
    "zero3": ["--deepspeed", '{"zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0}}'],
    "fsdp_full_shard": ["--fsdp", "full_shard"],
    # the optimizer's state and step in host memory (on the CPU: the same copies, same results)
    "zero2_offload": ["--deepspeed", '{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}'],
    "fsdp_full_shard_offload": ["--fsdp", "full_shard offload"],
    "zero3_offload": ["--deepspeed", '{"zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0, '
                                     '"offload_param": {"device": "cpu"}, "offload_optimizer": {"device": "cpu"}}}'],
    # every Linear its own unit (the MLP has no repeated layer class to wrap by default)
    "fsdp_full_shard_linear": ["--fsdp", "full_shard auto_wrap", "--fsdp_config", '{"transformer_layer_cls_to_wrap": ["Linear"]}'],
}


def read_text(path):
    with open(path) as f:
        return f.read()


def load_json(path):
    with open(path) as f:
        return json.load(f)


def launch(n, *args, timeout=300, env=None):
    cmd = [BINARY, *args] if n == 1 else [MPIEXEC, "-n", str(n), BINARY, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


def trainable_params(stdout):
    for line in stdout.splitlines():
        if "Number of trainable parameters = " in line:
            return int(line.rsplit("=", 1)[1])
    raise AssertionError("no parameter count in the log")


class DistributedCase(unittest.TestCase):
    """A temporary folder with the recipes above, and the runs and comparisons the
    data-parallel tests share (this file's and test_distributed_edges.py's)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir().__enter__()
        cls.recipes = {"mlp": write(os.path.join(cls.tmp, "mlp.lua"), MLP), "gpt": write(os.path.join(cls.tmp, "gpt.lua"), GPT),
                       "llama": write(os.path.join(cls.tmp, "llama.lua"), LLAMA), "lora": write(os.path.join(cls.tmp, "lora.lua"), LORA),
                       "branchy": write(os.path.join(cls.tmp, "branchy.lua"), BRANCHY)}
        cls.single = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def train(self, n, model, name, batch, ga=1, extra=()):
        out = os.path.join(self.tmp, name)
        code, stdout, err = launch(n, self.recipes[model], "--output_dir", out, "--per_device_train_batch_size", str(batch),
                                   "--gradient_accumulation_steps", str(ga), *extra)
        self.assertEqual(code, 0, f"{name}: {err[-3000:]}")
        return out, stdout

    def reference(self, model, global_batch, ga):
        key = (model, global_batch, ga)
        if key not in self.single:
            self.single[key] = self.train(1, model, f"single_{model}_{global_batch}_{ga}", global_batch, ga)[0]
        return self.single[key]

    def assert_same_weights(self, a_dir, b_dir, rtol=1e-5, atol=1e-6, file="model.safetensors"):
        a = read_safetensors(os.path.join(a_dir, file))
        b = read_safetensors(os.path.join(b_dir, file))
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)


class Distributed(DistributedCase):
    def test_every_mode_matches_single_process(self):
        for model in ("mlp", "gpt"):
            for mode, extra in MODES.items():
                if mode == "fsdp_full_shard_linear" and model == "gpt":
                    continue
                for n, ga in ((2, 1), (2, 2), (3, 1)):
                    with self.subTest(model=model, mode=mode, ranks=n, ga=ga):
                        out, _ = self.train(n, model, f"{model}_{mode}_{n}_{ga}", 4, ga, extra)
                        self.assert_same_weights(out, self.reference(model, 4 * n, ga))

    def test_parameters_a_rank_does_not_reach_match_single_process(self):
        # DDP and ZeRO-1 write each window's first gradient into the flat buffer instead of
        # adding it to zeros; a slot no gradient reached holds the last window's reduced values
        # and must be zeroed before its bucket is reduced (else the other rank sums them in).
        for mode in ("ddp", "zero1", "zero2", "zero3"):
            for ga in (1, 2):
                with self.subTest(mode=mode, ga=ga):
                    out, _ = self.train(2, "branchy", f"branchy_{mode}_{ga}", 4, ga, MODES[mode])
                    self.assert_same_weights(out, self.reference("branchy", 8, ga))

    def test_gradient_checkpointing_matches_single_process_under_ddp_and_zero3(self):
        # Recomputing each GPT2Block in backward changes where activations live, not the
        # numbers: every mode, checkpointed, equals single-process training without it.
        for mode, extra in (("ddp", ["--gradient_checkpointing", "true"]),
                            ("zero3", MODES["zero3"] + ["--gradient_checkpointing", "true"]),
                            ("fsdp", ["--fsdp", "full_shard", "--fsdp_config", '{"activation_checkpointing": true}'])):
            with self.subTest(mode=mode):
                out, stdout = self.train(2, "gpt", f"gpt_ckpt_{mode}", 4, 1, extra)
                self.assertIn("Gradient checkpointing: 2 modules", stdout)
                self.assert_same_weights(out, self.reference("gpt", 8, 1))

    def test_llama_matches_single_process_in_every_sharding_family(self):
        # The Llama decoder's units are its LlamaDecoderLayers (grouped-query attention, rotary
        # embeddings); the embedding, final norm and head stay in the root unit.
        for mode in ("ddp", "zero2", "zero3", "fsdp_full_shard"):
            with self.subTest(mode=mode):
                out, _ = self.train(2, "llama", f"llama_{mode}", 4, 1, MODES[mode])
                self.assert_same_weights(out, self.reference("llama", 8, 1))
        out, stdout = self.train(2, "llama", "llama_zero3_ckpt", 4, 1, MODES["zero3"] + ["--gradient_checkpointing", "true"])
        self.assertIn("Gradient checkpointing: 2 modules", stdout)
        self.assert_same_weights(out, self.reference("llama", 8, 1))

    def test_lora_matches_single_process_in_every_sharding_family(self):
        # Only the adapters train (and are saved); under ZeRO-3 the adapters and the frozen
        # base weights are both sharded (the base in units of its own that are never reduced).
        reference = self.reference("lora", 8, 1)
        self.assertEqual(len(read_safetensors(os.path.join(reference, "adapter_model.safetensors"))), 2 * 2 * 7)
        frozen = {}
        for mode in ("ddp", "zero2", "zero3"):
            with self.subTest(mode=mode):
                out, stdout = self.train(2, "lora", f"lora_{mode}", 4, 1, MODES[mode])
                self.assertFalse(os.path.exists(os.path.join(out, "model.safetensors")))
                self.assert_same_weights(out, reference, file="adapter_model.safetensors")
                frozen[mode] = int(re.search(r"frozen parameters = (\d+) bytes", stdout).group(1))
        self.assertEqual(frozen["ddp"], frozen["zero2"])  # whole on every rank
        self.assertLessEqual(frozen["zero3"], frozen["ddp"] // 2 + 64)  # rank 0's half (chunks pad to 2)
        out, _ = self.train(2, "lora", "lora_zero3_ckpt", 4, 1, MODES["zero3"] + ["--gradient_checkpointing", "true"])
        self.assert_same_weights(out, reference, file="adapter_model.safetensors")
        # Under bf16 autocast the branch is one addmm on B's weight inside its layer's unit, or
        # peft's way where B is a unit of its own (FSDP's min_num_params 10): the curve of one
        # process, to bf16 rounding (AdamW at lr 0.01 moves weights by more than that).
        def losses(out):
            return [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
        single, _ = self.train(1, "lora", "lora_single_bf16", 8, 1, ["--bf16"])
        for name, extra in (("zero3", MODES["zero3"]),
                            ("fsdp_leaf_units", ["--fsdp", "full_shard auto_wrap", "--fsdp_config", '{"min_num_params": 10}'])):
            with self.subTest(bf16=name):
                out, _ = self.train(2, "lora", f"lora_{name}_bf16", 4, 1, extra + ["--bf16"])
                np.testing.assert_allclose(losses(out), losses(single), rtol=2e-3)

    def test_from_pretrained_under_zero3_reads_only_each_ranks_shards(self):
        # A model folder written by a first run; models.from_pretrained leaves the weights in
        # the files, and under ZeRO-3 each rank reads only its chunks of every unit: the
        # ranks' reads add up to the model once, and training equals one process's.
        folder, _ = self.train(1, "llama", "pretrained_source", 4, 1, ["--max_steps", "1"])
        load = LLAMA[:LLAMA.index("  model = models.llama{")] + f"  model = models.from_pretrained({json.dumps(folder)}),\n}}\n"
        self.recipes["pretrained"] = write(os.path.join(self.tmp, "pretrained.lua"), load)
        self.recipes["pretrained_lora"] = write(os.path.join(self.tmp, "pretrained_lora.lua"), load.replace(
            "models.from_pretrained(", "models.lora(models.from_pretrained(").replace(
            "),\n}", "), {r = 4, alpha = 8, target_modules = \"all-linear\"}),\n}"))
        single, stdout = self.train(1, "pretrained", "pretrained_single", 8)
        whole = re.search(r"Read (\d+) of the model's (\d+) parameter values", stdout)
        self.assertIsNotNone(whole, stdout)
        self.assertEqual(whole.group(1), whole.group(2))  # one process: every value, once
        out, stdout = self.train(2, "pretrained", "pretrained_zero3", 4, 1, MODES["zero3"] + ["--log_level_replica", "info"])
        self.assert_same_weights(out, single)
        reads = {}
        for line in stdout.splitlines():
            if "parameter values from its files on this rank" in line:
                words = line.split("Read ", 1)[1].split()
                reads[" rank 1]" in line] = (int(words[0]), int(words[4]))
        self.assertEqual(len(reads), 2, stdout)
        total = reads[False][1]
        self.assertEqual(reads[False][0] + reads[True][0], total)
        for rank_read, _ in reads.values():
            self.assertLess(rank_read, 0.6 * total)
        # Recipe code that uses the model on one rank only (rank 0 reads its state dict) loads
        # it there whole: the ranks still agree on what to broadcast and train alike.
        # Each rank prints the bytes it moved from its own final log event (the metrics table is
        # rank 0's only, as HF's log_metrics).
        early = (LLAMA[:LLAMA.index("return {")] + f"local m = models.from_pretrained({json.dumps(folder)})\n"
                 "if require(\"runner.dist\").is_main_process then m:state_dict() end\n"
                 + LLAMA[LLAMA.index("return {"):LLAMA.index("  model = models.llama{")] + "  model = m,\n"
                 "  callbacks = { { on_log = function(args, state, control, logs)\n"
                 "    if logs.train_comm_bytes then print(\"moved rank \" .. require(\"runner.dist\").rank .. \" \" .. logs.train_comm_bytes) end\n"
                 "  end } },\n}\n")
        self.recipes["pretrained_early"] = write(os.path.join(self.tmp, "pretrained_early.lua"), early)
        for mode in ("ddp", "zero3"):
            with self.subTest(mode=mode):
                out, stdout = self.train(2, "pretrained_early", f"pretrained_early_{mode}", 4, 1, MODES[mode] + ["--log_level_replica", "info"])
                self.assert_same_weights(out, single)
                # Both ranks took part in the same collectives (a broadcast rank 1 skipped would
                # show as bytes only rank 0 moved).
                moved = re.findall(r"moved rank (\d) ([\d.]+)", stdout)
                self.assertEqual(len(moved), 2, stdout[-2000:])
                self.assertEqual(moved[0][1], moved[1][1], moved)
        # LoRA: the frozen base is sharded too, and read shard by shard.
        lora_single, _ = self.train(1, "pretrained_lora", "pretrained_lora_single", 8)
        out, stdout = self.train(2, "pretrained_lora", "pretrained_lora_zero3", 4, 1, MODES["zero3"] + ["--log_level_replica", "info"])
        self.assert_same_weights(out, lora_single, file="adapter_model.safetensors")
        reads = [int(line.split("Read ", 1)[1].split()[0]) for line in stdout.splitlines() if "parameter values from its files" in line]
        self.assertEqual(sorted(reads), sorted([reads[0], total - reads[0]]), stdout)
        self.assertLess(max(reads), 0.6 * total)

    def test_logged_loss_is_the_global_loss(self):
        single = self.reference("mlp", 8, 1)
        out, _ = self.train(2, "mlp", "mlp_loss_ddp", 4)
        hist = lambda d: [e["loss"] for e in load_json(os.path.join(d, "trainer_state.json"))["log_history"] if "loss" in e]
        np.testing.assert_allclose(hist(out), hist(single), rtol=1e-4)

    def test_recipe_prints_while_loading_carry_the_rank(self):
        recipe = write(os.path.join(self.tmp, "printing.lua"), 'print("hello from the recipe")\n' + MLP)
        code, stdout, err = launch(2, recipe, "--output_dir", os.path.join(self.tmp, "printing"), "--max_steps", "1")
        self.assertEqual(code, 0, err)
        lines = [l for l in stdout.splitlines() if "hello from the recipe" in l]
        self.assertEqual(len(lines), 2, stdout)
        self.assertEqual(sorted(" rank 0]" in l for l in lines), [False, True])
        self.assertTrue(all(" rank " in l for l in lines), lines)

    def test_replicas_log_at_log_level_replica(self):
        _, quiet = self.train(2, "mlp", "log_default", 4)
        self.assertIn(" rank 0]", quiet)
        self.assertNotIn(" rank 1]", quiet)  # replicas log at "warning" by default
        _, loud = self.train(2, "mlp", "log_info", 4, 1, ["--log_level_replica", "info"])
        self.assertIn(" rank 1]", loud)

    def test_model_state_bytes_follow_the_zero_formulas(self):
        # fp32 AdamW: parameters 4Ψ, gradients 4Ψ, exp_avg + exp_avg_sq 8Ψ.
        n = 2
        formulas = {"ddp": lambda p: 16 * p, "zero1": lambda p: 8 * p + 8 * p / n, "zero2": lambda p: 4 * p + 12 * p / n,
                    "zero3": lambda p: 16 * p / n}
        for mode, formula in formulas.items():
            with self.subTest(mode=mode):
                out, stdout = self.train(n, "gpt", f"mem_{mode}", 4, 1, MODES[mode])
                psi = trainable_params(stdout)
                measured = load_json(os.path.join(out, "train_results.json"))["model_state_bytes"]
                self.assertLess(abs(measured - formula(psi)) / formula(psi), 0.10, f"{mode}: {measured} vs {formula(psi)}")

    def test_evaluation_is_split_across_ranks_and_gathered_in_order(self):
        # Each rank evaluates its slice of every global batch; losses, metrics and predictions
        # are gathered back in dataset order and equal one process's, bit for bit. 18
        # examples, batch 4: 1 process runs 5 batches; 2 ranks 3 and 2 (rank 1's slice of
        # the last global batch is empty); 3 ranks 2, 2 and 1. ZeRO-3 (parameters gathered
        # inside forward) makes the rank without a batch join with a stand-in forward.
        recipe = write(os.path.join(self.tmp, "eval.lua"), """local data = require "runner.data"
local models = require "runner.models"
local dist = require "runner.dist"
torch.manual_seed(1)
local steps = 0
local function set(seed) return data.synthetic.classification{n = 18, features = 6, classes = 3, seed = seed} end
return {
  args = { do_train = false, do_eval = true, do_predict = true, per_device_eval_batch_size = 4, report_to = "none" },
  datasets = { train = set(2), eval = set(2), test = set(3) },
  model = models.mlp{sizes = {6, 16, 3}, input = "x"},
  compute_metrics = function(p)
    return { accuracy = p.predictions:argmax(-1):eq(p.label_ids):double():mean():item(), n = p.label_ids:size(0) }
  end,
  callbacks = { { on_prediction_step = function() steps = steps + 1 end,
                  on_evaluate = function() print(("rank %d ran %d prediction steps"):format(dist.rank, steps)) end } },
}
""")
        env = dict(os.environ, OMP_NUM_THREADS="1")  # one thread everywhere: comparable to the bit
        expected_steps = {1: [5], 2: [3, 2], 3: [2, 2, 1]}
        ref = None
        for n, extra in ((1, []), (2, []), (3, []), (2, MODES["zero3"]), (3, MODES["zero3"])):
            with self.subTest(ranks=n, zero3=bool(extra)):
                out = os.path.join(self.tmp, f"eval_{n}_{len(extra)}")
                code, stdout, err = launch(n, recipe, "--output_dir", out, "--log_level_replica", "info", *extra, env=env)
                self.assertEqual(code, 0, err[-3000:])
                for rank, count in enumerate(expected_steps[n]):
                    self.assertIn(f"rank {rank} ran {count} prediction steps", stdout)
                results = {k: load_json(os.path.join(out, f"{k}_results.json")) for k in ("eval", "test")}
                predictions = read_safetensors(os.path.join(out, "predictions.safetensors"))
                for k in ("eval", "test"):
                    self.assertEqual(results[k][f"{k}_n"], 18)
                    for key in [key for key in results[k] if "runtime" in key or "per_second" in key]:
                        del results[k][key]
                if ref is None:
                    ref = (results, predictions)
                    continue
                self.assertEqual(results, ref[0])
                self.assertEqual(sorted(predictions), sorted(ref[1]))
                for k in predictions:
                    np.testing.assert_array_equal(predictions[k], ref[1][k], err_msg=k)

    def test_zero3_stays_sharded_after_training_and_loads_the_best_model(self):
        # After training ZeRO-3's parameters stay sharded (as DeepSpeed's do): the final
        # evaluation gathers a unit at a time, load_best_model_at_end loads a unit at a time
        # into the shards, and model.safetensors is written a unit at a time. With
        # greater_is_better the highest eval loss is "best": step 2's, not the last step's.
        recipe = write(os.path.join(self.tmp, "best.lua"), MLP.replace(
            "datasets = { train = data.synthetic.classification{n = 50, features = 6, classes = 3, seed = 2} },",
            "datasets = { train = data.synthetic.classification{n = 50, features = 6, classes = 3, seed = 2},\n"
            "               eval = data.synthetic.classification{n = 20, features = 6, classes = 3, seed = 3} },"))
        args = ["--per_device_train_batch_size", "4", "--eval_strategy", "steps", "--eval_steps", "2", "--save_strategy", "steps",
                "--save_steps", "2", "--load_best_model_at_end", "true", "--metric_for_best_model", "eval_loss",
                "--greater_is_better", "true", "--do_eval", "true"]
        single = os.path.join(self.tmp, "best_single")
        code, _, err = launch(1, recipe, "--output_dir", single, *args[:1], "8", *args[2:])
        self.assertEqual(code, 0, err[-3000:])
        sharded = os.path.join(self.tmp, "best_zero3")
        code, _, err = launch(2, recipe, "--output_dir", sharded, *args, *MODES["fsdp_full_shard_linear"])
        self.assertEqual(code, 0, err[-3000:])
        state = load_json(os.path.join(sharded, "trainer_state.json"))
        self.assertTrue(state["best_model_checkpoint"].endswith("checkpoint-2"), state["best_model_checkpoint"])
        best = read_safetensors(os.path.join(sharded, "checkpoint-2", "model.safetensors"))
        final = read_safetensors(os.path.join(sharded, "model.safetensors"))
        last = read_safetensors(os.path.join(sharded, "checkpoint-6", "model.safetensors"))
        for k in best:
            np.testing.assert_array_equal(final[k], best[k], err_msg=k)
        self.assertFalse(all(np.array_equal(last[k], best[k]) for k in best))
        self.assert_same_weights(sharded, single)
        a, b = (load_json(os.path.join(d, "eval_results.json")) for d in (sharded, single))
        self.assertAlmostEqual(a["eval_loss"], b["eval_loss"], places=5)

    def test_zero3_prefetches_the_next_units(self):
        # Prefetch changes when parameters arrive, never their values: every variant ends on
        # the same bits. train_results.json counts the unit gathers a prefetch had started.
        zero3 = {"stage": 3, "stage3_param_persistence_threshold": 0}
        variants = {
            "deepspeed": ["--deepspeed", json.dumps({"zero_optimization": zero3})],
            "deepspeed_off": ["--deepspeed", json.dumps({"zero_optimization": {**zero3, "stage3_prefetch_bucket_size": 0}})],
            "deepspeed_capped": ["--deepspeed", json.dumps({"zero_optimization": {**zero3, "stage3_max_live_parameters": 1}})],
            "fsdp": ["--fsdp", "full_shard"],  # backward_pre by default, as in PyTorch
            "fsdp_both": ["--fsdp", "full_shard", "--fsdp_config", '{"forward_prefetch": true}'],
            "fsdp_post": ["--fsdp", "full_shard", "--fsdp_config", '{"backward_prefetch": "backward_post"}'],
            "fsdp_none": ["--fsdp", "full_shard", "--fsdp_config", '{"backward_prefetch": "no_prefetch"}'],
        }
        counts, weights = {}, {}
        for name, extra in variants.items():
            out, _ = self.train(2, "gpt", f"prefetch_{name}", 4, 1, extra)
            r = load_json(os.path.join(out, "train_results.json"))
            counts[name] = (r["train_unit_gathers"], r["train_unit_gathers_prefetched"])
            weights[name] = read_safetensors(os.path.join(out, "model.safetensors"))
        for name in ("deepspeed_off", "deepspeed_capped", "fsdp_none"):
            self.assertEqual(counts[name][1], 0, name)
        for name in ("deepspeed", "fsdp", "fsdp_both", "fsdp_post"):
            self.assertGreater(counts[name][1], 0, name)
            self.assertEqual(counts[name][0], counts["deepspeed_off"][0], name)  # the same gathers, earlier
        self.assertGreater(counts["fsdp_both"][1], counts["fsdp"][1])  # forward prefetch adds to backward's
        for name, w in weights.items():
            for k in w:
                np.testing.assert_array_equal(w[k], weights["deepspeed_off"][k], err_msg=f"{name}: {k}")
        code, _, err = launch(2, self.recipes["gpt"], "--output_dir", os.path.join(self.tmp, "bad_prefetch"), "--fsdp", "full_shard",
                              "--fsdp_config", '{"backward_prefetch": "sideways"}')
        self.assertEqual(code, 2)
        self.assertIn("backward_prefetch", err)

    def test_version_names_mpi_and_nccl(self):
        p = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("MPICH", p.stdout)
        # CMake builds the NCCL backend whenever the CUDA toolkit with NCCL is installed.
        if os.path.exists("/usr/local/cuda/include/nccl.h"):
            self.assertRegex(p.stdout, r"NCCL 2\.\d+\.\d+")
        else:
            self.assertIn("NCCL not built", p.stdout)

    def test_runner_launch_runs_mpiexec(self):
        out = os.path.join(self.tmp, "launched")
        p = subprocess.run([BINARY, "launch", "-n", "2", self.recipes["mlp"], "--output_dir", out], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("rank 0", p.stdout)
        self.assert_same_weights(out, self.reference("mlp", 8, 1))
        p = subprocess.run([BINARY, "launch", self.recipes["mlp"]], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("-n N", p.stderr)

    def test_deepspeed_configs_from_the_hf_docs(self):
        zero2 = {"fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16, "hysteresis": 2,
                          "min_loss_scale": 1},
                 "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}},
                 "scheduler": {"type": "WarmupLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto", "warmup_num_steps": "auto"}},
                 "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": True}, "allgather_partitions": True,
                                       "allgather_bucket_size": 2e8, "overlap_comm": True, "reduce_scatter": True,
                                       "reduce_bucket_size": 2e8, "contiguous_gradients": True},
                 "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "steps_per_print": 2000,
                 "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "wall_clock_breakdown": False}
        path = write(os.path.join(self.tmp, "ds_zero2.json"), json.dumps(zero2))
        out, stdout = self.train(2, "mlp", "ds_zero2", 4, 1, ["--deepspeed", path])
        self.assertIn("DeepSpeed ZeRO stage 2", stdout)
        lrs = [e["learning_rate"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "learning_rate" in e]
        self.assertAlmostEqual(lrs[0], 0.0)  # WarmupLR, log warm-up: lr = log(1) / log(2) · max = 0 at step 0
        self.assertAlmostEqual(lrs[-1], 0.02)
        # The HF docs' ZeRO-3 example: accepted, and it trains to the ZeRO-2 run's weights.
        zero3 = dict(zero2, zero_optimization={
            "stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": True}, "offload_param": {"device": "cpu", "pin_memory": True},
            "overlap_comm": True, "contiguous_gradients": True, "sub_group_size": 1e9, "reduce_bucket_size": "auto",
            "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto", "stage3_max_live_parameters": 1e9,
            "stage3_max_reuse_distance": 1e9, "stage3_gather_16bit_weights_on_model_save": True})
        path3 = write(os.path.join(self.tmp, "ds_zero3.json"), json.dumps(zero3))
        # Its "auto" sizes come from the model's hidden size (HF's formulas): an MLP has none,
        # which HF refuses too; a Llama (hidden_size 16) fills them.
        code, _, err = launch(2, self.recipes["mlp"], "--output_dir", os.path.join(self.tmp, "ds_zero3_mlp"), "--deepspeed", path3)
        self.assertEqual(code, 2, err[-2000:])
        self.assertIn("the model's config has no hidden_size", err)
        out3, stdout3 = self.train(2, "llama", "ds_zero3", 4, 1, ["--deepspeed", path3])
        self.assertIn("DeepSpeed ZeRO stage 3", stdout3)
        z = load_json(os.path.join(out3, "ds_config.json"))["zero_optimization"]
        self.assertEqual((z["reduce_bucket_size"], z["stage3_prefetch_bucket_size"], z["stage3_param_persistence_threshold"]),
                         (16 * 16, int(0.9 * 16 * 16), 10 * 16))
        out2, _ = self.train(2, "llama", "ds_zero2_llama", 4, 1, ["--deepspeed", write(os.path.join(self.tmp, "ds_zero2_llama.json"), json.dumps(zero2))])
        self.assert_same_weights(out3, out2)
        # A typo'd key is refused naming it (exit code 2, one line).
        bad = dict(zero2, zero_optimization=dict(zero2["zero_optimization"], reduce_bucket_sise=5))
        path = write(os.path.join(self.tmp, "ds_typo.json"), json.dumps(bad))
        code, _, err = launch(1, self.recipes["mlp"], "--output_dir", os.path.join(self.tmp, "typo"), "--deepspeed", path)
        self.assertEqual(code, 2)
        self.assertIn("reduce_bucket_sise", err)
        self.assertIn("did you mean 'reduce_bucket_size'", err)
        self.assertIn("ds_typo.json", err)
        # Contradictions name both values.
        bad = dict(zero2, optimizer={"type": "AdamW", "params": {"lr": 0.001}})
        path = write(os.path.join(self.tmp, "ds_lr.json"), json.dumps(bad))
        code, _, err = launch(1, self.recipes["mlp"], "--output_dir", os.path.join(self.tmp, "lr"), "--deepspeed", path)
        self.assertEqual(code, 2)
        self.assertIn("ds optimizer.params.lr=0.001 vs hf learning_rate=0.02", err)



if __name__ == "__main__":
    unittest.main()
