-- Train a TorchScript module exported from Python. Its forward takes batch fields by name
-- (here forward(x, labels=None)) and returns (loss, logits) when labels are given.
-- Export one with scripts/make_tiny_torchscript.py (see docs/models.md):
--   /usr/bin/python3 scripts/make_tiny_torchscript.py /tmp/tiny.pt
--   build/runner recipes/torchscript_finetune.lua --module /tmp/tiny.pt
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ module = "tiny_module.pt" }
local all = data.synthetic.classification{ n = 1024, features = 4, classes = 3, seed = 11 }
local split = all:train_test_split{ test_size = 0.25, seed = 11 }

return {
  args = { output_dir = "runs/torchscript_finetune", num_train_epochs = 3, per_device_train_batch_size = 32,
           learning_rate = 1e-2, eval_strategy = "epoch", save_strategy = "no", logging_steps = 10 },
  datasets = { train = split.train, eval = split.test },
  model = models.torchscript(opt.module),
}
