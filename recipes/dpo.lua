-- Direct Preference Optimization, as TRL's DPOTrainer (docs/llm.md, "Preference tuning (DPO)"):
-- a causal LM learns to prefer each pair's chosen completion to its rejected one, measured
-- against a frozen reference (the model as it starts). The JSONL rows hold prompt/chosen/rejected
-- text or chat messages (TRL's preference formats).
--   runner recipes/dpo.lua --model_dir /path/to/SmolLM2-135M-Instruct --data pairs.jsonl
--   runner recipes/dpo.lua --model_dir ... --lora true     (train LoRA adapters; the reference is the base)
-- Without --model_dir it tunes a tiny random Llama over a byte-level tokenizer
-- (recipes/lib/byte_tokenizer), so the recipe runs, and is checked in CI, without a download.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ model_dir = "", data = recipe.path("lib/preferences.jsonl"), max_length = 256, eval_size = 8,
                            beta = 0.1, loss_type = "sigmoid", lora = false, r = 16, alpha = 32 }

local folder = opt.model_dir ~= "" and opt.model_dir or recipe.path("lib/byte_tokenizer")
local tokenizer = data.tokenizer(folder .. "/tokenizer.json")
local model
if opt.model_dir ~= "" then
  model = models.from_pretrained(opt.model_dir)
else
  print("dpo: no --model_dir given, tuning a tiny random Llama")
  torch.manual_seed(0)
  model = models.llama{ vocab_size = tokenizer:vocab_size(), hidden_size = 64, intermediate_size = 128, num_hidden_layers = 2,
                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 512,
                        eos_token_id = tokenizer:token_to_id("<|endoftext|>") }
end
if opt.lora then model = models.lora(model, { r = opt.r, alpha = opt.alpha, target_modules = "all-linear" }) end

-- TRL's preparation: the end-of-text token closes each completion, and each pair is cut where
-- its tokenized prompt ends.
local pairs = data.preference{ path = opt.data, tokenizer = tokenizer, max_length = opt.max_length }
local split = pairs:train_test_split{ test_size = opt.eval_size, seed = 42 }

return {
  -- TRL's DPOConfig has learning_rate = 1e-6 and logging_steps = 10: a tiny random model needs a
  -- higher rate to move in a few steps, and its short epochs (5 steps) log every 5.
  args = { output_dir = "runs/dpo", num_train_epochs = 3, per_device_train_batch_size = 8, learning_rate = 5e-4,
           logging_steps = 5, eval_strategy = "epoch", save_strategy = "epoch", save_total_limit = 1, per_device_eval_batch_size = 8 },
  datasets = { train = split.train, eval = split.test },
  data_collator = data.preference_collator{ max_length = opt.max_length },
  model = model,
  -- The reference: the LoRA model's base, else a frozen copy of the model taken now.
  compute_loss = models.dpo_loss{ beta = opt.beta, loss_type = opt.loss_type },
}
