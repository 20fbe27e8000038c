"""GPU runs end to end (ctest label `gpu`; exits 77, reported as skipped, without a GPU):
every data-parallel mode on CUDA tensors equals single-process CUDA training, with NCCL on
one rank and with MPI staging through host memory on two ranks sharing one GPU; the HF docs'
DeepSpeed ZeRO-2 and ZeRO-3 examples train a GPT with fp16 as written; ZeRO-3 with CPU offload
trains a model whose states exceed a device-memory cap that plain DDP runs into; a
models.from_pretrained model read from its files onto the GPU (whole, or as ZeRO-3 shards)
trains like on the CPU; activation_offload lowers a long-context Llama's peak GPU memory with
the same losses; Qwen 3 and Gemma 3 train on CUDA as on the CPU; a CUDA out-of-memory error is
one line with exit 2; `runner --version` lists the GPU."""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, SOURCE, TempDir, read_safetensors, write  # noqa: E402
from test_distributed import GPT, LLAMA, MODES, launch, load_json  # noqa: E402


BIG_GPT = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(1)
local ids = torch.randint(0, 32000, {32, 128})
return {
  args = { max_steps = 3, per_device_train_batch_size = 4, learning_rate = 1e-4, save_strategy = "no", report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.gpt{vocab_size = 32000, block_size = 128, n_layer = 8, n_head = 8, n_embd = 1024},
}
"""


# The same workload as BIG_GPT in plain PyTorch (transformers' GPT-2 of the same shape, AdamW,
# batch 4 × 128): its peak allocated bytes, printed.
TORCH_PEAK = """
import torch, transformers
torch.manual_seed(1)
cfg = transformers.GPT2Config(vocab_size=32000, n_positions=128, n_layer=8, n_head=8, n_embd=1024,
                              resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
model = transformers.GPT2LMHeadModel(cfg).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
ids = torch.randint(0, 32000, (4, 128), device="cuda")
for _ in range(3):
    model(input_ids=ids, labels=ids).loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
print(torch.cuda.max_memory_allocated())
"""


# A Llama on long sequences, where the blocks' inputs (fp32, B x T x hidden, one per layer)
# are a large share of the peak: what activation_offload moves to the host.
LONG_LLAMA = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(1)
local ids = torch.randint(0, 1024, {6, 4096})
return {
  args = { max_steps = 3, per_device_train_batch_size = 2, learning_rate = 1e-4, logging_steps = 1, save_strategy = "no",
           report_to = "none", bf16 = true, full_determinism = true, gradient_checkpointing = true, skip_memory_metrics = false },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.llama{ vocab_size = 1024, hidden_size = 512, intermediate_size = 1376, num_hidden_layers = 12,
                        num_attention_heads = 8, num_key_value_heads = 8, max_position_embeddings = 4096 },
}
"""
LONG_LLAMA_BLOCK_INPUT = 2 * 4096 * 512 * 4  # bytes of one block's fp32 input


def write_fake_fashion_mnist(folder, seed=0):
    """Fashion-MNIST's four gzip IDX files, small: each class a fixed pattern plus noise."""
    import gzip
    import struct
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    patterns = rng.integers(0, 256, size=(10, 28, 28))
    for prefix, n in (("train", 2000), ("t10k", 200)):
        labels = rng.integers(0, 10, size=n).astype(np.uint8)
        images = np.clip(patterns[labels] * 0.7 + rng.integers(0, 77, size=(n, 28, 28)), 0, 255).astype(np.uint8)
        with gzip.open(os.path.join(folder, f"{prefix}-images-idx3-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">IIII", 0x803, n, 28, 28) + images.tobytes())
        with gzip.open(os.path.join(folder, f"{prefix}-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">II", 0x801, n) + labels.tobytes())


def big_activations_gpt():
    """A GPT whose training step at 4096 sequences needs ~7 GB of activations (4 layers of width
    512 over 32768 tokens) beside ~0.6 GB of model states: more than a 2 GB cap on any GPU, and
    halving the batch three times fits. Activations, not logits: the fused loss never holds
    32768 x 50257 logits at once."""
    recipe = GPT.replace("vocab_size = 32, block_size = 8, n_layer = 2, n_head = 2, n_embd = 16",
                         "vocab_size = 50257, block_size = 8, n_layer = 4, n_head = 8, n_embd = 512")
    recipe = recipe.replace("torch.randint(0, 32, {50, 8})", "torch.randint(0, 50257, {4096, 8})")
    assert "n_embd = 512" in recipe and "{4096, 8}" in recipe
    return recipe


def capped_env(gib):
    """The environment with PyTorch's caching allocator capped at `gib` GiB of GPU 0."""
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=120).stdout
    total_gib = float(re.search(r"GPU 0: .*, ([0-9.]+) GiB\)", version).group(1))
    return dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=f"per_process_memory_fraction:{gib / total_gib:.4f}")


def gpu_visible():
    p = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=120)
    return "GPU 0:" in p.stdout


class Gpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir().__enter__()
        cls.gpt = write(os.path.join(cls.tmp, "gpt.lua"), GPT)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def train(self, n, name, batch, *extra):
        out = os.path.join(self.tmp, name)
        code, stdout, err = launch(n, self.gpt, "--output_dir", out, "--per_device_train_batch_size", str(batch), *extra)
        self.assertEqual(code, 0, f"{name}: {err[-3000:]}")
        return out, stdout

    def assert_close(self, a_dir, b_dir, rtol):
        a = read_safetensors(os.path.join(a_dir, "model.safetensors"))
        b = read_safetensors(os.path.join(b_dir, "model.safetensors"))
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=rtol / 10, err_msg=k)

    def test_every_mode_with_nccl_on_one_rank_and_mpi_on_two(self):
        single, stdout = self.train(1, "single_8", 8)
        self.assertIn("Device = cuda:0", stdout)
        for mode, extra in MODES.items():
            if mode == "fsdp_full_shard_linear":
                continue
            with self.subTest(mode=mode, backend="nccl"):
                out, stdout = self.train(1, f"nccl_{mode}", 8, "--ddp_backend", "nccl", *extra)
                self.assertIn("One rank with the nccl backend", stdout)  # NCCL itself, not the local stand-in
                # offload: AdamW steps on the host instead of the GPU's fused kernel
                self.assert_close(out, single, 1e-4 if "offload" in mode else 1e-5)
                if mode in ("zero2", "fsdp_shard_grad_op", "zero2_offload"):  # ZeRO-2's reducer talks through it even on one rank
                    self.assertGreater(load_json(os.path.join(out, "train_results.json"))["train_comm_bytes"], 0)
            with self.subTest(mode=mode, backend="mpi"):
                out, stdout = self.train(2, f"mpi_{mode}", 4, "--ddp_backend", "mpi", *extra)
                self.assertIn("mpi backend, cuda:0", stdout)
                self.assert_close(out, single, 1e-4)

    def test_hf_deepspeed_examples_train_with_fp16(self):
        auto = {"optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}},
                "scheduler": {"type": "WarmupLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto", "warmup_num_steps": "auto"}},
                "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16, "hysteresis": 2,
                         "min_loss_scale": 1},
                "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "steps_per_print": 2000,
                "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "wall_clock_breakdown": False}
        zero2 = dict(auto, zero_optimization={"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": True},
                                              "allgather_partitions": True, "allgather_bucket_size": 2e8, "overlap_comm": True,
                                              "reduce_scatter": True, "reduce_bucket_size": 2e8, "contiguous_gradients": True})
        zero3 = dict(auto, zero_optimization={"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": True},
                                              "offload_param": {"device": "cpu", "pin_memory": True}, "overlap_comm": True,
                                              "contiguous_gradients": True, "sub_group_size": 1e9, "reduce_bucket_size": "auto",
                                              "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
                                              "stage3_max_live_parameters": 1e9, "stage3_max_reuse_distance": 1e9,
                                              "stage3_gather_16bit_weights_on_model_save": True})
        # A Llama: the ZeRO-3 example's "auto" sizes come from the model's hidden size (HF's formulas).
        llama = write(os.path.join(self.tmp, "ds_llama.lua"), LLAMA)
        for name, cfg in (("zero2", zero2), ("zero3", zero3)):
            with self.subTest(config=name):
                path = write(os.path.join(self.tmp, f"ds_{name}.json"), json.dumps(cfg))
                out = os.path.join(self.tmp, f"ds_{name}")
                code, stdout, err = launch(1, llama, "--output_dir", out, "--per_device_train_batch_size", "8", "--deepspeed", path, "--fp16",
                                           "--max_steps", "30")
                self.assertEqual(code, 0, f"{name}: {err[-3000:]}")
                losses = [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
                self.assertTrue(all(np.isfinite(losses)), losses)
                self.assertLess(np.mean(losses[-5:]), np.mean(losses[:5]))

    def test_cuda_out_of_memory_is_one_line_with_exit_2(self):
        # Capped at 2 GB (PyTorch's own allocator setting): the step needs ~7 GB of activations,
        # so this runs out on any GPU, 80 GB and 141 GB ones too.
        big = write(os.path.join(self.tmp, "big.lua"), big_activations_gpt())
        p = subprocess.run([BINARY, big, "--output_dir", os.path.join(self.tmp, "oom"), "--per_device_train_batch_size", "4096",
                            "--max_steps", "1"], capture_output=True, text=True, timeout=300, env=capped_env(2.0))
        self.assertEqual(p.returncode, 2, p.stderr[-2000:])
        lines = [l for l in p.stderr.splitlines() if l.startswith("runner: error:")]
        self.assertEqual(len(lines), 1, p.stderr[-2000:])
        self.assertIn("out of GPU memory during training with per_device_train_batch_size = 4096", lines[0])

    def test_auto_find_batch_size_under_a_memory_cap(self):
        # A real CUDA out-of-memory error (the process capped at 2 GB): 4096 sequences of
        # big_activations_gpt do not fit; the search halves until a step fits and trains.
        env = capped_env(2.0)
        big = write(os.path.join(self.tmp, "auto_bs.lua"), big_activations_gpt())
        out = os.path.join(self.tmp, "auto_bs")
        p = subprocess.run([BINARY, big, "--output_dir", out, "--per_device_train_batch_size", "4096", "--max_steps", "2",
                            "--auto_find_batch_size"], capture_output=True, text=True, timeout=600, env=env)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        self.assertIn("per_device_train_batch_size = 4096 ran out of memory; retrying with 2048", p.stdout)
        found = load_json(os.path.join(out, "trainer_state.json"))["train_batch_size"]
        self.assertLess(found, 4096)
        self.assertIn(f"training with per_device_train_batch_size = {found} (started from 4096)", p.stdout)

    def test_auto_find_batch_size_starts_over_after_a_cuda_oom_in_its_first_step(self):
        # RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE on a GPU asks CUDA's caching allocator for 1 TiB in
        # the loop's micro-step, after forward (the step's activations alive), not in a trial:
        # a real OutOfMemoryError, from which one process starts the loop over at half the size
        # with its memory given back, and trains as a run given that size does.
        env = dict(os.environ, RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE="8")
        out = os.path.join(self.tmp, "loop_oom")
        p = subprocess.run([BINARY, self.gpt, "--output_dir", out, "--per_device_train_batch_size", "32", "--auto_find_batch_size"],
                           capture_output=True, text=True, timeout=600, env=env)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        self.assertIn("auto_find_batch_size: per_device_train_batch_size = 32 ran out of memory in the first training step; "
                      "starting over with 16 (CUDA out of memory", p.stdout)
        self.assertIn("training with per_device_train_batch_size = 8 (started from 32)", p.stdout)
        given, _ = self.train(1, "loop_oom_given", 8)
        self.assert_close(out, given, 1e-5)

    def test_zero3_offload_trains_where_ddp_runs_out_of_memory(self):
        # A GPT of ~134M parameters: DDP needs 16 bytes a parameter on the device (~2.1 GB);
        # ZeRO-3 with parameter and optimizer offload keeps only the running unit there.
        # PyTorch's own allocator setting caps this process at 1.6 GB of the GPU.
        env = capped_env(1.6)
        big = write(os.path.join(self.tmp, "big_gpt.lua"), BIG_GPT)
        ddp = subprocess.run([BINARY, big, "--output_dir", os.path.join(self.tmp, "cap_ddp")], capture_output=True, text=True,
                             timeout=600, env=env)
        self.assertEqual(ddp.returncode, 2, ddp.stderr[-2000:])
        self.assertIn("out of GPU memory during training", ddp.stderr)
        ds = json.dumps({"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}, "offload_optimizer": {"device": "cpu"}}})
        z3 = subprocess.run([BINARY, big, "--output_dir", os.path.join(self.tmp, "cap_zero3"), "--deepspeed", ds], capture_output=True,
                            text=True, timeout=600, env=env)
        self.assertEqual(z3.returncode, 0, z3.stderr[-3000:])
        results = load_json(os.path.join(self.tmp, "cap_zero3", "train_results.json"))
        self.assertLess(results["model_state_bytes"], 1.6 * 2**30)

    def test_from_pretrained_reads_its_files_onto_the_gpu(self):
        # The weights go from the files straight into the flat buffer on cuda:0 (one process) or
        # into each rank's shards there (ZeRO-3, two ranks on one GPU): both equal CPU training.
        llama = write(os.path.join(self.tmp, "llama.lua"), LLAMA)
        folder = os.path.join(self.tmp, "llama_src")
        code, _, err = launch(1, llama, "--output_dir", folder, "--max_steps", "1", "--use_cpu", "true")
        self.assertEqual(code, 0, err[-2000:])
        load = write(os.path.join(self.tmp, "pretrained.lua"),
                     LLAMA[:LLAMA.index("  model = models.llama{")] + f"  model = models.from_pretrained({json.dumps(folder)}),\n}}\n")
        runs = {}
        for name, n, extra in (("cpu", 1, ["--use_cpu", "true", "--per_device_train_batch_size", "8"]),
                               ("cuda", 1, ["--per_device_train_batch_size", "8"]),
                               ("cuda_zero3", 2, ["--per_device_train_batch_size", "4", "--ddp_backend", "mpi", *MODES["zero3"]])):
            out = os.path.join(self.tmp, f"pretrained_{name}")
            code, stdout, err = launch(n, load, "--output_dir", out, *extra)
            self.assertEqual(code, 0, f"{name}: {err[-3000:]}")
            self.assertIn("parameter values from its files on this rank", stdout)
            runs[name] = out
        self.assert_close(runs["cuda"], runs["cpu"], 1e-4)
        self.assert_close(runs["cuda_zero3"], runs["cpu"], 1e-4)

    def test_more_ranks_than_gpus_fall_back_to_mpi_with_one_warning(self):
        gpus = len(re.findall(r"GPU \d+:", subprocess.run([BINARY, "--version"], capture_output=True, text=True).stdout))
        if gpus != 1:
            self.skipTest("needs a machine with one GPU")
        single, _ = self.train(1, "single_fallback", 8)
        out, stdout = self.train(2, "fallback", 4)  # no ddp_backend: NCCL would refuse two ranks on one GPU
        self.assertIn("2 processes share 1 GPU on a node, which NCCL refuses: collectives use the mpi backend", stdout)
        self.assertIn("Data parallel over 2 ranks: mpi backend, cuda:0", stdout)
        self.assert_close(out, single, 1e-4)
        code, _, err = launch(2, self.gpt, "--output_dir", os.path.join(self.tmp, "nccl_refused"), "--ddp_backend", "nccl")
        self.assertEqual(code, 2, err[-2000:])
        self.assertIn("NCCL refuses two ranks on one GPU", err)

    def test_every_shipped_recipe_trains_on_cuda(self):
        # The recipes as users run them, unchanged: host tensors a recipe makes (hello_gpt's
        # sampler, weighted_loss's class weights, sft_lora's generated ids) meet a model on cuda:0.
        from test_recipes_run import SHORT
        module = os.path.join(self.tmp, "tiny.pt")
        subprocess.run([sys.executable, os.path.join(SOURCE, "scripts/make_tiny_torchscript.py"), module], check=True)
        # The Fashion-MNIST recipes read Debian's dataset package, which the GPU machines lack:
        # a small stand-in in the same IDX files, with learnable classes.
        fmnist = "/usr/share/datasets/fashion-mnist"
        if not os.path.isdir(fmnist):
            fmnist = os.path.join(self.tmp, "fmnist")
            write_fake_fashion_mnist(fmnist)
        for name in sorted(f[:-4] for f in os.listdir(os.path.join(SOURCE, "recipes")) if f.endswith(".lua")):
            with self.subTest(recipe=name):
                out = os.path.join(self.tmp, "recipe_" + name)
                extra = SHORT.get(name, ["--max_steps", "20"]) + ["--logging_steps", "1", "--save_strategy", "no"]
                if name == "torchscript_finetune":
                    extra += ["--module", module]
                if name.startswith("fashion_mnist"):
                    extra += ["--data_dir", fmnist]
                code, stdout, err = launch(1, os.path.join(SOURCE, "recipes", name + ".lua"), "--output_dir", out, *extra, timeout=600)
                # A runner built without Arrow (the GPU_BUILD=1 fallback; the package ships Arrow)
                # must refuse the Parquet recipes with its one line: they are skipped, visibly.
                # RUNNER_EXPECT_ARROW (gpu_env.sh, when the package carries Arrow) makes the refusal a failure.
                if code == 2 and "this runner was built without Arrow (RUNNER_WITH_ARROW=OFF)" in err and os.environ.get("RUNNER_EXPECT_ARROW") != "1":
                    self.skipTest(f"{name} reads Parquet; this runner was built without Arrow")
                self.assertEqual(code, 0, f"{name}: {err[-3000:]}")
                self.assertIn("Device = cuda:0", stdout)
                losses = [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
                self.assertLess(sum(losses[-5:]) / 5, sum(losses[:5]) / 5, f"{name} did not learn: {losses}")
                if name == "hello_gpt":
                    self.assertIn("a sample of the trained model", stdout)

    def test_full_determinism_and_tf32_from_the_command_line(self):
        runs = []
        for name in ("det_a", "det_b"):
            out, _ = self.train(1, name, 8, "--full_determinism", "--bf16")
            runs.append(read_safetensors(os.path.join(out, "model.safetensors")))
        for k in runs[0]:
            np.testing.assert_array_equal(runs[0][k], runs[1][k], err_msg=k)
        self.train(1, "tf32", 8, "--tf32", "true")

    def test_fused_kernels_train_like_the_plain_chains_on_cuda(self):
        # Every CUDA kernel of runner inside real training steps: GPT (the cross-entropy row
        # kernel; under bf16 its LayerNorm written in autocast's dtype), Llama (RMSNorm, SwiGLU, rotary, the row kernel) and Llama on packed rows
        # (under bf16 the varlen flash attention), fp32 and bf16, against the same runs with
        # RUNNER_FUSED_KERNELS=0 (ATen's chains; the block-diagonal mask): the same curve to rounding.
        llama = LLAMA.replace("models.llama{vocab_size = 32, hidden_size = 16, intermediate_size = 24",
                              "models.llama{vocab_size = 1000, hidden_size = 128, intermediate_size = 344").replace(
                                  "max_position_embeddings = 16", "max_position_embeddings = 64")
        recipes = {
            "gpt": GPT.replace("models.gpt{vocab_size = 32, block_size = 8, n_layer = 2, n_head = 2, n_embd = 16",
                               "models.gpt{vocab_size = 1000, block_size = 64, n_layer = 2, n_head = 4, n_embd = 128"),
            "llama": llama,
            # sequences of 20 tokens packed across the rows' 64
            "llama_packed": llama.replace("data.tensors{ input_ids = ids, labels = ids }",
                                          "data.tensors{ input_ids = ids, labels = ids, position_ids = torch.arange(64 * 64):reshape(64, 64) % 20 }"),
        }
        self.assertIn("position_ids", recipes["llama_packed"])
        differs = False
        for model, recipe in recipes.items():
            recipe = recipe.replace("torch.randint(0, 32, {50, 8})", "torch.randint(0, 1000, {64, 64})")
            self.assertIn("{64, 64}", recipe)
            self.assertIn("vocab_size = 1000", recipe)
            path = write(os.path.join(self.tmp, f"kernels_{model}.lua"), recipe)
            for precision, rtol in (("fp32", 1e-4), ("bf16", 2e-2)):
                losses = {}
                for way, env in (("fused", {}), ("plain", {"RUNNER_FUSED_KERNELS": "0"})):
                    out = os.path.join(self.tmp, f"kernels_{model}_{precision}_{way}")
                    extra = ["--bf16"] if precision == "bf16" else []
                    p = subprocess.run([BINARY, path, "--output_dir", out, "--max_steps", "8", "--per_device_train_batch_size", "8", *extra],
                                       capture_output=True, text=True, timeout=300, env=dict(os.environ, **env))
                    self.assertEqual(p.returncode, 0, f"{model} {precision} {way}: {p.stderr[-3000:]}")
                    losses[way] = [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
                self.assertEqual(len(losses["fused"]), 8)
                np.testing.assert_allclose(losses["fused"], losses["plain"], rtol=rtol, err_msg=f"{model} {precision}")
                differs = differs or losses["fused"] != losses["plain"]
        self.assertTrue(differs, "RUNNER_FUSED_KERNELS=0 changed nothing: the kernels did not run")

    # (device, precision) runs of test_qwen3_and_gemma3_train_on_cuda_as_on_the_cpu: the first is the reference.
    MEMBER_RUNS = (("cpu", "fp32"), ("cuda", "fp32"), ("cuda", "bf16"))

    def test_qwen3_and_gemma3_train_on_cuda_as_on_the_cpu(self):
        # The newer Llama-family members' own pieces on CUDA: per-head q/k norms, Gemma's
        # unit-offset norms (fp32 inside, its dtype out), GELU gating, √C embeddings with the pad
        # row untrained, query_pre_attn_scalar, the sliding layers' rotation and window, and packed
        # rows (under bf16 the varlen kernel, with the window and the queries' scale): fp32 on
        # CUDA follows the CPU's curve, bf16 tracks it.
        base = LLAMA.replace("torch.randint(0, 32, {50, 8})", "torch.randint(0, 1000, {64, 64})").replace(
            "models.llama{vocab_size = 32, hidden_size = 16, intermediate_size = 24",
            "models.llama{vocab_size = 1000, hidden_size = 128, intermediate_size = 344").replace(
                "max_position_embeddings = 16", "max_position_embeddings = 64")
        self.assertIn("{64, 64}", base)
        members = {"qwen3": 'model_type = "qwen3", head_dim = 64, ',
                   "gemma3_text": 'model_type = "gemma3_text", head_dim = 64, query_pre_attn_scalar = 48, sliding_window = 16, '
                                  'sliding_window_pattern = 2, pad_token_id = 0, '}
        for member, options in members.items():
            rows = base.replace("models.llama{", "models.llama{" + options)
            packed = rows.replace("data.tensors{ input_ids = ids, labels = ids }",
                                  "data.tensors{ input_ids = ids, labels = ids, position_ids = torch.arange(64 * 64):reshape(64, 64) % 20 }")
            self.assertIn("position_ids", packed)
            for layout, recipe in (("rows", rows), ("packed", packed)):
                path = write(os.path.join(self.tmp, f"{member}_{layout}.lua"), recipe)
                losses = {}
                for device, precision in self.MEMBER_RUNS:
                    out = os.path.join(self.tmp, f"{member}_{layout}_{device}_{precision}")
                    extra = (["--use_cpu", "true"] if device == "cpu" else []) + (["--bf16", "true"] if precision == "bf16" else [])
                    p = subprocess.run([BINARY, path, "--output_dir", out, "--max_steps", "8", "--per_device_train_batch_size", "8", *extra],
                                       capture_output=True, text=True, timeout=300)
                    self.assertEqual(p.returncode, 0, f"{member} {layout} {device} {precision}: {p.stderr[-3000:]}")
                    losses[device, precision] = [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
                reference = losses[self.MEMBER_RUNS[0]]
                self.assertEqual(len(reference), 8)
                for run, got in losses.items():
                    np.testing.assert_allclose(got, reference, rtol=3e-2 if run[1] == "bf16" else 1e-3, err_msg=f"{member} {layout} {run}")
                if ("cuda", "bf16") in losses:  # autocast ran: bf16 rounds otherwise than fp32
                    self.assertNotEqual(losses["cuda", "bf16"], losses["cuda", "fp32"], f"{member} {layout}")

    def test_cuda_visible_devices_decides_what_runner_sees(self):
        hidden = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=120, env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
        self.assertNotIn("GPU 0:", hidden.stdout)
        out = os.path.join(self.tmp, "hidden_gpu")
        p = subprocess.run([BINARY, self.gpt, "--output_dir", out], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        self.assertIn("Device = cpu", p.stdout)
        shown = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=120, env=dict(os.environ, CUDA_VISIBLE_DEVICES="0"))
        self.assertIn("GPU 0:", shown.stdout)
        self.assertNotIn("GPU 1:", shown.stdout)

    def test_generate_runs_on_the_gpu(self):
        llama = write(os.path.join(self.tmp, "gen_llama.lua"), LLAMA)
        folder = os.path.join(self.tmp, "gen_src")
        code, _, err = launch(1, llama, "--output_dir", folder, "--max_steps", "1")
        self.assertEqual(code, 0, err[-2000:])
        from tokenizers import Tokenizer, decoders
        from tokenizers.models import BPE
        tok = Tokenizer(BPE(vocab={chr(97 + i): i for i in range(26)}, merges=[]))  # a..z inside the model's 32 ids
        tok.decoder = decoders.Fuse()
        tok.save(os.path.join(folder, "tokenizer.json"))
        texts = {}
        for device in ("cpu", "cuda"):
            p = subprocess.run([BINARY, "generate", folder, "--prompt", "hello", "--max_new_tokens", "8", "--device", device],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            texts[device] = p.stdout
        self.assertEqual(texts["cuda"], texts["cpu"])

    def test_peak_memory_agrees_with_pytorch(self):
        # runner's train_mem_gpu_* metrics against torch.cuda.max_memory_allocated of the same
        # model states in PyTorch: a GPT's parameters, gradients and AdamW state, 16 bytes per
        # parameter, plus activations; within 20%.
        big = write(os.path.join(self.tmp, "mem_gpt.lua"), BIG_GPT)
        out = os.path.join(self.tmp, "mem")
        p = subprocess.run([BINARY, big, "--output_dir", out, "--skip_memory_metrics", "false"], capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        m = load_json(os.path.join(out, "train_results.json"))
        runner_peak = m["init_mem_gpu_alloc_delta"] + m["train_mem_gpu_alloc_delta"] + m["train_mem_gpu_peaked_delta"]
        torch_peak = float(subprocess.run([sys.executable, "-c", TORCH_PEAK], capture_output=True, text=True, timeout=600, check=True).stdout)
        self.assertLess(abs(runner_peak - torch_peak) / torch_peak, 0.2, (runner_peak, torch_peak))

    def test_activation_offload_lowers_peak_memory_with_the_same_losses(self):
        # gradient_checkpointing with and without activation_offload on a long-context Llama:
        # the same losses bit for bit (full_determinism in both), and a peak lower by about the
        # eleven block inputs that wait in pinned host memory instead (one is back on the GPU
        # while its block recomputes).
        recipe = write(os.path.join(self.tmp, "long_llama.lua"), LONG_LLAMA)
        runs = {}
        for name, extra in (("plain", []), ("offload", ["--activation_offload", "true"])):
            out = os.path.join(self.tmp, "offload_" + name)
            p = subprocess.run([BINARY, recipe, "--output_dir", out, *extra], capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, f"{name}: {p.stderr[-3000:]}")
            m = load_json(os.path.join(out, "train_results.json"))
            peak = m["init_mem_gpu_alloc_delta"] + m["train_mem_gpu_alloc_delta"] + m["train_mem_gpu_peaked_delta"]
            losses = [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
            runs[name] = (peak, losses, p.stdout + p.stderr)
            print(f"activation_offload {name}: peak {peak / 2**20:.0f} MiB, train_runtime {m['train_runtime']} s", file=sys.stderr)
        log = runs["offload"][2]
        self.assertIn("activation_offload: the inputs of 12 checkpointed blocks go to pinned host memory", log)
        self.assertIn(f"activation_offload: step 1 moved {12 * LONG_LLAMA_BLOCK_INPUT} bytes", log)
        self.assertEqual(len(runs["plain"][1]), 3)
        self.assertEqual(runs["offload"][1], runs["plain"][1])
        saved = runs["plain"][0] - runs["offload"][0]
        self.assertGreater(saved, 11 * LONG_LLAMA_BLOCK_INPUT // 2, (runs["plain"][0], runs["offload"][0]))

    def test_cuda_graphs_replay_equals_the_static_step(self):
        # hello_gpt (dropout, a cosine schedule, clipping, fused AdamW, the fused loss) under
        # bf16 with cuda_graphs: the captured graph's replays give the weights and logs of the
        # same static step run eagerly (RUNNER_TEST_STEP_GRAPH=eager), bit for bit, and stay
        # close to the plain step (the fused AdamW's CUDA kernel reads either learning rate in
        # fp32; the graph's step count and schedule are device tensors).
        hello = os.path.join(SOURCE, "recipes", "hello_gpt.lua")
        common = ["--steps", "40", "--batch_size", "16", "--sample_chars", "5", "--eval_strategy", "no", "--logging_steps", "5", "--bf16", "true"]
        runs = {}
        for name, extra, env in (("replayed", ["--cuda_graphs", "true"], {}), ("static_eager", ["--cuda_graphs", "true"], {"RUNNER_TEST_STEP_GRAPH": "eager"}),
                                 ("plain", [], {})):
            out = os.path.join(self.tmp, "graphs_" + name)
            p = subprocess.run([BINARY, hello, "--output_dir", out, *common, *extra], capture_output=True, text=True, timeout=600, env=dict(os.environ, **env))
            self.assertEqual(p.returncode, 0, f"{name}: {p.stderr[-3000:]}")
            runs[name] = (out, p.stdout)
            print(f"cuda_graphs {name}: train_runtime {load_json(os.path.join(out, 'train_results.json'))['train_runtime']} s", file=sys.stderr)
        stdout = runs["replayed"][1]
        self.assertIn("cuda_graphs: the training step is captured (1 micro-batches); later steps replay it", stdout)
        self.assertIn("cuda_graphs: 39 steps replayed the captured graph, 1 warmed it up, 0 ran eagerly", stdout)
        a = read_safetensors(os.path.join(runs["replayed"][0], "model.safetensors"))
        b = read_safetensors(os.path.join(runs["static_eager"][0], "model.safetensors"))
        for k in a:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        logs = [load_json(os.path.join(runs[n][0], "trainer_state.json"))["log_history"] for n in ("replayed", "static_eager")]
        self.assertEqual(logs[0][:-1], logs[1][:-1])  # the last entry holds run times
        self.assert_close(runs["replayed"][0], runs["plain"][0], rtol=2e-2)

    def test_profile_steps_records_cuda_kernels(self):
        # profile_steps on CUDA: the trace holds the steps' kernels beside the CPU ops and the
        # log sums up by CUDA self time; with cuda_graphs the profiled steps are replays, and
        # their graph launches are in the trace.
        hello = os.path.join(SOURCE, "recipes", "hello_gpt.lua")
        common = ["--steps", "6", "--batch_size", "16", "--sample_chars", "5", "--eval_strategy", "no", "--profile_steps", "3-4"]
        for name, extra in (("eager", []), ("graphs", ["--cuda_graphs", "true"])):
            out = os.path.join(self.tmp, "profile_" + name)
            p = subprocess.run([BINARY, hello, "--output_dir", out, *common, *extra], capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, f"{name}: {p.stderr[-3000:]}")
            with open(os.path.join(out, "profile", "rank0.pt.trace.json")) as f:
                events = json.load(f)["traceEvents"]
            kernels = [e for e in events if e.get("cat") == "kernel"]
            self.assertTrue(kernels, name)
            self.assertEqual(sorted(e["name"] for e in events if e.get("cat") == "user_annotation"), ["ProfilerStep#3", "ProfilerStep#4"], name)
            self.assertIn("***** Profile of step 3-4: the ops with the most CUDA self time, per step", p.stdout)
            self.assertIn("CUDA ms/step", p.stdout)
            if name == "graphs":
                self.assertTrue(any(e.get("name", "").startswith("cudaGraphLaunch") for e in events))  # CUPTI may add a _v suffix

    def test_version_lists_the_gpu(self):
        p = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=120)
        self.assertRegex(p.stdout, r"GPU 0: .*sm_\d+")
        self.assertRegex(p.stdout, r"CUDA \d+\.\d+")


if __name__ == "__main__":
    if not gpu_visible():
        if os.environ.get("RUNNER_EXPECT_GPU", "0") not in ("", "0"):
            print("FAILED: RUNNER_EXPECT_GPU is set but runner sees no GPU (`runner --version` lists none)")
            sys.exit(1)
        print("SKIPPED: no CUDA device visible to runner (these cases run on a GPU machine: ctest -L gpu)")
        sys.exit(77)
    unittest.main()
