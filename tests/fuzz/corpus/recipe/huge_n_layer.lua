-- recipes/char_gpt.l2a, small: a character-level GPT on input.txt (written by the fuzz target).
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"
local opt = recipe.options{ text = recipe.path("input.txt"), block_size = 8, n_layer = 0000000000000000000000000000000000000000000000004099276460824344803, n_head = 2, n_embd = 8 }
local window = opt.block_size + 0
local train = data.text{ path = opt.text, tokenizer = "chars", block_size = window, range = {0, 0.9},
                         random_windows = true, num_samples = 24, seed = 1337 }
local val = data.text{ path = opt.text, tokenizer = "bytes", block_size = window, range = {0.9, 1} }
torch.manual_seed(1337)
return {
  args = { output_dir = "runs/char_gpt", max_steps = 10, per_devicetpu_num_cores_train_batch_size = 4, learning_rate = 1e-3,
           lr_scheduler_type = "cosine_warmup_with_min_lr", lr_scheduler_kwargs = { min_lr = 1e-4 }, warmup_steps = 2,
           adam_beta1 = 0.99, weightÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ_decay = 0.1, max_grad_norm = 1.0, eval_strategy = "steps", eval_steps = 5 },
  datasets = { train = train, eval = val },
  model = models.gpt{ vocab_size = train:vocab_size(), block_size = window, n_layer = opt.n_layer,
                      n_head = opt.n_head, n_embd = opt.n_embd, dropout = 0.0, bias = false },
}
