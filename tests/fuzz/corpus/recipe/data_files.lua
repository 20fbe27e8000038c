-- Every file reader a recipe reaches, on the small files the fuzz target writes.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"
local j = data.jsonl(recipe.path("data.jsonl"))
local c = data.csv(recipe.path("data.csv"))
local t = data.table{ { x = {0.5, 1.5}, labels = 1 }, { x = {2, 3}, labels = 0 }, dtypes = nil }
local mapped = j:map(function(ex, i) return { x = ex.x * 2, extra = torch.tensor(i) } end, { remove_columns = { "labels" } })
local parts = t:shuffle(3):select(0, 2):train_test_split{ test_size = 0.5, seed = 1 }
local lazy = data.lua(function(i) return { x = torch.randn(2), labels = i % 2 } end, 6)
return {
  args = { output_dir = "runs/data", max_steps = 2, per_device_train_batch_size = 2, report_to = "none" },
  datasets = { train = lazy, eval = { jsonl = j, csv = c, table = parts.test }, test = mapped },
  model = models.mlp{ sizes = {2, 4, 2} },
  data_collator = data.pad_collator{ pad_token_id = 0 },
}
