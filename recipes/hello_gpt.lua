-- The first run (scripts/run's default): a small character-level GPT learns to write like the
-- text the repository ships (recipes/lib/shakespeare.txt: 200 kB of Shakespeare) in well
-- under a minute on two CPU cores. It trains with AdamW and a cosine schedule, evaluates on
-- the held-out last tenth of the text as it goes, saves the model, and ends with a sample of
-- generated text.
--   scripts/run                                   (this recipe is the default)
--   build/runner recipes/hello_gpt.lua --text ../shared/data/tinyshakespeare.txt --steps 3000
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{
  text = recipe.path("lib/shakespeare.txt"),
  steps = 1200, batch_size = 32, block_size = 64,
  sample_chars = 300, temperature = 0.8, prompt = "First Citizen:\n",
}

-- Windows of block_size + 1 characters: the model shifts the labels itself (HF's causal-LM
-- convention), so each window gives block_size next-character predictions.
local window = opt.block_size + 1
local train = data.text{ path = opt.text, tokenizer = "chars", block_size = window, range = {0, 0.9},
                         random_windows = true, num_samples = opt.steps * opt.batch_size, seed = 1 }
local val = data.text{ path = opt.text, tokenizer = "chars", block_size = window, range = {0.9, 1} }

torch.manual_seed(1337)
local model = models.gpt{ vocab_size = train:vocab_size(), block_size = window, n_layer = 2, n_head = 4,
                          n_embd = 64, dropout = 0.1, bias = false }

-- Sampling one character at a time from the model's next-character distribution.
local function generate(prompt, n, temperature)
  local ids = train:encode(prompt):tolist()
  model:eval()
  torch.no_grad(function()
    for _ = 1, n do
      local first = math.max(1, #ids - opt.block_size + 1)
      local context = torch.tensor({ { unpack(ids, first, #ids) } })
      local logits = model{ input_ids = context }.logits
      local probs = (logits:select(0, 0):select(0, -1) / temperature):softmax(-1):tolist()
      local r, next_id = math.random(), #probs - 1
      for i, p in ipairs(probs) do
        r = r - p
        if r <= 0 then next_id = i - 1 break end
      end
      ids[#ids + 1] = next_id
    end
  end)
  model:train()
  return train:decode(torch.tensor(ids))
end

return {
  args = {
    output_dir = "runs/hello_gpt",
    max_steps = opt.steps,
    per_device_train_batch_size = opt.batch_size,
    per_device_eval_batch_size = 64,
    learning_rate = 2e-3,
    lr_scheduler_type = "cosine",
    warmup_steps = 50,
    weight_decay = 0.1,
    adam_beta2 = 0.99,
    train_sampling_strategy = "sequential",  -- the windows are already at random offsets
    eval_strategy = "steps",
    eval_steps = 300,
    logging_steps = 100,
    save_strategy = "no",
  },
  datasets = { train = train, eval = val },
  model = model,
  callbacks = {
    { name = "Sample", on_train_end = function(args, state)
        math.randomseed(args.seed)
        print("a sample of the trained model (" .. opt.sample_chars .. " characters after the prompt):\n" ..
              generate(opt.prompt, opt.sample_chars, opt.temperature))
      end },
  },
}
