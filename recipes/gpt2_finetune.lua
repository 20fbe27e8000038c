-- Fine-tune a Hugging Face GPT-2 checkpoint (a folder with config.json and
-- model.safetensors, as save_pretrained writes it) on a text file.
--   build/runner recipes/gpt2_finetune.lua --model_dir /path/to/gpt2 --text corpus.txt
-- The text is encoded with the folder's tokenizer.json (the hub's GPT-2 folders have one; give
-- another with --tokenizer FILE). Without --model_dir it builds a small GPT-2-shaped model
-- from scratch over raw bytes, so the recipe also runs (and is checked) on machines without
-- a downloaded checkpoint. The weights it saves load back into transformers'
-- GPT2LMHeadModel, and `runner generate runs/gpt2_finetune --prompt "..."` continues text.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ model_dir = "", tokenizer = "", text = recipe.path("lib/sample_text.txt"), block_size = 64 }

local model, tokenizer
if opt.model_dir ~= "" then
  model = models.from_pretrained(opt.model_dir)
  tokenizer = opt.tokenizer ~= "" and opt.tokenizer or opt.model_dir .. "/tokenizer.json"
else
  print("gpt2_finetune: no --model_dir given, training a small GPT-2 from scratch over bytes")
  torch.manual_seed(0)
  model = models.gpt{ vocab_size = 256, block_size = 128, n_layer = 2, n_head = 4, n_embd = 128 }
  tokenizer = opt.tokenizer ~= "" and opt.tokenizer or "bytes"
end

print("gpt2_finetune: text encoded with " .. tokenizer)
local train = data.text{ path = opt.text, tokenizer = tokenizer, block_size = opt.block_size, range = {0, 0.9} }
local val = data.text{ path = opt.text, tokenizer = tokenizer, block_size = opt.block_size, range = {0.9, 1} }

return {
  args = { output_dir = "runs/gpt2_finetune", num_train_epochs = 1, per_device_train_batch_size = 4,
           learning_rate = 5e-5, warmup_steps = 0.1, weight_decay = 0.01, eval_strategy = "epoch",
           save_strategy = "epoch", logging_steps = 10 },
  datasets = { train = train, eval = val },
  model = model,
}
