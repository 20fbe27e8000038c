-- Linear regression y = 2x + 3 + noise with one nn.Linear(1, 1): the smallest recipe that
-- exercises the whole runner (data, model, custom loss, training, logging, saving).
--   scripts/run                       (this recipe is the default)
--   build/runner recipes/quickstart.lua --learning_rate 0.05
torch.manual_seed(0)
local data = require "runner.data"

local model = nn.Linear(1, 1)
local n = 256
local x = torch.rand(n, 1) * 4 - 2                      -- x in [-2, 2)
local y = x * 2 + 3 + torch.randn(n, 1) * 0.1           -- noisy line

return {
  args = {
    output_dir = "runs/quickstart",
    num_train_epochs = 20,
    per_device_train_batch_size = 16,
    learning_rate = 0.05,
    optim = "sgd",
    lr_scheduler_type = "constant",
    logging_steps = 40,
    save_strategy = "no",
  },
  datasets = { train = data.tensors{ x = x, labels = y } },
  model = model,
  compute_loss = function(model, inputs, ctx)
    local pred = model(inputs.x)
    return F.mse_loss(pred, inputs.labels), { logits = pred }
  end,
  callbacks = {
    { on_train_end = function()
        print(string.format("learned weight = %.4f, bias = %.4f (true: 2, 3)", model.weight:item(), model.bias:item()))
      end },
  },
}
