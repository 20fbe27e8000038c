"""Several nodes on one machine (fake_nodes.py: a network, UTS and mount namespace per node,
MPICH's hydra launching into them), so MPI sees separate hosts: node rank, local rank and node
count; log_on_each_node and save_on_each_node (each node's first process); main_process_first
per node; DDP, ZeRO-1/2/3 and FSDP full_shard across nodes equal one process; hybrid_shard and
hybrid_shard_zero2 shard within a node and replicate across nodes, equal one process, with
each rank holding 1/local_size of its node's states.

Needs root (namespaces, a bridge): elsewhere it prints one line and exits 77 (skipped)."""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import fake_nodes  # noqa: E402
from runner_test_util import BINARY, TempDir, read_safetensors, write  # noqa: E402
from test_distributed import GPT, MLP, MODES, trainable_params  # noqa: E402

# Who each rank is, as the recipe sees it (dist module), and main_process_first's order: every
# rank's fn takes 3 s (more than the ranks' start-up skew) and says when it started and ended.
WHO = """local recipe, dist = require "runner.recipe", require "runner.dist"
local opt = recipe.options{ first = "node" }  -- "node", "world" or "none"
print(string.format("who rank=%d local_rank=%d local_world_size=%d node_rank=%d num_nodes=%d world_size=%d",
  dist.rank, dist.local_rank, dist.local_world_size, dist.node_rank, dist.num_nodes, dist.world_size))
if opt.first ~= "none" then
  dist.main_process_first(function()
    local start = os.time()
    while os.time() < start + 3 do end
    print(string.format("first rank=%d start=%d end=%d", dist.rank, start, os.time()))
  end, { per_node = opt.first == "node" })
end
""" + MLP

PAT_WHO = re.compile(r"who rank=(\d+) local_rank=(\d+) local_world_size=(\d+) node_rank=(\d+) num_nodes=(\d+) world_size=(\d+)")
PAT_FIRST = re.compile(r"first rank=(\d+) start=(\d+) end=(\d+)")


def load_json(path):
    with open(path) as f:
        return json.load(f)


class Nodes(unittest.TestCase):
    """Two nodes, nodea and nodeb, shared by the tests of the class."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir().__enter__()
        cls.recipes = {name: write(os.path.join(cls.tmp, name + ".lua"), text) for name, text in
                       (("who", WHO), ("mlp", MLP), ("gpt", GPT))}
        cls.nodes = fake_nodes.FakeNodes(["nodea", "nodeb"]).__enter__()
        cls.single = {}

    @classmethod
    def tearDownClass(cls):
        cls.nodes.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def launch(self, nodes, ppn, recipe, out, *extra, n=None, code=0):
        cmd = [*nodes.mpiexec(ppn, n), BINARY, self.recipes.get(recipe, recipe), "--output_dir", out, *extra]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
        self.assertEqual(r.returncode, code, f"{' '.join(cmd)}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
        return r.stdout + r.stderr

    def who(self, nodes, ppn, n=None):
        text = self.launch(nodes, ppn, "who", os.path.join(self.tmp, "who"), "--max_steps", "1", "--first", "none", n=n)
        rows = sorted(tuple(int(x) for x in m.groups()) for m in PAT_WHO.finditer(text))
        self.assertEqual(len(rows), n or ppn * len(nodes.hosts), text)
        return rows

    # ---- who is where ----

    def test_node_rank_local_rank_and_node_count(self):
        # (rank, local_rank, local_world_size, node_rank, num_nodes, world_size); hydra fills
        # each node before the next (-ppn)
        self.assertEqual(self.who(self.nodes, 1), [(0, 0, 1, 0, 2, 2), (1, 0, 1, 1, 2, 2)])
        self.assertEqual(self.who(self.nodes, 2), [(0, 0, 2, 0, 2, 4), (1, 1, 2, 0, 2, 4), (2, 0, 2, 1, 2, 4), (3, 1, 2, 1, 2, 4)])
        # Uneven: 2 ranks on nodea, 1 on nodeb; every rank counts two nodes.
        self.assertEqual(self.who(self.nodes, 2, n=3), [(0, 0, 2, 0, 2, 3), (1, 1, 2, 0, 2, 3), (2, 0, 1, 1, 2, 3)])

    def test_three_nodes(self):
        with fake_nodes.FakeNodes(["nodea", "nodeb", "nodec"], tag=self.nodes.tag + 1) as three:
            self.assertEqual(self.who(three, 1), [(0, 0, 1, 0, 3, 3), (1, 0, 1, 1, 3, 3), (2, 0, 1, 2, 3, 3)])
            out = self.train(three, 1, "mlp", "three_zero2", 4, MODES["zero2"])
        self.assertEqual(three.leftovers(), [])
        self.assert_same_weights(out, self.reference("mlp", 12))

    def test_the_nodes_are_separate_hosts_and_are_removed_after_use(self):
        text = self.launch(self.nodes, 1, "who", os.path.join(self.tmp, "hosts"), "--max_steps", "1", "--first", "none",
                           "--log_level_replica", "info")
        root_links = fake_nodes.FakeNodes.root_links()
        with fake_nodes.FakeNodes(["nodex"], tag=self.nodes.tag + 2) as one:
            # The machine's own devices stay as they were: MPI_Init elsewhere lists them.
            self.assertEqual(fake_nodes.FakeNodes.root_links(), root_links)
            r = subprocess.run([*one.mpiexec(1), "sh", "-c", "hostname; ip -o -4 addr show eth0"], capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.split()[0], "nodex")
            self.assertIn(f"{one.subnet}.10/24", r.stdout)
            self.assertNotEqual(one.leftovers(), [])
        self.assertEqual(one.leftovers(), [])
        self.assertIn("num_nodes=2", text)

    # ---- logging, saving and ordering per node ----

    def test_log_on_each_node_logs_on_each_nodes_first_process(self):
        def banner_ranks(text):
            return sorted({int(m.group(1)) for m in re.finditer(r" rank (\d+)\] \*\*\*\*\* Running training", text)})

        text = self.launch(self.nodes, 2, "mlp", os.path.join(self.tmp, "log"), "--max_steps", "2")
        self.assertEqual(banner_ranks(text), [0, 2], text)  # nodea's rank 0 and nodeb's rank 2
        self.assertFalse(re.search(r" rank [123]\] \{'loss'", text), "the metrics dicts come from rank 0 only")
        text = self.launch(self.nodes, 2, "mlp", os.path.join(self.tmp, "log0"), "--max_steps", "2", "--log_on_each_node", "false")
        self.assertEqual(banner_ranks(text), [0], text)

    def test_save_on_each_node_writes_on_each_nodes_disk(self):
        out = os.path.join(self.tmp, "disk")  # each node sees its own folder at this path
        args = ["--max_steps", "6", "--save_strategy", "steps", "--save_steps", "3"]
        with fake_nodes.FakeNodes(["nodea", "nodeb"], private_dir=out, tag=self.nodes.tag + 3) as nodes:
            text = self.launch(nodes, 2, "mlp", out, *args, "--save_on_each_node")
            self.assertNotIn("see one another's files", text)
            for host in nodes.hosts:
                d = nodes.node_dir(host)
                self.assertTrue({"checkpoint-3", "checkpoint-6", "model.safetensors", "trainer_state.json"} <= set(os.listdir(d)), (host, os.listdir(d)))
                self.assertTrue(os.path.isfile(os.path.join(d, "checkpoint-6", "optimizer.safetensors")))
            self.assert_same_weights(nodes.node_dir("nodea"), nodes.node_dir("nodeb"), rtol=0, atol=0)
            self.assertEqual(os.listdir(out), [], "the shared path itself stays empty")
            # Without it only the world's first process writes: nothing on nodeb's disk.
            for host in nodes.hosts:
                shutil.rmtree(nodes.node_dir(host))
                os.makedirs(nodes.node_dir(host))
            self.launch(nodes, 2, "mlp", out, *args)
            self.assertIn("model.safetensors", os.listdir(nodes.node_dir("nodea")))
            self.assertEqual(os.listdir(nodes.node_dir("nodeb")), [])

    def test_zero3_skips_a_best_model_some_node_cannot_see_on_every_rank(self):
        # Without save_on_each_node only the world's first process writes checkpoints (here
        # only the model: sharded optimizer state needs a shared folder), so on node-local
        # disks nodeb never sees the best one. Loading it is collective under
        # ZeRO-3: every rank skips it with HF's warning, instead of nodea's rank waiting in a
        # gather that nodeb never joins.
        recipe = write(os.path.join(self.tmp, "mlp_eval.lua"), MLP.replace(
            "datasets = { train = data.synthetic.classification{n = 50, features = 6, classes = 3, seed = 2} },",
            "datasets = { train = data.synthetic.classification{n = 50, features = 6, classes = 3, seed = 2},\n"
            "               eval = data.synthetic.classification{n = 20, features = 6, classes = 3, seed = 3} },"))
        out = os.path.join(self.tmp, "best_local")
        args = ["--max_steps", "4", "--eval_strategy", "steps", "--eval_steps", "2", "--save_strategy", "steps", "--save_steps", "2",
                "--load_best_model_at_end", "true", "--metric_for_best_model", "eval_loss", "--ddp_timeout", "60", "--save_only_model", "true",
                *MODES["zero3"]]
        with fake_nodes.FakeNodes(["nodea", "nodeb"], private_dir=out, tag=self.nodes.tag + 4) as nodes:
            # Sharded checkpoints gather every rank's shard file into output_dir: on disks the
            # nodes do not share that is refused at the start, not at the first save.
            sharded = [a for a in args if a not in ("--save_only_model", "true")] + ["--load_best_model_at_end", "true"]
            text = self.launch(nodes, 1, recipe, out, *sharded, code=2)
            errors = [line for line in text.splitlines() if line.startswith("runner: error")]
            self.assertEqual(len(errors), 1, text)
            self.assertIn("args.output_dir: the nodes do not share", errors[0])
            self.assertIn("save_on_each_node = true", errors[0])
            self.assertFalse(any(name.startswith("checkpoint-") for name in os.listdir(nodes.node_dir("nodea"))))
            text = self.launch(nodes, 1, recipe, out, *args)
            self.assertIn("checkpoint-4", os.listdir(nodes.node_dir("nodea")))
            self.assertEqual(os.listdir(nodes.node_dir("nodeb")), [])
            self.assertIn("Could not locate the best model at", text)
            self.assertNotIn("Loading best model from", text)
            # A restart with resume_from_checkpoint "auto": nodea would resume, nodeb start
            # afresh. The ranks compare their choices and stop with one line instead.
            text = self.launch(nodes, 1, recipe, out, *args, "--resume_from_checkpoint", "auto", code=2)
            errors = [line for line in text.splitlines() if line.startswith("runner: error")]
            self.assertEqual(len(errors), 1, text)
            self.assertRegex(errors[0], r"the ranks would resume from different checkpoints: rank 0 from \S*checkpoint-4, "
                                        r"rank 1 from none \(a fresh start\)")

    def test_heartbeats_reach_a_node_whose_name_does_not_resolve(self):
        # On cloud VMs and with IP hostfiles a peer's host name need not resolve: its heartbeats
        # must still go to its address (each rank sends its own), or rank 0 would report a
        # healthy rank as "stopped answering" after fault_timeout. Here no name resolves.
        recipe = write(os.path.join(self.tmp, "slow.lua"), MLP.replace("return {", """return {
  callbacks = { { on_step_end = function() local t = os.clock() while os.clock() - t < 0.15 do end end } },""", 1))
        os.environ["RUNNER_FAULT_HOST_LOOKUP"] = "fail"
        try:
            text = self.launch(self.nodes, 1, recipe, os.path.join(self.tmp, "unresolved"), "--max_steps", "40", "--fault_timeout", "2")
        finally:
            del os.environ["RUNNER_FAULT_HOST_LOOKUP"]
        self.assertNotIn("stopped answering", text)
        self.assertNotIn("go astray", text)

    def first_times(self, first):
        text = self.launch(self.nodes, 2, "who", os.path.join(self.tmp, f"first_{first}"), "--max_steps", "1", "--first", first)
        times = {int(m.group(1)): (int(m.group(2)), int(m.group(3))) for m in PAT_FIRST.finditer(text)}
        self.assertEqual(sorted(times), [0, 1, 2, 3], text)
        return times

    def test_main_process_first_per_node_orders_within_each_node(self):
        t = self.first_times("node")
        # Each node's first process (ranks 0 and 2) ends before its node's others start ...
        self.assertGreaterEqual(t[1][0], t[0][1], t)
        self.assertGreaterEqual(t[3][0], t[2][1], t)
        # ... and the two nodes' first processes run at once.
        self.assertLess(t[2][0], t[0][1], t)
        # local=False: rank 0 alone goes first, nodeb's first process waits for it too.
        t = self.first_times("world")
        for r in (1, 2, 3):
            self.assertGreaterEqual(t[r][0], t[0][1], t)

    # ---- training across nodes equals one process ----

    def train(self, nodes, ppn, model, name, batch, extra=(), more=()):
        out = os.path.join(self.tmp, name)
        self.launch(nodes, ppn, model, out, "--per_device_train_batch_size", str(batch), *extra, *more)
        return out

    def reference(self, model, global_batch):
        if (model, global_batch) not in self.single:
            out = os.path.join(self.tmp, f"single_{model}_{global_batch}")
            r = subprocess.run([BINARY, self.recipes[model], "--output_dir", out, "--per_device_train_batch_size", str(global_batch)],
                               capture_output=True, text=True, timeout=240)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.single[(model, global_batch)] = out
        return self.single[(model, global_batch)]

    def assert_same_weights(self, a_dir, b_dir, rtol=1e-5, atol=1e-6):
        a, b = read_safetensors(os.path.join(a_dir, "model.safetensors")), read_safetensors(os.path.join(b_dir, "model.safetensors"))
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)

    def test_every_mode_across_two_nodes_matches_single_process(self):
        for mode in ("ddp", "zero1", "zero2", "zero3", "fsdp_full_shard"):
            with self.subTest(mode=mode):
                out = self.train(self.nodes, 1, "mlp", f"two_{mode}", 4, MODES[mode])
                self.assert_same_weights(out, self.reference("mlp", 8))
        # Units over 2 nodes × 2 ranks: gathers and reduce-scatters cross the nodes.
        out = self.train(self.nodes, 2, "gpt", "two_by_two_full_shard", 4, MODES["fsdp_full_shard"])
        self.assert_same_weights(out, self.reference("gpt", 16))

    def test_hybrid_shard_shards_within_a_node_and_replicates_across_nodes(self):
        # fp32 AdamW with Ψ parameters, local_size 2: a node's ranks split one copy of the states.
        formulas = {"hybrid_shard": lambda p: 16 * p / 2, "hybrid_shard_zero2": lambda p: 4 * p + 12 * p / 2}
        for strategy, formula in formulas.items():
            with self.subTest(strategy=strategy):
                out = os.path.join(self.tmp, strategy)
                text = self.launch(self.nodes, 2, "gpt", out, "--per_device_train_batch_size", "4", "--fsdp", strategy)
                self.assertIn("Hybrid sharding: states sharded over the 2 ranks of each node, replicated over 2 nodes", text)
                self.assert_same_weights(out, self.reference("gpt", 16))
                psi = trainable_params(text)
                measured = load_json(os.path.join(out, "train_results.json"))["model_state_bytes"]
                # Sharding over all 4 ranks (full_shard) would hold half of this.
                self.assertLess(abs(measured - formula(psi)) / formula(psi), 0.10, f"{strategy}: {measured} vs {formula(psi)}")

    def test_hybrid_shard_checkpoint_resumes(self):
        out, resumed = os.path.join(self.tmp, "hybrid_saving"), os.path.join(self.tmp, "hybrid_resumed")
        hybrid = ["--per_device_train_batch_size", "4", "--fsdp", "hybrid_shard", "--save_strategy", "steps", "--save_steps", "3"]
        self.launch(self.nodes, 2, "gpt", out, *hybrid)
        meta = load_json(os.path.join(out, "checkpoint-3", "optimizer.json"))
        self.assertNotIn("shards", meta)  # gathered within a node: one whole copy
        self.launch(self.nodes, 2, "gpt", resumed, *hybrid, "--resume_from_checkpoint", os.path.join(out, "checkpoint-3"))
        self.assert_same_weights(resumed, self.reference("gpt", 16))

    def test_hybrid_shard_needs_equal_nodes(self):
        text = self.launch(self.nodes, 2, "gpt", os.path.join(self.tmp, "uneven"), "--fsdp", "hybrid_shard", n=3, code=2)
        self.assertIn("hybrid sharding needs the same number of processes on every node", text)


if __name__ == "__main__":
    reason = fake_nodes.unavailable()
    if reason:
        print(f"test_multinode: skipped: {reason}")
        sys.exit(77)
    unittest.main()
