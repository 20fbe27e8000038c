"""--accelerate_config FILE: `accelerate config` YAML files as the HF docs show them (each also
loaded by accelerate's own ClusterConfig loader, so they are real accelerate files) drive
runner: the FSDP and DeepSpeed blocks train to the same weights as the same settings given
as arguments, `runner launch` takes its rank count from num_processes, and mistakes are one
line naming the file and key."""
import json
import os
import shutil
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY, TempDir, read_safetensors, write  # noqa: E402

MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"
PYTHON = os.environ.get("RUNNER_PYTHON", sys.executable)

GPT = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(1)
local ids = torch.randint(0, 32, {24, 8})
return {
  args = { max_steps = 4, per_device_train_batch_size = 4, learning_rate = 0.01, logging_steps = 1,
           save_strategy = "no", report_to = "none" },
  datasets = { train = data.tensors{ input_ids = ids, labels = ids } },
  model = models.gpt{vocab_size = 32, block_size = 8, n_layer = 2, n_head = 2, n_embd = 16, bias = false},
}
"""

# The HF docs' FSDP example (transformers "Fully Sharded Data Parallel", accelerate's
# usage guide), with num_processes 2 for this machine.
FSDP_YAML = """compute_environment: LOCAL_MACHINE
debug: false
distributed_type: FSDP
downcast_bf16: 'no'
fsdp_config:
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_backward_prefetch_policy: BACKWARD_PRE
  fsdp_cpu_ram_efficient_loading: true
  fsdp_forward_prefetch: false
  fsdp_offload_params: false
  fsdp_sharding_strategy: 1
  fsdp_state_dict_type: SHARDED_STATE_DICT
  fsdp_sync_module_states: true
  fsdp_transformer_layer_cls_to_wrap: GPT2Block
  fsdp_use_orig_params: true
machine_rank: 0
main_training_function: main
mixed_precision: bf16
num_machines: 1
num_processes: 2
rdzv_backend: static
same_network: true
tpu_env: []
tpu_use_cluster: false
tpu_use_sudo: false
use_cpu: false
"""

# The HF docs' DeepSpeed example (transformers "DeepSpeed", accelerate config section).
DEEPSPEED_YAML = """compute_environment: LOCAL_MACHINE
deepspeed_config:
  gradient_accumulation_steps: 1
  gradient_clipping: 1.0
  offload_optimizer_device: cpu
  offload_param_device: none
  zero3_init_flag: false
  zero_stage: 2
distributed_type: DEEPSPEED
downcast_bf16: 'no'
machine_rank: 0
main_training_function: main
mixed_precision: 'no'
num_machines: 1
num_processes: 2
rdzv_backend: static
same_network: true
tpu_env: []
tpu_use_cluster: false
tpu_use_sudo: false
use_cpu: false
"""

# `accelerate config` for one process on the CPU.
SINGLE_YAML = """compute_environment: LOCAL_MACHINE
debug: false
distributed_type: 'NO'
downcast_bf16: 'no'
enable_cpu_affinity: false
machine_rank: 0
main_training_function: main
mixed_precision: 'no'
num_machines: 1
num_processes: 1
rdzv_backend: static
same_network: true
tpu_env: []
tpu_use_cluster: false
tpu_use_sudo: false
use_cpu: true
"""


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    return p.returncode, p.stdout, p.stderr


class AccelerateConfig(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir().__enter__()
        cls.recipe = write(os.path.join(cls.tmp, "gpt.lua"), GPT)
        cls.yaml = {name: write(os.path.join(cls.tmp, f"{name}.yaml"), text)
                    for name, text in (("fsdp", FSDP_YAML), ("deepspeed", DEEPSPEED_YAML), ("single", SINGLE_YAML))}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.tmp, name)

    def args_of(self, name):
        with open(os.path.join(self.out(name), "training_args.json")) as f:
            return json.load(f)

    def assert_same_weights(self, a, b):
        wa, wb = (read_safetensors(os.path.join(self.out(n), "model.safetensors")) for n in (a, b))
        self.assertEqual(sorted(wa), sorted(wb))
        for k in wa:
            np.testing.assert_array_equal(wa[k], wb[k], err_msg=k)

    def test_the_files_are_real_accelerate_configs(self):
        # accelerate's own loader (it refuses unknown keys): these are files accelerate reads.
        code = ("import sys\nfrom accelerate.commands.config.config_args import load_config_from_file\n"
                "for f in sys.argv[1:]:\n    c = load_config_from_file(f)\n    print(c.distributed_type, c.num_processes)\n")
        p = subprocess.run([PYTHON, "-c", code, *self.yaml.values()], capture_output=True, text=True, timeout=120)
        if p.returncode != 0 and "No module named" in p.stderr:
            self.skipTest("accelerate is not installed (scripts/setup installs it)")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), ["DistributedType.FSDP", "2", "DistributedType.DEEPSPEED", "2", "DistributedType.NO", "1"])

    def test_fsdp_block_under_runner_launch_equals_the_same_arguments(self):
        # runner launch takes -n from num_processes, as accelerate launch does.
        code, out, err = run([BINARY, "launch", self.recipe, "--accelerate_config", self.yaml["fsdp"], "--output_dir", self.out("fsdp_yaml")])
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn("accelerate config " + self.yaml["fsdp"] + ": bf16 = true, fsdp = full_shard auto_wrap, fsdp_config = ", out)
        args = self.args_of("fsdp_yaml")
        self.assertEqual((args["bf16"], args["fsdp"]), (True, "full_shard auto_wrap"))
        self.assertEqual(args["fsdp_config"]["transformer_layer_cls_to_wrap"], "GPT2Block")
        code, _, err = run([MPIEXEC, "-n", "2", BINARY, self.recipe, "--output_dir", self.out("fsdp_args"), "--bf16", "--fsdp",
                            "full_shard auto_wrap", "--fsdp_config", json.dumps({"transformer_layer_cls_to_wrap": "GPT2Block"})])
        self.assertEqual(code, 0, err[-3000:])
        self.assert_same_weights("fsdp_yaml", "fsdp_args")

    def test_deepspeed_block_equals_the_same_deepspeed_config(self):
        code, out, err = run([MPIEXEC, "-n", "2", BINARY, self.recipe, "--accelerate_config", self.yaml["deepspeed"],
                              "--output_dir", self.out("ds_yaml")])
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn("ZeRO stage 2, optimizer offloaded to the CPU", out)
        ds = {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}, "gradient_accumulation_steps": 1,
              "gradient_clipping": 1.0}
        code, _, err = run([MPIEXEC, "-n", "2", BINARY, self.recipe, "--deepspeed", json.dumps(ds), "--output_dir", self.out("ds_args")])
        self.assertEqual(code, 0, err[-3000:])
        self.assert_same_weights("ds_yaml", "ds_args")

    def test_single_process_cpu_file_and_what_the_recipe_keeps(self):
        code, out, err = run([BINARY, "check", self.recipe, "--accelerate_config", self.yaml["single"], "--output_dir", self.out("c")])
        self.assertEqual(code, 0, err)
        self.assertTrue(json.loads(out)["use_cpu"])
        self.assertIn(": use_cpu = true", err)  # runner check logs on stderr

    def test_launcher_keys_warn_that_they_have_no_effect(self):
        # accelerate launch's own settings (where the main process listens, this machine's
        # rank): mpiexec / srun do that here. accelerate's defaults pass silently.
        code, _, err = run([BINARY, "check", self.recipe, "--accelerate_config", self.yaml["single"], "--output_dir", self.out("l0")])
        self.assertEqual(code, 0, err)
        self.assertNotIn("has no effect", err)
        text = SINGLE_YAML.replace("machine_rank: 0", "machine_rank: 1") + "main_process_ip: 10.0.0.1\nmain_process_port: 29500\n"
        path = write(os.path.join(self.tmp, "launcher.yaml"), text)
        code, _, err = run([BINARY, "check", self.recipe, "--accelerate_config", path, "--output_dir", self.out("l1")])
        self.assertEqual(code, 0, err)
        for key in ("machine_rank", "main_process_ip", "main_process_port"):
            self.assertIn(f"{key} has no effect in runner: a setting of accelerate's launcher", err)

    def test_zero3_init_flag_says_what_runner_does_instead(self):
        text = DEEPSPEED_YAML.replace("zero3_init_flag: false", "zero3_init_flag: true").replace("num_processes: 2", "num_processes: 1")
        path = write(os.path.join(self.tmp, "z3init.yaml"), text)
        code, _, err = run([BINARY, "check", self.recipe, "--accelerate_config", path, "--output_dir", self.out("z3init")])
        self.assertEqual(code, 0, err)
        self.assertIn("zero3_init_flag has no effect in runner: a models.from_pretrained model already reads only each rank's shards", err)

    def test_mistakes_are_one_line_naming_file_and_key(self):
        bad = {
            "unknown.yaml": (SINGLE_YAML + "mixed_precison: bf16\n", "mixed_precison: unknown accelerate setting; did you mean 'mixed_precision'?"),
            "fp8.yaml": (SINGLE_YAML.replace("mixed_precision: 'no'", "mixed_precision: fp8"), "mixed_precision: \"fp8\": runner has no, fp16 and bf16"),
            "tpu.yaml": (SINGLE_YAML.replace("distributed_type: 'NO'", "distributed_type: XLA"), "distributed_type: \"XLA\": runner trains on CUDA GPUs or CPUs"),
            "nvme.yaml": (DEEPSPEED_YAML.replace("offload_param_device: none", "offload_param_device: nvme"),
                          "deepspeed_config.offload_param_device: \"nvme\": runner offloads to the CPU only"),
            "broken.yaml": ("distributed_type: [FSDP\n", "broken.yaml:"),
        }
        for name, (text, message) in bad.items():
            path = write(os.path.join(self.tmp, name), text)
            code, _, err = run([BINARY, "check", self.recipe, "--accelerate_config", path, "--output_dir", self.out("x")])
            self.assertEqual(code, 2, (name, err))
            self.assertIn(message, err, name)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        # num_processes must match the world the run was started in
        code, _, err = run([BINARY, "check", self.recipe, "--accelerate_config", self.yaml["fsdp"], "--output_dir", self.out("x")])
        self.assertEqual(code, 2, err)
        self.assertIn("num_processes = 2, but this run has 1 process: start it with `runner launch --accelerate_config", err)
        # a recipe or command-line value that contradicts the file
        code, _, err = run([BINARY, "check", self.recipe, "--accelerate_config", self.yaml["single"], "--use_cpu", "false",
                            "--output_dir", self.out("x")])
        self.assertEqual(code, 0, err)  # false is the default: the file fills it in
        path = write(os.path.join(self.tmp, "bf16.yaml"), SINGLE_YAML.replace("mixed_precision: 'no'", "mixed_precision: bf16"))
        code, _, err = run([BINARY, "check", self.recipe, "--accelerate_config", path, "--fp16", "--output_dir", self.out("x")])
        self.assertEqual(code, 2, err)
        self.assertIn("fp16 and bf16 both set", err)


if __name__ == "__main__":
    unittest.main()
