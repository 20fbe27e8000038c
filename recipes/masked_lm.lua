-- Masked language modelling, as HF's run_mlm.py does it: continue pretraining a BERT, RoBERTa,
-- XLM-RoBERTa, DistilBERT, ALBERT or ELECTRA folder (its masked-LM head, task = "masked_lm") on
-- a text file, or train a small BERT from scratch.
--   runner recipes/masked_lm.lua --model_dir bert-base-uncased --train_file corpus.txt --validation_file dev.txt
-- A .txt file is tokenized with the folder's tokenizer.json and cut into blocks of
-- max_seq_length tokens with the tokenizer's [CLS] ... [SEP] around each (run_mlm.py's
-- group_texts); a .jsonl or .parquet file gives one example per row, its --text_column
-- tokenized and truncated to max_seq_length (run_mlm.py's line_by_line), padded per batch.
-- data.mlm_collator masks mlm_probability of the tokens (80% [MASK], 10% a random token, 10%
-- kept; --whole_word_mask: whole words, as transformers' whole_word_mask=True, for .jsonl and
-- .parquet rows, whose token offsets tell words apart); the metric is the accuracy of the
-- predictions at the masked positions, and the log's eval_loss is the masked-LM loss (perplexity = exp(eval_loss)). Without --model_dir a small
-- BERT is trained from scratch with the WordPiece tokenizer in recipes/lib/wordpiece_tokenizer
-- on recipes/lib/sample_text.txt, which is how CI runs it.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ model_dir = "", train_file = recipe.path("lib/sample_text.txt"), validation_file = "", max_seq_length = 128,
                            text_column = "text", mlm_probability = 0.15, whole_word_mask = false }

local tokenizer = opt.model_dir ~= "" and opt.model_dir .. "/tokenizer.json" or recipe.path("lib/wordpiece_tokenizer/tokenizer.json")
local tok = data.tokenizer(tokenizer)

local function examples(path)
  if path:match("%.jsonl$") or path:match("%.parquet$") then  -- a row each
    local rows = path:match("%.jsonl$") and data.jsonl(path) or data.parquet{ path = path, columns = { opt.text_column } }
    return rows:map(function(e)
      local t = tok(e[opt.text_column], { max_length = opt.max_seq_length, return_offsets_mapping = opt.whole_word_mask })
      return { input_ids = t.input_ids, attention_mask = t.attention_mask, offset_mapping = t.offset_mapping }
    end, { remove_columns = { opt.text_column } })
  end
  if opt.whole_word_mask then error("--whole_word_mask needs a .jsonl or .parquet file (its rows' token offsets tell words apart)") end
  -- Blocks of the whole text, the special tokens around each.
  local around = tok:encode("", { add_special_tokens = true })  -- [CLS] [SEP], <s> </s>
  local block = opt.max_seq_length - around:size(0)
  return data.text{ path = path, tokenizer = tokenizer, block_size = block, stride = block }:map(function(e)
    local ids = e.input_ids
    if around:size(0) == 2 then ids = torch.cat{ around:narrow(0, 0, 1), ids, around:narrow(0, 1, 1) } end
    return { input_ids = ids }
  end, { remove_columns = { "labels" } })
end

local train, eval
if opt.validation_file ~= "" then
  train, eval = examples(opt.train_file), examples(opt.validation_file)
else
  local split = examples(opt.train_file):train_test_split{ test_size = 0.1, seed = 42 }
  train, eval = split.train, split.test
end

local model
if opt.model_dir ~= "" then
  model = models.from_pretrained(opt.model_dir, { task = "masked_lm" })
else
  print("masked_lm: no --model_dir given, training a small BERT from scratch")
  torch.manual_seed(0)
  model = models.encoder_classifier{ task = "masked_lm", vocab_size = tok:vocab_size(), max_position_embeddings = opt.max_seq_length,
                                     n_layer = 2, n_head = 4, hidden_size = 64, intermediate_size = 128 }
end

return {
  args = { output_dir = "runs/masked_lm", num_train_epochs = opt.model_dir ~= "" and 3 or 8,
           per_device_train_batch_size = 16, per_device_eval_batch_size = 32,
           learning_rate = opt.model_dir ~= "" and 5e-5 or 2e-3, warmup_ratio = 0.05, weight_decay = 0.01,
           eval_strategy = "epoch", save_strategy = "epoch", save_total_limit = 1, logging_steps = 10 },
  datasets = { train = train, eval = eval },
  data_collator = data.mlm_collator{ tokenizer = tok, mlm_probability = opt.mlm_probability, whole_word_mask = opt.whole_word_mask },
  model = model,
  -- run_mlm.py's: keep only the argmax of the logits, then the accuracy over the masked tokens.
  preprocess_logits_for_metrics = function(logits, labels) return logits:argmax(-1) end,
  compute_metrics = function(p)
    local counted = p.label_ids:ne(-100)
    local right = p.predictions:eq(p.label_ids):logical_and(counted):sum():item()
    return { accuracy = right / math.max(1, counted:sum():item()) }
  end,
}
