-- The character-level GPT of char_gpt_parquet.lua, pretrained in streaming mode (HF datasets'
-- load_dataset(..., streaming=True) + run_clm's group_texts, with Trainer(max_steps=...)): the
-- Parquet shards are read one row group at a time, never loaded whole, their rows go through a
-- seeded shuffle buffer, are encoded as bytes (ids 0..255, one per ASCII character; a newline,
-- id 10, ends each row) and packed into windows of block_size + 1 on the fly. A stream has no
-- length, so max_steps sets the run's length; a checkpoint saves the stream's position and
-- --resume_from_checkpoint continues it exactly (docs/recipes.md, "Streaming").
--   build/runner recipes/char_gpt_stream.lua [--parquet 'data/train-*.parquet'] [--iters 2000]
--   mpiexec -n 2 build/runner recipes/char_gpt_stream.lua --dataloader_num_workers 2
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{
  parquet = recipe.path("lib/shakespeare.parquet"), column = "text", buffer_size = 256, shuffle_seed = 42,
  block_size = 64, n_layer = 4, n_head = 4, n_embd = 128, dropout = 0.0, bias = false,
  iters = 2000, batch_size = 12, init_seed = 1337,
}

-- Windows hold block_size + 1 bytes: the model shifts the labels inside (HF's causal-LM convention).
local window = opt.block_size + 1
local train = data.stream{ source = opt.parquet, column = opt.column, buffer_size = opt.buffer_size, seed = opt.shuffle_seed,
                           tokenizer = "bytes", block_size = window, eos_token_id = 10 }

torch.manual_seed(opt.init_seed)
local model = models.gpt{ vocab_size = train:vocab_size(), block_size = window, n_layer = opt.n_layer, n_head = opt.n_head,
                          n_embd = opt.n_embd, dropout = opt.dropout, bias = opt.bias }

return {
  args = {
    output_dir = "runs/char_gpt_stream",
    max_steps = opt.iters,  -- required: a stream has no length
    per_device_train_batch_size = opt.batch_size,
    learning_rate = 1e-3,
    lr_scheduler_type = "cosine_warmup_with_min_lr",
    lr_scheduler_kwargs = { min_lr = 1e-4 },
    warmup_steps = 100,
    adam_beta2 = 0.99,
    weight_decay = 0.1,
    max_grad_norm = 1.0,
    logging_steps = 100,
    save_strategy = "steps",
    save_steps = 1000,
    save_total_limit = 2,
  },
  datasets = { train = train },
  model = model,
}
