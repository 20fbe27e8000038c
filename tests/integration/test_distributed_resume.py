"""Checkpoints of data-parallel training resumed under `mpiexec` on another world size: ZeRO-2
and ZeRO-3 save shard by shard (`runner consolidate` merges them) and finish on 1, 2 and 3
ranks with one process's weights (bit for bit on the same world size); with
`full_determinism` the gradients are summed in one fixed order, so DDP, ZeRO-2 and ZeRO-3
finish with the very same bits on any world size."""
import os
import shutil
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, read_safetensors, write  # noqa: E402
from test_distributed import GPT, MODES, DistributedCase, launch, load_json  # noqa: E402


class DistributedResume(DistributedCase):
    def test_checkpoint_resumes_on_another_world_size(self):
        for mode in ("zero2", "zero3"):
            with self.subTest(mode=mode):
                self.check_resume(mode)

    def check_resume(self, mode):
        # Global batch 12 throughout: 2 × 6, 1 × 12, 3 × 4.
        extra = ["--save_steps", "3", "--save_strategy", "steps", "--max_steps", "6"] + MODES[mode]
        # A side folder a crashed save left behind is cleaned up by the next sharded save.
        os.makedirs(os.path.join(self.tmp, f"resume_full_{mode}", ".tmp-checkpoint-99-shards"))
        full, _ = self.train(2, "gpt", f"resume_full_{mode}", 6, 1, extra)
        ckpt = os.path.join(full, "checkpoint-3")
        # Sharded state is saved shard by shard: one file per rank, nothing gathered.
        self.assertFalse(os.path.exists(os.path.join(ckpt, "optimizer.safetensors")))
        self.assertEqual(load_json(os.path.join(ckpt, "optimizer.json"))["shards"], 2)
        shards = [read_safetensors(os.path.join(ckpt, f"optimizer.rank-{r}-of-2.safetensors")) for r in range(2)]
        pieces = lambda key: sum(s[key].size for s in shards if key in s)
        self.assertEqual(pieces("exp_avg.transformer.wte.weight"), 32 * 16)  # the pieces cover each parameter once
        self.assertEqual(pieces("param.transformer.wte.weight"), 32 * 16)
        self.assertFalse(any(name.startswith(".tmp") for name in os.listdir(full)))
        rng = load_json(os.path.join(ckpt, "rng_state.json"))
        self.assertEqual(len(rng["ranks"]), 2)
        # runner consolidate: the checkpoint's whole fp32 weights, whatever mode saved it.
        out_file = os.path.join(self.tmp, f"consolidated_{mode}.safetensors")
        p = subprocess.run([BINARY, "consolidate", ckpt, out_file], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        saved, merged = read_safetensors(os.path.join(ckpt, "model.safetensors")), read_safetensors(out_file)
        self.assertEqual(sorted(saved), sorted(merged))
        for k in saved:
            self.assertEqual(merged[k].dtype, np.float32)
            np.testing.assert_array_equal(merged[k], saved[k], err_msg=k)
        resumed = {}
        for n, batch in ((2, 6), (1, 12), (3, 4)):
            out = os.path.join(self.tmp, f"resume_{mode}_{n}")
            shutil.copytree(full, out)
            shutil.rmtree(os.path.join(out, "checkpoint-6"))
            os.remove(os.path.join(out, "model.safetensors"))
            code, _, err = launch(n, self.recipes["gpt"], "--output_dir", out, "--per_device_train_batch_size", str(batch),
                                  "--max_steps", "6", "--save_strategy", "no", "--resume_from_checkpoint", ckpt,
                                  *(MODES[mode] if n > 1 else []))
            self.assertEqual(code, 0, err[-3000:])
            resumed[n] = out
        # A checkpoint missing a rank's file is refused with the file's name.
        broken = os.path.join(self.tmp, f"broken_{mode}")
        shutil.copytree(ckpt, os.path.join(broken, "checkpoint-3"))
        os.remove(os.path.join(broken, "checkpoint-3", "optimizer.rank-1-of-2.safetensors"))
        code, _, err = launch(1, self.recipes["gpt"], "--output_dir", broken, "--per_device_train_batch_size", "12",
                              "--max_steps", "6", "--save_strategy", "no", "--resume_from_checkpoint", "true")
        self.assertEqual(code, 2, err[-2000:])
        self.assertIn("optimizer.rank-1-of-2.safetensors", err)
        a = read_safetensors(os.path.join(full, "model.safetensors"))
        b = read_safetensors(os.path.join(resumed[2], "model.safetensors"))
        for k in a:  # same world size: bit-identical to the uninterrupted run
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        # Other world sizes sum gradients in another order: equal to fp32 rounding.
        self.assert_same_weights(resumed[1], resumed[2])
        self.assert_same_weights(resumed[3], resumed[2])

    def test_a_gathered_checkpoint_resumes_bit_identically(self):
        # save_on_each_node saves the gathered optimizer state (another node's shard files
        # would not be on this node's disk), gathered a bounded piece at a time into the
        # writer's host memory: ZeRO-2 here in pieces of 100 values per rank, ZeRO-3 a
        # unit-group at a time, and the weights a unit at a time. Resumed on the same world
        # size, the run must end with the uninterrupted run's very bits.
        for mode, config in (("zero2", '{"zero_optimization": {"stage": 2, "allgather_bucket_size": 100}}'),
                             ("zero3", MODES["zero3"][1])):
            with self.subTest(mode=mode):
                extra = ["--save_steps", "3", "--save_strategy", "steps", "--max_steps", "6", "--deepspeed", config,
                         "--save_on_each_node"]
                full, _ = self.train(2, "gpt", f"gathered_full_{mode}", 6, 1, extra)
                ckpt = os.path.join(full, "checkpoint-3")
                state = read_safetensors(os.path.join(ckpt, "optimizer.safetensors"))
                weights = read_safetensors(os.path.join(ckpt, "model.safetensors"))
                names = [k[len("exp_avg."):] for k in state if k.startswith("exp_avg.")]
                self.assertEqual(set(names), set(weights))  # the head is tied to wte: saved once, as HF saves it
                for name in names:
                    self.assertEqual(state[f"exp_avg.{name}"].shape, weights[name].shape, name)
                out = os.path.join(self.tmp, f"gathered_resumed_{mode}")
                code, _, err = launch(2, self.recipes["gpt"], "--output_dir", out, "--per_device_train_batch_size", "6",
                                      "--max_steps", "6", "--save_strategy", "no", "--resume_from_checkpoint", ckpt,
                                      "--deepspeed", config)
                self.assertEqual(code, 0, err[-3000:])
                a = read_safetensors(os.path.join(full, "model.safetensors"))
                b = read_safetensors(os.path.join(out, "model.safetensors"))
                for k in a:
                    np.testing.assert_array_equal(a[k], b[k], err_msg=f"{mode}: {k}")

    def test_full_determinism_resumes_bit_identically_on_any_world_size(self):
        # full_determinism sums the gradients slice by slice in one fixed order, so a
        # checkpoint saved on 2 ranks finishes with the very same bits on 1, 2 and 3 ranks.
        # Per-device batch 2 throughout, global batch 12: 2 ranks × GA 3, 1 × GA 6, 3 × GA 2.
        # Dropout is on: every slice draws its masks from its own seed.
        recipe = write(os.path.join(self.tmp, "gpt_dropout.lua"), GPT.replace("bias = false}", "bias = false, dropout = 0.1}"))
        for mode in ("ddp", "zero2", "zero3"):
            with self.subTest(mode=mode):
                common = ["--per_device_train_batch_size", "2", "--full_determinism", "true", "--max_steps", "6", *MODES[mode]]
                full = os.path.join(self.tmp, f"det_full_{mode}")
                code, _, err = launch(2, recipe, "--output_dir", full, "--gradient_accumulation_steps", "3",
                                      "--save_strategy", "steps", "--save_steps", "3", *common)
                self.assertEqual(code, 0, err[-3000:])
                ckpt = os.path.join(full, "checkpoint-3")
                finals = {}
                for n in (1, 2, 3):
                    out = os.path.join(self.tmp, f"det_resume_{mode}_{n}")
                    # One process runs as the recipe says: DDP becomes plain single-process
                    # training; ZeRO-3 keeps its layout (a world of one).
                    args = [a for a in common if not (n == 1 and mode != "zero3" and a in MODES[mode])]
                    code, _, err = launch(n, recipe, "--output_dir", out, "--gradient_accumulation_steps", str(6 // n),
                                          "--save_strategy", "no", "--resume_from_checkpoint", ckpt, *args)
                    self.assertEqual(code, 0, f"{n} ranks: {err[-3000:]}")
                    finals[n] = out
                uninterrupted = read_safetensors(os.path.join(full, "model.safetensors"))
                for n, out in finals.items():
                    resumed = read_safetensors(os.path.join(out, "model.safetensors"))
                    self.assertEqual(sorted(resumed), sorted(uninterrupted))
                    for k in uninterrupted:
                        np.testing.assert_array_equal(resumed[k], uninterrupted[k], err_msg=f"{mode}, {n} ranks: {k}")
                losses = {n: [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
                          for n, out in finals.items()}
                self.assertEqual(losses[1], losses[2])
                self.assertEqual(losses[3], losses[2])



if __name__ == "__main__":
    unittest.main()
