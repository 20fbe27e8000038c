-- Supervised fine-tuning with LoRA, evaluated by generation (docs/llm.md, "LoRA adapters"):
-- a Llama-family model learns to answer the instructions of a JSONL file (prompt/response or
-- chat messages; the prompts are masked out of the loss), only its adapters train, and each
-- evaluation also generates every held-out answer from its prompt and scores exact matches.
--   runner recipes/sft_lora.lua --model_dir /path/to/SmolLM2-135M-Instruct --data train.jsonl
-- Without --model_dir it adapts a tiny random Llama over a byte-level tokenizer
-- (recipes/lib/byte_tokenizer), so the recipe runs, and is checked in CI, without a download.
-- The output folder holds the adapters (adapter_model.safetensors + adapter_config.json, as
-- peft writes them); `runner merge-adapters OUT merged/` writes the merged model.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ model_dir = "", data = recipe.path("lib/instructions.jsonl"), max_length = 256, eval_size = 16,
                            r = 16, alpha = 32, dropout = 0.05, target_modules = "all-linear", max_new_tokens = 32 }

local folder = opt.model_dir ~= "" and opt.model_dir or recipe.path("lib/byte_tokenizer")
local tokenizer = data.tokenizer(folder .. "/tokenizer.json")
local base
if opt.model_dir ~= "" then
  base = models.from_pretrained(opt.model_dir)
else
  print("sft_lora: no --model_dir given, adapting a tiny random Llama")
  torch.manual_seed(0)
  base = models.llama{ vocab_size = tokenizer:vocab_size(), hidden_size = 64, intermediate_size = 128, num_hidden_layers = 2,
                       num_attention_heads = 4, num_key_value_heads = 2, max_position_embeddings = 512,
                       eos_token_id = tokenizer:token_to_id("<|endoftext|>") }
end
local model = models.lora(base, { r = opt.r, alpha = opt.alpha, dropout = opt.dropout, target_modules = opt.target_modules })

-- The chat template of the model folder (tokenizer_config.json / chat_template.jinja) when it
-- has one, else the documented simple layout; the end-of-text token ends every answer.
local examples = data.sft{ path = opt.data, tokenizer = folder .. "/tokenizer.json", max_length = opt.max_length }
local split = examples:train_test_split{ test_size = opt.eval_size, seed = 42 }

-- Row b's prompt: the tokens before its first trained label (the answer), padding left out.
local function prompt_of(inputs, b)
  local labels, mask = inputs.labels:select(0, b), inputs.attention_mask:select(0, b)
  local first = labels:ne(-100):long():argmax():item()
  local start = mask:long():argmax():item()          -- the first real token (right padding: 0)
  return inputs.input_ids:select(0, b):narrow(0, start, first - start), labels:narrow(0, first, labels:size(0) - first)
end

return {
  args = { output_dir = "runs/sft_lora", num_train_epochs = 3, per_device_train_batch_size = 8, learning_rate = 2e-3,
           lr_scheduler_type = "cosine", warmup_steps = 0.05, logging_steps = 5, eval_strategy = "epoch",
           save_strategy = "epoch", save_total_limit = 2, per_device_eval_batch_size = 8 },
  datasets = { train = split.train, eval = split.test },
  data_collator = data.pad_collator{ pad_token_id = 0 },  -- padded positions are masked
  model = model,
  -- The loss of the whole example (the answer's tokens), then each answer generated from its
  -- prompt (greedy, the model config's end token stops it): predictions and labels are the
  -- answers' ids, padded with -100.
  prediction_step = function(m, inputs, ctx)
    local loss = m(inputs).loss
    if ctx.prediction_loss_only then return loss end
    local generated, answers = {}, {}
    for b = 0, inputs.input_ids:size(0) - 1 do
      local prompt, answer = prompt_of(inputs, b)
      local out = m:generate(prompt:unsqueeze(0), { max_new_tokens = opt.max_new_tokens })
      generated[#generated + 1] = out:select(0, 0):narrow(0, prompt:size(0), out:size(1) - prompt:size(0))
      answers[#answers + 1] = answer
    end
    local function stack(rows)
      local width = 1
      for _, r in ipairs(rows) do width = math.max(width, r:size(0)) end
      local t = torch.full({ #rows, width }, -100, { dtype = "int64" })
      for i, r in ipairs(rows) do if r:size(0) > 0 then t:select(0, i - 1):narrow(0, 0, r:size(0)):copy_(r) end end
      return t
    end
    return loss, stack(generated), stack(answers)
  end,
  -- An answer matches when the generated tokens equal the reference up to its end token.
  compute_metrics = function(p)
    local matches, n = 0, p.label_ids:size(0)
    for b = 0, n - 1 do
      local want, got = p.label_ids:select(0, b), p.predictions:select(0, b)
      local len = want:ne(-100):long():sum():item()
      if len > 0 and got:size(0) >= len and want:narrow(0, 0, len):ne(got:narrow(0, 0, len)):long():sum():item() == 0 then
        matches = matches + 1
      end
    end
    return { answer_accuracy = matches / n }
  end,
}
