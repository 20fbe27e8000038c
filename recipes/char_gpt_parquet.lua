-- The character-level GPT of char_gpt.lua trained from a Parquet file of text rows, the format
-- every Hub dataset is published in (here lib/shakespeare.parquet: lib/shakespeare.txt, one row
-- per paragraph in a "text" column, 3 row groups). As HF's run_clm.py prepares such a dataset:
-- the rows' text concatenated and cut into windows of block_size + 1 (its group_texts), then
-- 90% train / 10% eval (train_test_split). The vocabulary is the corpus's characters, sorted
-- (nanoGPT's shakespeare_char); the model and optimizer are char_gpt.lua's.
--   build/runner recipes/char_gpt_parquet.lua [--parquet 'data/train-*.parquet'] [--column text] [--iters 2000]
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{
  parquet = recipe.path("lib/shakespeare.parquet"), column = "text",
  block_size = 64, n_layer = 4, n_head = 4, n_embd = 128, dropout = 0.0, bias = false,
  iters = 2000, batch_size = 12, init_seed = 1337,
}

-- Only the text column is read (projection); each row's value is a Lua string.
local rows = data.parquet{ path = opt.parquet, columns = { opt.column } }
local utf8_char = "[%z\1-\127\194-\244][\128-\191]*"
local texts, seen, chars = {}, {}, {}
for i = 0, #rows - 1 do
  local s = rows:get(i)[opt.column] or ""  -- a null row holds no text
  texts[#texts + 1] = s
  for ch in s:gmatch(utf8_char) do
    if not seen[ch] then seen[ch], chars[#chars + 1] = true, ch end
  end
end
table.sort(chars)  -- UTF-8 byte order is code point order
local id = {}
for k, ch in ipairs(chars) do id[ch] = k - 1 end
local ids = {}
for _, s in ipairs(texts) do
  for ch in s:gmatch(utf8_char) do ids[#ids + 1] = id[ch] end
end

-- Windows hold block_size + 1 characters: the model shifts the labels inside (HF's causal-LM
-- convention), so each gives block_size predictions. The remainder that fills no window is dropped.
local window = opt.block_size + 1
local n = math.floor(#ids / window)
local windows = torch.tensor(ids):narrow(0, 0, n * window):view(n, window)
local split = data.tensors{ input_ids = windows, labels = windows:clone() }
                  :train_test_split{ test_size = 0.1, seed = opt.init_seed }

torch.manual_seed(opt.init_seed)
local model = models.gpt{ vocab_size = #chars, block_size = window, n_layer = opt.n_layer, n_head = opt.n_head,
                          n_embd = opt.n_embd, dropout = opt.dropout, bias = opt.bias }

return {
  args = {
    output_dir = "runs/char_gpt_parquet",
    max_steps = opt.iters,
    per_device_train_batch_size = opt.batch_size,
    per_device_eval_batch_size = 64,
    learning_rate = 1e-3,
    lr_scheduler_type = "cosine_warmup_with_min_lr",
    lr_scheduler_kwargs = { min_lr = 1e-4 },
    warmup_steps = 100,
    adam_beta2 = 0.99,
    weight_decay = 0.1,
    max_grad_norm = 1.0,
    eval_strategy = "steps",
    eval_steps = 500,
    logging_steps = 100,
    save_strategy = "steps",
    save_steps = 1000,
    save_total_limit = 2,
  },
  datasets = { train = split.train, eval = split.test },
  model = model,
}
