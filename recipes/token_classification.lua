-- Token classification (named entities), as HF's run_ner.py does it: fine-tune a BERT, RoBERTa,
-- XLM-RoBERTa, ALBERT, ELECTRA or DistilBERT folder on JSONL of pre-split words and their tags, evaluated by the accuracy of
-- the words' predicted tags each epoch.
--   runner recipes/token_classification.lua --model_dir bert-base-cased --train_file train.jsonl --validation_file dev.jsonl
-- Each line: {"tokens": ["John", "lives", "in", "Paris"], "ner_tags": [1, 0, 0, 3]} (the shape of
-- datasets' CoNLL-2003 export). Words are encoded on their own (is_split_into_words); a word's
-- first token carries its tag, its other tokens and the special tokens -100 (run_ner.py's
-- label_all_tokens = false). --tag_names "O,B-PER,I-PER,..." names the tags in the saved
-- config.json. Without --model_dir a small BERT is trained from scratch with the WordPiece
-- tokenizer in recipes/lib/wordpiece_tokenizer on recipes/lib/ner.jsonl (240 made-up sentences
-- with people and places), which is how CI runs it.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ model_dir = "", train_file = recipe.path("lib/ner.jsonl"), validation_file = "", max_seq_length = 128,
                            tag_names = "O,B-PER,I-PER,B-LOC,I-LOC" }

local names = {}
for name in opt.tag_names:gmatch("[^,]+") do names[#names + 1] = name end

local tokenizer = opt.model_dir ~= "" and opt.model_dir .. "/tokenizer.json" or recipe.path("lib/wordpiece_tokenizer/tokenizer.json")
local tok = data.tokenizer(tokenizer)

-- Tags per token from tags per word: the first token of each word gets the word's tag.
local function encode(ex)
  local enc = tok(ex.tokens, { is_split_into_words = true, max_length = opt.max_seq_length })
  local tags, words = ex.ner_tags:tolist(), enc.word_ids:tolist()
  local labels, previous = {}, -1
  for i, w in ipairs(words) do
    labels[i] = (w >= 0 and w ~= previous) and tags[w + 1] or -100
    previous = w
  end
  return { input_ids = enc.input_ids, attention_mask = enc.attention_mask, labels = torch.tensor(labels) }
end

local raw = data.jsonl(opt.train_file)
local train, eval
if opt.validation_file ~= "" then
  train, eval = raw, data.jsonl(opt.validation_file)
else
  local split = raw:train_test_split{ test_size = 0.2, seed = 42 }
  train, eval = split.train, split.test
end
train = train:map(encode, { remove_columns = { "ner_tags" } })
eval = eval:map(encode, { remove_columns = { "ner_tags" } })

local model
if opt.model_dir ~= "" then
  model = models.from_pretrained(opt.model_dir, { task = "token_classification", num_labels = #names, labels = names })
else
  print("token_classification: no --model_dir given, training a small BERT from scratch")
  torch.manual_seed(0)
  model = models.encoder_classifier{ task = "token_classification", vocab_size = tok:vocab_size(), max_position_embeddings = opt.max_seq_length,
                                     n_layer = 2, n_head = 4, hidden_size = 64, intermediate_size = 128, num_labels = #names,
                                     labels = names }
end

return {
  args = { output_dir = "runs/token_classification", num_train_epochs = opt.model_dir ~= "" and 3 or 12,
           per_device_train_batch_size = 16, per_device_eval_batch_size = 64,
           learning_rate = opt.model_dir ~= "" and 3e-5 or 2e-3, warmup_ratio = 0.1, weight_decay = 0.01,
           eval_strategy = "epoch", save_strategy = "epoch", save_total_limit = 1, logging_steps = 10 },
  datasets = { train = train, eval = eval },
  data_collator = data.pad_collator{ pad_token_id = tok:token_to_id("[PAD]") or tok:token_to_id("<pad>") or 0 },
  model = model,
  -- The words' tags: tokens labelled -100 (padding, special tokens, a word's later pieces) do not count.
  compute_metrics = function(p)
    local predicted = p.predictions:argmax(-1)
    local counted = p.label_ids:ne(-100)
    local right = predicted:eq(p.label_ids):logical_and(counted):sum():item()
    return { accuracy = right / math.max(1, counted:sum():item()) }
  end,
}
