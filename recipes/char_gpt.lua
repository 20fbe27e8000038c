-- A character-level GPT on any text file, nanoGPT's shakespeare_char set-up on a CPU:
-- 4 layers, 4 heads, 128 dims, no biases (nanoGPT's default), block 64, batch 12, lr 1e-3 with 100 warmup steps and a
-- cosine decay to 1e-4 over 2000 steps, AdamW beta2 0.99, weight decay 0.1, clipping 1.0.
-- The first 90% of the text trains, the last 10% validates; the vocabulary is the file's
-- characters.
--   build/runner recipes/char_gpt.lua --text ../shared/data/tinyshakespeare.txt [--iters 2000]
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{
  text = recipe.path("lib/sample_text.txt"),
  block_size = 64, n_layer = 4, n_head = 4, n_embd = 128, dropout = 0.0, bias = false,
  iters = 2000, batch_size = 12, init_seed = 1337,
}

-- Windows hold block_size + 1 characters: the model shifts labels inside (HF causal-LM
-- convention), so each window gives block_size predictions with 1..block_size characters of
-- context, the same (context, target) pairs as nanoGPT's x = data[i:i+64], y = data[i+1:i+65].
-- Training windows sit at random offsets (one per example index, reproducible), as
-- nanoGPT samples its batches; validation walks the held-out text window by window.
local window = opt.block_size + 1
local train = data.text{ path = opt.text, tokenizer = "chars", block_size = window, range = {0, 0.9},
                         random_windows = true, num_samples = opt.iters * opt.batch_size, seed = opt.init_seed }
local val = data.text{ path = opt.text, tokenizer = "chars", block_size = window, range = {0.9, 1} }

torch.manual_seed(opt.init_seed)
local model = models.gpt{ vocab_size = train:vocab_size(), block_size = window, n_layer = opt.n_layer,
                          n_head = opt.n_head, n_embd = opt.n_embd, dropout = opt.dropout, bias = opt.bias }

return {
  args = {
    output_dir = "runs/char_gpt",
    max_steps = opt.iters,
    per_device_train_batch_size = opt.batch_size,
    per_device_eval_batch_size = 64,
    learning_rate = 1e-3,
    lr_scheduler_type = "cosine_warmup_with_min_lr",  -- warmup (s+1)/W like nanoGPT
    lr_scheduler_kwargs = { min_lr = 1e-4 },
    warmup_steps = 100,
    adam_beta2 = 0.99,
    weight_decay = 0.1,
    max_grad_norm = 1.0,
    train_sampling_strategy = "sequential",  -- the windows are already random
    eval_strategy = "steps",
    eval_steps = 500,
    logging_steps = 100,
    save_strategy = "steps",
    save_steps = 1000,
    save_total_limit = 2,
  },
  datasets = { train = train, eval = val },
  model = model,
}
