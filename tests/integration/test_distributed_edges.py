"""Data-parallel edge cases and failures under `mpiexec`: HF v4's per-rank token averaging,
settings that cannot take effect (warned once; the DeepSpeed config saved), micro-batches
whose labels are all ignored, set-up errors printed once, ranks that build different data,
one date for chat templates on every rank, a Lua error on one rank, stuck ranks aborted by
ddp_timeout, a rank that dies between collectives, ALBERT's layers shared across steps
sharded as units, and LoRA on an embedding under ZeRO-3."""
import json
import os
import subprocess
import sys
import time
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, SOURCE, rank_pid, read_safetensors, write  # noqa: E402
from test_distributed import GPT, LORA, MLP, MODES, MPIEXEC, DistributedCase, launch, load_json, read_text  # noqa: E402


ALBERT = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(1)
local ids = torch.randint(4, 40, {48, 8})
return {
  args = { max_steps = 6, per_device_train_batch_size = 4, learning_rate = 0.01, weight_decay = 0.1,
           warmup_steps = 2, logging_steps = 1, save_strategy = "no", report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids:select(1, 1):remainder(3) } },
  model = models.encoder_classifier{ model_type = "albert", vocab_size = 40, max_position_embeddings = 8, n_layer = 3, n_head = 2,
                                     hidden_size = 16, intermediate_size = 24, embedding_size = 8, num_hidden_groups = 2,
                                     inner_group_num = 2, num_labels = 3, dropout = 0 },
}
"""


class DistributedEdges(DistributedCase):
    def masked_recipe(self):
        """GPT data whose rows 4-11 have only -100 labels: with sequential sampling and 4 rows
        per rank, rank 1's first micro-batch and rank 0's second have nothing to learn."""
        return write(os.path.join(self.tmp, "masked.lua"), GPT.replace(
            "datasets = { train = data.tensors{ input_ids = ids, labels = ids } },",
            """datasets = { train = data.tensors{ input_ids = ids, labels = torch.cat({ids:narrow(0, 0, 4),
    torch.full({8, 8}, -100):long(), ids:narrow(0, 12, 38)}, 0) } },""").replace("max_steps = 6", "max_steps = 4"))

    def test_average_tokens_across_devices_false_averages_the_ranks_means(self):
        # HF v4's behaviour: each rank's loss is its own mean and the ranks' gradients are
        # averaged. In step 1 rank 1 has no items, so the logged loss (the mean over ranks)
        # is half of rank 0's mean, which is the global mean of the default.
        recipe = self.masked_recipe()
        losses = {}
        for flag in ("true", "false"):
            out = os.path.join(self.tmp, f"avg_tokens_{flag}")
            code, _, err = launch(2, recipe, "--output_dir", out, "--per_device_train_batch_size", "4", "--train_sampling_strategy",
                                  "sequential", "--average_tokens_across_devices", flag)
            self.assertEqual(code, 0, err[-2000:])
            losses[flag] = [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
        self.assertAlmostEqual(losses["false"][0], losses["true"][0] / 2, delta=1e-4)  # logged losses carry 4 decimals
        self.assertNotAlmostEqual(losses["false"][2], losses["true"][2], places=4)

    def test_settings_without_effect_warn_once_and_the_deepspeed_config_is_saved(self):
        ds = {"zero_optimization": {"stage": 2, "overlap_comm": False, "reduce_bucket_size": 5000},
              "train_micro_batch_size_per_gpu": "auto", "gradient_clipping": "auto", "zero_allow_untested_optimizer": True}
        out = os.path.join(self.tmp, "honest")
        code, stdout, err = launch(2, self.recipes["mlp"], "--output_dir", out, "--deepspeed", json.dumps(ds),
                                   "--dataloader_persistent_workers", "true", "--run_name", "honest-run")
        self.assertEqual(code, 0, err[-2000:])
        logs = stdout + err
        for key in ("args.dataloader_persistent_workers has no effect", "zero_optimization.overlap_comm has no effect",
                    "zero_allow_untested_optimizer has no effect"):
            self.assertEqual(logs.count(key), 1, f"{key!r} should be said once:\n{logs[-3000:]}")
        self.assertIn("***** Running training ***** honest-run", logs)
        saved = load_json(os.path.join(out, "ds_config.json"))
        self.assertEqual(saved["train_micro_batch_size_per_gpu"], 4)
        self.assertEqual(saved["gradient_clipping"], 1.0)
        self.assertEqual(saved["zero_optimization"]["stage"], 2)
        self.assertIn("DeepSpeed configuration", logs)

    def test_a_micro_batch_of_only_ignored_labels_keeps_ranks_in_step(self):
        # Supervised fine-tuning with masked prompts: step 1 gives rank 1 only -100 labels,
        # step 2 gives them to rank 0. That rank has nothing to learn from, but under ZeRO-3
        # its backward must still join its peers' gathers (it used to skip backward and the
        # job hung until ddp_timeout), and its stand-in loss (0/0 = NaN) must not reach the
        # summed gradients or the logged loss.
        recipe = self.masked_recipe()
        common = ["--train_sampling_strategy", "sequential", "--ddp_timeout", "60"]
        single = os.path.join(self.tmp, "masked_single")
        code, _, err = launch(1, recipe, "--output_dir", single, "--per_device_train_batch_size", "8", *common)
        self.assertEqual(code, 0, err[-2000:])
        for mode in ("ddp", "zero2", "zero3", "fsdp_full_shard"):
            with self.subTest(mode=mode):
                out = os.path.join(self.tmp, f"masked_{mode}")
                start = time.time()
                code, _, err = launch(2, recipe, "--output_dir", out, "--per_device_train_batch_size", "4", *common,
                                      *MODES[mode], timeout=120)
                self.assertEqual(code, 0, err[-2000:])
                self.assertLess(time.time() - start, 50, "the ranks fell out of step and waited for ddp_timeout")
                self.assert_same_weights(out, single)
                losses = [e["loss"] for e in load_json(os.path.join(out, "trainer_state.json"))["log_history"] if "loss" in e]
                want = [e["loss"] for e in load_json(os.path.join(single, "trainer_state.json"))["log_history"] if "loss" in e]
                np.testing.assert_allclose(losses, want, rtol=1e-4)
        # A loss written as sum / count is 0/0 = NaN there, with NaN gradients: the stand-in
        # backward's gradients must be dropped, not summed into the others'.
        nan_loss = write(os.path.join(self.tmp, "masked_nan.lua"), read_text(recipe).replace("return {", """local F = require "runner.F"
return {
  compute_loss = function(model, inputs, ctx)
    local logits = model(inputs).logits
    local t = logits:size(1)
    local target = inputs.labels:narrow(1, 1, t - 1):reshape(-1)
    local nll = F.cross_entropy(logits:narrow(1, 0, t - 1):reshape(-1, 32), target:clamp(0):long(), { reduction = "none" })
    local mask = target:ne(-100):float()
    return (nll * mask):sum() / mask:sum()
  end,""", 1))
        single_nan = os.path.join(self.tmp, "masked_nan_single")
        code, _, err = launch(1, nan_loss, "--output_dir", single_nan, "--per_device_train_batch_size", "8", *common)
        self.assertEqual(code, 0, err[-2000:])
        self.assert_same_weights(single_nan, single)
        for mode in ("ddp", "zero3"):
            with self.subTest(mode=mode, loss="sum/count"):
                out = os.path.join(self.tmp, f"masked_nan_{mode}")
                code, _, err = launch(2, nan_loss, "--output_dir", out, "--per_device_train_batch_size", "4", *common,
                                      *MODES[mode], timeout=120)
                self.assertEqual(code, 0, err[-2000:])
                self.assert_same_weights(out, single)

    def test_set_up_errors_are_printed_once_without_launcher_noise(self):
        # Every rank resolves the same command line: one line, exit 2, no MPI_Abort lines.
        code, _, err = launch(2, self.recipes["mlp"], "--output_dir", os.path.join(self.tmp, "typo"), "--lerning_rate", "0.1")
        self.assertEqual(code, 2, err)
        self.assertEqual(err.strip().splitlines(),
                         ["runner: error: command line: --lerning_rate: unknown argument; did you mean 'learning_rate'?"])
        # An error on one rank only names that rank; the others stop quietly.
        recipe = write(os.path.join(self.tmp, "rank1.lua"), MLP.replace("return {", """local dist = require "runner.dist"
if dist.rank == 1 then error("no data on this node") end
return {""", 1))
        code, _, err = launch(2, recipe, "--output_dir", os.path.join(self.tmp, "rank1"))
        self.assertEqual(code, 2, err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^runner: error: \[rank 1\] .*rank1\.lua:\d+: no data on this node$")

    def test_ranks_that_build_different_datasets_stop_with_one_line(self):
        # A rank whose data differs (a split seeded by the rank, a file that differs per node)
        # would train on other examples or hang in a collective: refused before training.
        for name, change, message in (
                ("sizes", "local n = 16 + dist.rank", "datasets.train differs between ranks: rank 0 built 16 examples, rank 1 17;"),
                ("contents", "torch.manual_seed(dist.rank)\nlocal n = 16",
                 "datasets.train differs between ranks: rank 0 built 16 examples, rank 1 16, with different contents;")):
            with self.subTest(differ=name):
                recipe = write(os.path.join(self.tmp, f"differ_{name}.lua"), f"""local data, dist = require "runner.data", require "runner.dist"
{change}
return {{
  args = {{ max_steps = 2, per_device_train_batch_size = 4, save_strategy = "no", report_to = "none" }},
  datasets = {{ train = data.tensors{{ x = torch.randn(n, 2), labels = torch.randn(n, 1) }} }},
  model = nn.Linear(2, 1),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
}}
""")
                code, _, err = launch(2, recipe, "--output_dir", os.path.join(self.tmp, f"differ_{name}"))
                self.assertEqual(code, 2, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(message, err)
        # The same data on both ranks passes (the seed is the run's, not the rank's).
        code, _, err = launch(2, self.recipes["mlp"], "--output_dir", os.path.join(self.tmp, "same_data"))
        self.assertEqual(code, 0, err[-2000:])

    def test_chat_templates_render_one_date_on_every_rank(self):
        # strftime_now is frozen at start-up to rank 0's clock: a rank that builds its data
        # later (here 2 s, in real runs perhaps after midnight) renders the same text, so the
        # ranks' datasets agree and training starts. (Unfrozen, the dataset check above would
        # refuse the run: the rendered seconds differ.)
        rows = os.path.join(self.tmp, "chat.jsonl")
        with open(rows, "w") as f:
            for i in range(8):
                f.write(json.dumps({"prompt": f"q{i}", "response": f"a{i}"}) + "\n")
        recipe = write(os.path.join(self.tmp, "date.lua"), """local data, dist, models = require "runner.data", require "runner.dist", require "runner.models"
if dist.rank == 1 then local t = os.time() while os.time() < t + 2 do end end
local tmpl = "{{ strftime_now('%s') }}{% for m in messages %}{{ m.role }}: {{ m.content }}\\n{% endfor %}"
local ds = data.sft{ path = ROWS, tokenizer = TOKENIZER, chat_template = tmpl, max_length = 48 }
return {
  args = { max_steps = 2, per_device_train_batch_size = 2, save_strategy = "no", report_to = "none" },
  datasets = { train = ds },
  data_collator = data.pad_collator{ pad_token_id = 0 },
  model = models.llama{ vocab_size = 256, hidden_size = 16, intermediate_size = 24, num_hidden_layers = 1,
                        num_attention_heads = 2, num_key_value_heads = 1, max_position_embeddings = 64 },
}
""".replace("ROWS", json.dumps(rows)).replace("TOKENIZER", json.dumps(os.path.join(SOURCE, "recipes/lib/byte_tokenizer/tokenizer.json"))))
        code, _, err = launch(2, recipe, "--output_dir", os.path.join(self.tmp, "date"))
        self.assertEqual(code, 0, err[-2000:])

    def test_lua_error_on_one_rank_stops_every_rank(self):
        recipe = write(os.path.join(self.tmp, "fail.lua"), MLP.replace("return {", """local dist = require "runner.dist"
return {
  compute_loss = function(model, inputs, ctx)
    if dist.rank == 1 then error("boom on rank one") end
    return model(inputs).loss
  end,""", 1))
        start = time.time()
        code, out, err = launch(2, recipe, "--output_dir", os.path.join(self.tmp, "fail"), timeout=120)
        self.assertNotEqual(code, 0)
        self.assertLess(time.time() - start, 60)
        self.assertEqual(err.count("boom on rank one"), 1, err)
        self.assertIn("[rank 1]", err)

    def test_a_callback_reading_a_sharded_parameter_gets_one_line(self):
        # Under ZeRO-3 a parameter outside its unit's forward and backward has its shape but
        # not its memory: shape reads work, a value read is one error naming the recipe line
        # (it used to read freed memory: a segmentation fault).
        recipe = write(os.path.join(self.tmp, "reads_params.lua"), MLP.replace(
            "model = models.mlp{sizes = {6, 16, 3}, input = \"x\"},", """model = net,
  callbacks = { { on_step_end = function(args, state, control)
      local n = 0
      for _, p in net:named_parameters() do n = n + p:numel() * #p:shape() end
      print("SHAPES " .. n)
      if state.global_step == 2 then
        for _, p in net:named_parameters() do print(p:sum():item()) end
      end
    end } },""").replace("return {", "local net = models.mlp{sizes = {6, 16, 3}, input = \"x\"}\nreturn {", 1))
        code, out, err = launch(2, recipe, "--output_dir", os.path.join(self.tmp, "reads_params"), *MODES["fsdp_full_shard_linear"], timeout=120)
        self.assertEqual(code, 2, err[-2000:])
        self.assertEqual(out.count("SHAPES 307"), 2, out)  # 2·(6·16) + 16 + 2·(16·3) + 3, at steps 1 and 2 (rank 0 prints)
        lines = [line for line in err.splitlines() if "sharded by ZeRO-3" in line]
        self.assertEqual(len(lines), 2, err)  # one per rank
        self.assertIn("reads_params.lua:15:", lines[0])  # the p:sum() line

    def test_zero3_frees_the_root_unit_after_an_evaluation(self):
        # Training frees the root unit (embeddings, final norm) when backward ends; an
        # evaluation loop has no backward, so it frees the root when it ends: after training
        # (the final evaluation, prediction, saving) no rank keeps it whole.
        recipe = write(os.path.join(self.tmp, "root_after_eval.lua"), GPT.replace(
            "datasets = { train = data.tensors{ input_ids = ids, labels = ids } },",
            "datasets = { train = data.tensors{ input_ids = ids, labels = ids }, eval = data.tensors{ input_ids = ids, labels = ids } },\n"
            "  callbacks = { { on_evaluate = function()\n"
            "      for name, p in net:named_parameters() do\n"
            "        if name == \"transformer.wte.weight\" then print(\"ROOT WHOLE \" .. tostring(pcall(function() return p:sum():item() end))) end\n"
            "      end\n"
            "    end } },").replace(
            "model = models.gpt{vocab_size = 32, block_size = 8, n_layer = 2, n_head = 2, n_embd = 16, bias = false},", "model = net,").replace(
            "return {", "local net = models.gpt{vocab_size = 32, block_size = 8, n_layer = 2, n_head = 2, n_embd = 16, bias = false}\nreturn {", 1))
        out = os.path.join(self.tmp, "root_after_eval")
        code, stdout, err = launch(2, recipe, "--output_dir", out, "--max_steps", "2", "--eval_strategy", "steps", "--eval_steps", "1",
                                   "--do_eval", "true", *MODES["zero3"], timeout=120)
        self.assertEqual(code, 0, err[-3000:])
        self.assertEqual(stdout.count("ROOT WHOLE false"), 3, stdout)  # steps 1 and 2, and the final evaluation
        self.assertNotIn("ROOT WHOLE true", stdout)

    def test_a_stuck_rank_is_aborted_by_ddp_timeout(self):
        # dist.main_process_first while the recipe loads makes the world's communicator before
        # ddp_timeout is known: it must still take the run's 3 s (not the default 1800 s).
        recipe = write(os.path.join(self.tmp, "stuck.lua"), MLP.replace("return {", """local dist = require "runner.dist"
dist.main_process_first(function() end)
return {
  callbacks = { { on_step_end = function(args, state)
    if dist.rank == 1 and state.global_step == 2 then local t = os.clock() while os.clock() - t < 60 do end end
  end } },""", 1))
        start = time.time()
        code, out, err = launch(2, recipe, "--output_dir", os.path.join(self.tmp, "stuck"), "--ddp_timeout", "3", timeout=120)
        self.assertNotEqual(code, 0)
        self.assertLess(time.time() - start, 40, "ddp_timeout did not bound the wait")
        self.assertIn("ddp_timeout", err)

    def test_a_rank_stuck_at_teardown_is_aborted_by_ddp_timeout(self):
        # Rank 0 finishes and waits in MPI_Finalize for rank 1, which hangs after training:
        # the wait is bounded too (blocking_call.h), with one line naming it.
        recipe = write(os.path.join(self.tmp, "stuck_end.lua"), MLP.replace("return {", """local dist = require "runner.dist"
return {
  callbacks = { { on_train_end = function()
    if dist.rank == 1 then local t = os.clock() while os.clock() - t < 60 do end end
  end } },""", 1))
        start = time.time()
        code, out, err = launch(2, recipe, "--output_dir", os.path.join(self.tmp, "stuck_end"), "--ddp_timeout", "3", timeout=120)
        self.assertNotEqual(code, 0)
        self.assertLess(time.time() - start, 40, "ddp_timeout did not bound the wait at teardown")
        self.assertEqual(err.strip().splitlines(), [
            "runner: error: rank 0 waited 3 s in MPI_Finalize (waiting for the other ranks to finish) (ddp_timeout = 3 s): "
            "a peer died or is stuck; aborting every rank"])

    def test_a_rank_that_dies_between_collectives_stops_every_rank(self):
        # Under plain mpiexec, MPICH kills the other ranks at once (only its banner speaks);
        # under runner launch, runner's own last line names the dead rank and its step.
        for how in ("mpiexec", "launch"):
            with self.subTest(launcher=how):
                self.rank_dies_between_collectives(how)

    def rank_dies_between_collectives(self, how):
        # Rank 1 is killed (SIGKILL: no word, no cleanup) while it is inside runner between
        # step 2's and step 3's collectives (its callback says so on stdout and waits there);
        # rank 0 is then alone in step 3's collectives and must neither train on nor hang.
        recipe = write(os.path.join(self.tmp, "dies.lua"), MLP.replace("max_steps = 6", "max_steps = 1000").replace("return {", """local dist = require "runner.dist"
return {
  callbacks = { { on_step_end = function(args, state)
    if dist.rank == 1 and state.global_step == 2 then
      print("RANK1-BETWEEN-COLLECTIVES")
      local t = os.clock() while os.clock() - t < 60 do end
    end
  end } },""", 1))
        out = os.path.join(self.tmp, "dies_" + how)
        # log_level_replica info: rank 1's print is logged at info, which replicas hide by default.
        start_ranks = [MPIEXEC, "-n", "2", BINARY] if how == "mpiexec" else [BINARY, "launch", "-n", "2"]
        p = subprocess.Popen([*start_ranks, recipe, "--output_dir", out, "--ddp_timeout", "20", "--log_level_replica", "info"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        start = time.time()
        seen = []
        for line in p.stdout:
            seen.append(line)
            if "RANK1-BETWEEN-COLLECTIVES" in line:
                break
        else:
            self.fail("rank 1 never reached its wait: " + "".join(seen)[-3000:] + p.communicate()[1][-2000:])
        victim = rank_pid(out, 1)
        if victim is None:
            p.kill()
            rest, err = p.communicate()
            self.fail(f"rank 1 not found\nstdout: {''.join(seen)[-3000:]}{rest[-2000:]}\nstderr: {err[-3000:]}")
        if how == "launch":
            # The launcher keeps each rank's record as of its last heartbeat (every second at
            # the default fault_timeout): let one pass so the record shows step 2.
            time.sleep(2.5)
        os.kill(victim, 9)
        try:
            _, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("rank 0 kept running after rank 1 died")
        self.assertNotEqual(p.returncode, 0)
        self.assertLess(time.time() - start, 60)
        self.assertFalse(os.path.exists(os.path.join(out, "model.safetensors")), "rank 0 finished training alone")
        if how == "launch":
            last = err.strip().splitlines()[-1]
            self.assertRegex(last, r"^runner: error: rank 1 \(pid \d+\) died without a word .* at step 2\b", err[-2000:])
            self.assertEqual(p.returncode, 1)


    def test_albert_layers_shared_across_steps_match_single_process_when_sharded(self):
        # ALBERT runs each shared layer at several steps of a forward: as a ZeRO-3 unit it is
        # gathered again for each use, and its gradient is complete only after the last.
        recipe = write(os.path.join(self.tmp, "albert.lua"), ALBERT)
        single = os.path.join(self.tmp, "albert_single")
        code, _, err = launch(1, recipe, "--output_dir", single, "--per_device_train_batch_size", "8")
        self.assertEqual(code, 0, err[-2000:])
        want = read_safetensors(os.path.join(single, "model.safetensors"))
        for name, extra in (("zero3", MODES["zero3"]),
                            ("fsdp_layers", ["--fsdp", "full_shard auto_wrap", "--fsdp_config", '{"transformer_layer_cls_to_wrap": ["AlbertLayer"]}'])):
            with self.subTest(mode=name):
                out = os.path.join(self.tmp, f"albert_{name}")
                code, stdout, err = launch(2, recipe, "--output_dir", out, "--per_device_train_batch_size", "4", *extra)
                self.assertEqual(code, 0, err[-2000:])
                got = read_safetensors(os.path.join(out, "model.safetensors"))
                self.assertEqual(sorted(got), sorted(want))
                for k in want:
                    if k.endswith("attention.key.bias"):  # an exactly-zero true gradient: Adam amplifies rounding noise
                        continue
                    np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
                # ZeRO-3's default is one root unit (gathered once a step); wrapped, the layers are units too.
                gathers = load_json(os.path.join(out, "trainer_state.json"))["log_history"][-1]["train_unit_gathers"]
                (self.assertGreater if name == "fsdp_layers" else self.assertEqual)(gathers, 6)


    def test_lora_on_an_embedding_matches_single_process_under_zero3(self):
        # peft's embedding branch and the embedding's own weight saved beside it (sharded under
        # ZeRO-3, gathered for the file) are one process's.
        recipe = write(os.path.join(self.tmp, "lora_embed.lua"), LORA.replace('target_modules = "all-linear"', 'target_modules = {"embed_tokens", "q_proj"}'))
        outs = {}
        for name, n, batch, extra in (("single", 1, "8", []), ("zero3", 2, "4", MODES["zero3"])):
            outs[name] = os.path.join(self.tmp, f"lora_embed_{name}")
            code, _, err = launch(n, recipe, "--output_dir", outs[name], "--per_device_train_batch_size", batch, *extra)
            self.assertEqual(code, 0, err[-2000:])
        want = read_safetensors(os.path.join(outs["single"], "adapter_model.safetensors"))
        got = read_safetensors(os.path.join(outs["zero3"], "adapter_model.safetensors"))
        self.assertIn("base_model.model.model.embed_tokens.lora_embedding_A", want)
        self.assertIn("base_model.model.model.embed_tokens.base_layer.weight", want)
        self.assertEqual(sorted(got), sorted(want))
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)

if __name__ == "__main__":
    unittest.main()
