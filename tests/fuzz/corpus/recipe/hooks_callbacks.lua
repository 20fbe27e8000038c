-- Every hook and a callback, in the forms docs/recipes.md shows.
local data, callbacks = require "runner.data", require "runner.callbacks"
local ds = data.synthetic.regression{ n = 32, features = 3, noise = 0.05, seed = 2 }
return {
  args = { output_dir = "runs/hooks", max_steps = 3, logging_steps = 1, optim = "adamw_torch",
           eval_strategy = "steps", eval_steps = 2, save_strategy = "no", include_for_metrics = { "loss" } },
  datasets = { train = ds, eval = ds },
  model_init = function() return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)) end,
  compute_loss = function(model, inputs, ctx)
    local pred = model(inputs.x)
    return F.mse_loss(pred, inputs.labels), { logits = pred }
  end,
  preprocess_logits_for_metrics = function(logits, labels) return logits end,
  compute_metrics = function(p) return { mae = (p.predictions - p.label_ids):abs():mean():item() } end,
  create_optimizer = function(model, args)
    return { type = "adamw_torch", lr = args.learning_rate, weight_decay = 0.1, groups = { { match = "bias$", weight_decay = 0 } } }
  end,
  create_scheduler = function(n, args) return function(step) return math.min(1, (step + 1) / 10) end end,
  callbacks = {
    callbacks.early_stopping{ patience = 3, threshold = 0.0 },
    { name = "Stopper", state = function() return { n = 1 } end, load_state = function(s) end, on_log = function(args, state, control, logs) if state.global_step > 10 then control.should_training_stop = true end end },
  },
}
