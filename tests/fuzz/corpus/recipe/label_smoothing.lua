-- Label smoothing (HF's label_smoothing_factor) with a custom metric: the recipe reports
-- accuracy and the expected calibration error (ECE) its compute_metrics computes in Lua.
--   build/runner recipes/label_smoothing.lua --label_smoothing_factor 0.2
local data, models = require "runner.data", require "runner.models"
local common = require "common"

local all = data.synthetic.classification{ n = 2000, features = 16, classes = 5, seed = 3, separation = 1.0 }
local split = all:train_test_split{ test_size = 0.25, seed = 3 }

-- ECE over 10 confidence bins: the gap between confidence and accuracy, weighted by bin size.
local function calibration_error(logits, labels)
  local probs = logits:softmax(-1)
  local confidence, pred = probs:max(-1)
  local correct = pred:eq(labels):float()
  local ece, n = 0, labels:numel()
  for b = 0, 9 do
    local in_bin = confidence:gt(b / 10):long() * confidence:le((b + 1) / 10):long()
    local count = in_bin:sum():item()
    if count > 0 then
      local acc = (correct * in_bin:float()):sum():item() / count
      local conf = (confidence * in_bin:float()):sum():item() / count
      ece = ece + math.abs(acc - conf) * count / n
    end
  end
  return ece
end

torch.manual_seed(0)
return {
  args = { output_dir = "runs/label_smoothing", num_train_epochs = 8, per_device_train_batch_size = 32,
           learning_rate = 3e-3, label_smoothing_factor = 0.1, eval_strategy = "epoch", save_strategy = "no",
           logging_steps = 50 },
  datasets = { train = split.train, eval = split.test },
  model = models.mlp{ sizes = {16, 64, 5}, dropout = 0.1 },
  compute_metrics = function(p)
    return { accuracy = common.accuracy(p.predictions, p.label_ids), ece = calibration_error(p.predictions, p.label_ids) }
  end,
}
