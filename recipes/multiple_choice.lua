-- Multiple choice (SWAG), as HF's run_swag.py does it: fine-tune a BERT, RoBERTa, XLM-RoBERTa,
-- DistilBERT, ALBERT or ELECTRA folder (task = "multiple_choice") to pick the ending that
-- follows a context.
--   runner recipes/multiple_choice.lua --model_dir bert-base-uncased --train_file train.jsonl --validation_file dev.jsonl
-- Rows are SWAG's ({sent1, sent2, ending0..ending3, label}, as `datasets` writes the "swag"
-- dataset; .jsonl or .parquet): each ending, after sent2, is tokenized with sent1 as a pair and
-- truncated to max_seq_length (the four choices of a row in one call), and
-- data.multiple_choice_collator pads the choices of a batch (DataCollatorForMultipleChoice).
-- The model scores each choice; the metric is the accuracy of the best-scored one. Without
-- --model_dir a small BERT is trained from scratch with the WordPiece tokenizer in
-- recipes/lib/wordpiece_tokenizer on recipes/lib/swag_train.jsonl, which is how CI runs it.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ model_dir = "", train_file = recipe.path("lib/swag_train.jsonl"), validation_file = recipe.path("lib/swag_dev.jsonl"),
                            max_seq_length = 128 }

local scratch = opt.model_dir == ""
local tok = data.tokenizer(scratch and recipe.path("lib/wordpiece_tokenizer/tokenizer.json") or opt.model_dir .. "/tokenizer.json")
local endings = { "ending0", "ending1", "ending2", "ending3" }

local function rows(path)
  local columns = { "sent1", "sent2", "label", unpack(endings) }
  local source = path:match("%.parquet$") and data.parquet{ path = path, columns = columns } or data.jsonl(path)
  return source:map(function(e)
    local firsts, seconds = {}, {}
    for i, name in ipairs(endings) do firsts[i], seconds[i] = e.sent1, e.sent2 .. " " .. e[name] end
    local t = tok(firsts, seconds, { max_length = opt.max_seq_length })  -- (4, tokens)
    return { input_ids = t.input_ids, attention_mask = t.attention_mask, token_type_ids = t.token_type_ids, labels = e.label }
  end, { remove_columns = columns })
end

local model
if scratch then
  print("multiple_choice: no --model_dir given, training a small BERT from scratch")
  torch.manual_seed(0)
  model = models.encoder_classifier{ task = "multiple_choice", vocab_size = tok:vocab_size(), max_position_embeddings = opt.max_seq_length,
                                     n_layer = 2, n_head = 4, hidden_size = 64, intermediate_size = 128 }
else
  model = models.from_pretrained(opt.model_dir, { task = "multiple_choice" })
end

return {
  args = { output_dir = "runs/multiple_choice", num_train_epochs = scratch and 3 or 3,
           per_device_train_batch_size = scratch and 16 or 8, per_device_eval_batch_size = 16,
           learning_rate = scratch and 3e-3 or 5e-5, warmup_ratio = 0.05, weight_decay = 0.01,
           eval_strategy = "epoch", save_strategy = "epoch", save_total_limit = 1, logging_steps = 10 },
  datasets = { train = rows(opt.train_file), eval = rows(opt.validation_file) },
  data_collator = data.multiple_choice_collator{ pad_token_id = tok:token_to_id("[PAD]") or tok:token_to_id("<pad>") or 0 },
  model = model,
  compute_metrics = function(p) return { accuracy = p.predictions:argmax(-1):eq(p.label_ids):double():mean():item() } end,
}
