-- Extractive question answering (SQuAD), as HF's run_qa.py does it: fine-tune a BERT, RoBERTa,
-- XLM-RoBERTa, DistilBERT, ALBERT or ELECTRA folder with a span head (task = "question_answering")
-- to point at the answer inside a context.
--   runner recipes/question_answering.lua --model_dir bert-base-uncased --train_file train.jsonl --validation_file dev.jsonl
-- Files hold SQuAD rows as `datasets` writes them ({id, question, context, answers: {text: [...],
-- answer_start: [...]}}: .jsonl, .json, or the Hub's .parquet), or SQuAD's own JSON. Each question
-- and its context become features of max_seq_length tokens, a long context cut into windows
-- overlapping by doc_stride tokens (data.qa_features). Evaluation turns the start and end logits
-- back into answer texts (n_best_size, max_answer_length; version_2_with_negative for SQuAD 2.0's
-- unanswerable questions) and reports SQuAD's exact_match and f1 (exact and f1 for 2.0) besides
-- the loss. Without --model_dir a small BERT is trained from scratch with the WordPiece tokenizer
-- in recipes/lib/wordpiece_tokenizer on recipes/lib/squad_train.jsonl, which is how CI runs it.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"

local opt = recipe.options{ model_dir = "", train_file = recipe.path("lib/squad_train.jsonl"), validation_file = recipe.path("lib/squad_dev.jsonl"),
                            max_seq_length = 384, doc_stride = 128, n_best_size = 20, max_answer_length = 30,
                            version_2_with_negative = false, null_score_diff_threshold = 0.0 }

local scratch = opt.model_dir == ""
local tok = data.tokenizer(scratch and recipe.path("lib/wordpiece_tokenizer/tokenizer.json") or opt.model_dir .. "/tokenizer.json")
local max_length = scratch and math.min(opt.max_seq_length, 128) or opt.max_seq_length
local stride = scratch and math.min(opt.doc_stride, 32) or opt.doc_stride

local function features(path)
  local source = path:match("%.parquet$") and { dataset = data.parquet{ path = path } } or { path = path }
  source.tokenizer, source.max_length, source.doc_stride = tok, max_length, stride
  return data.qa_features(source)
end
local train, eval = features(opt.train_file), features(opt.validation_file)

local model
if scratch then
  print("question_answering: no --model_dir given, training a small BERT from scratch")
  torch.manual_seed(0)
  model = models.encoder_classifier{ task = "question_answering", vocab_size = tok:vocab_size(), max_position_embeddings = max_length,
                                     n_layer = 2, n_head = 4, hidden_size = 64, intermediate_size = 128, dropout = 0 }
else
  model = models.from_pretrained(opt.model_dir, { task = "question_answering" })
end

local answers = { n_best_size = opt.n_best_size, max_answer_length = opt.max_answer_length,
                  version_2_with_negative = opt.version_2_with_negative, null_score_diff_threshold = opt.null_score_diff_threshold }
local pad = tok:token_to_id("[PAD]") or tok:token_to_id("<pad>") or 0

return {
  args = { output_dir = "runs/question_answering", num_train_epochs = scratch and 12 or 2,
           per_device_train_batch_size = scratch and 16 or 12, per_device_eval_batch_size = 32,
           learning_rate = scratch and 2e-3 or 3e-5, warmup_ratio = 0.05, weight_decay = 0.01,
           eval_strategy = "epoch", save_strategy = "epoch", save_total_limit = 1, logging_steps = 20,
           metric_for_best_model = "f1" },
  datasets = { train = train, eval = eval },
  data_collator = data.pad_collator{ pad_token_id = pad },
  model = model,
  -- p.predictions: (features, tokens, 2) start and end logits, in the eval dataset's order.
  compute_metrics = function(p) return data.qa_metrics(eval, p.predictions, answers) end,
}
