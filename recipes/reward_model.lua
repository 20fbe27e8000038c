-- A reward model, as TRL's RewardTrainer trains one (docs/llm.md, "Reward modelling"): a sequence
-- classifier with one output (LlamaForSequenceClassification, num_labels = 1) learns to score each
-- pair's chosen sequence above its rejected one (−log σ(r_chosen − r_rejected)). The JSONL rows
-- hold prompt/chosen/rejected text or chat messages (TRL's preference formats, as recipes/dpo.lua
-- reads them), optionally a `margin` the chosen must win by.
--   runner recipes/reward_model.lua --model_dir /path/to/Qwen2.5-0.5B-Instruct --data pairs.jsonl
--   runner recipes/reward_model.lua --model_dir ... --lora true     (LoRA adapters; the score head trains whole)
-- A causal LM's folder gets a new score head (its lm_head is dropped), as
-- AutoModelForSequenceClassification.from_pretrained(..., num_labels=1) does. Without --model_dir it
-- trains a tiny random Llama over a byte-level tokenizer (recipes/lib/byte_tokenizer), so the
-- recipe runs, and is checked in CI, without a download.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ model_dir = "", data = recipe.path("lib/preferences.jsonl"), max_length = 1024, eval_size = 8,
                            center_rewards_coefficient = 0, lora = false, r = 16, alpha = 32 }

local folder = opt.model_dir ~= "" and opt.model_dir or recipe.path("lib/byte_tokenizer")
local tokenizer = data.tokenizer(folder .. "/tokenizer.json")
-- TRL's padding: the tokenizer's pad token, else its end-of-text token. The model finds each
-- row's last token by it, so the model and the collator take the same id.
local pad = tokenizer:pad_token_id() or tokenizer:eos_token_id()
local model
if opt.model_dir ~= "" then
  model = models.from_pretrained(opt.model_dir, { num_labels = 1, pad_token_id = pad })
else
  print("reward_model: no --model_dir given, training a tiny random Llama")
  torch.manual_seed(0)
  model = models.llama{ vocab_size = tokenizer:vocab_size(), hidden_size = 64, intermediate_size = 128, num_hidden_layers = 2,
                        num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 512, num_labels = 1,
                        pad_token_id = pad, eos_token_id = tokenizer:eos_token_id() }
end
-- peft's SEQ_CLS task: the adapters, and the new score head trained and saved whole.
if opt.lora then model = models.lora(model, { r = opt.r, alpha = opt.alpha, target_modules = "all-linear" }) end

-- TRL's preparation: prompt + completion, the end-of-text token closing each completion; pairs
-- longer than max_length are left out.
local pairs = data.reward_pairs{ path = opt.data, tokenizer = tokenizer, max_length = opt.max_length }
local split = pairs:train_test_split{ test_size = opt.eval_size, seed = 42 }

return {
  -- TRL's RewardConfig has learning_rate = 1e-4 and logging_steps = 10: a tiny random model needs
  -- a higher rate to move in a few steps, and its short epochs (5 steps) log every 5.
  args = { output_dir = "runs/reward_model", num_train_epochs = 3, per_device_train_batch_size = 8, learning_rate = 1e-3,
           logging_steps = 5, eval_strategy = "epoch", save_strategy = "epoch", save_total_limit = 1, per_device_eval_batch_size = 8 },
  datasets = { train = split.train, eval = split.test },
  data_collator = data.reward_collator{ pad_token_id = pad },
  model = model,
  compute_loss = models.reward_loss{ center_rewards_coefficient = opt.center_rewards_coefficient ~= 0 and opt.center_rewards_coefficient or nil },
}
