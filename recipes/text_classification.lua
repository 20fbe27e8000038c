-- Text classification, as HF's run_glue.py / run_classification.py examples do it: fine-tune a
-- BERT, RoBERTa, XLM-RoBERTa, CamemBERT, ALBERT, ELECTRA or DistilBERT folder on a CSV or JSONL of sentences (or sentence pairs) and labels, evaluated by
-- accuracy each epoch.
--   runner recipes/text_classification.lua --model_dir bert-base-uncased --train_file train.csv --validation_file dev.csv
-- Columns: "sentence" (or "text"), or "sentence1" and "sentence2" for pairs (MRPC, RTE, ...);
-- "label": integers 0..n-1, or names, numbered in sorted order as the examples do. The
-- folder's tokenizer.json encodes them ([CLS] A [SEP] B [SEP] with token_type_ids, cut to
-- --max_seq_length longest first). Without --validation_file a seeded fifth of the training
-- file is held out. Without --model_dir a small BERT is trained from scratch with the
-- WordPiece tokenizer in recipes/lib/wordpiece_tokenizer on recipes/lib/sentiment.jsonl (240
-- made-up movie-review sentences), which is how CI runs it. The output folder loads with
-- transformers' AutoModelForSequenceClassification, labels' names in its config.json.
local data, models, recipe = require "runner.data", require "runner.models", require "runner.recipe"
local common = require "common"

local opt = recipe.options{ model_dir = "", train_file = recipe.path("lib/sentiment.jsonl"), validation_file = "",
                            max_seq_length = 128 }

local function load(path)
  if path:match("%.csv$") then return data.csv(path) end
  return data.jsonl(path)
end

-- The label set, as the examples number it: names in sorted order, integers as they are.
local raw = load(opt.train_file)
local names, seen, top = {}, {}, -1
for i = 0, #raw - 1 do
  local label = raw:get(i).label
  if label == nil then error(opt.train_file .. ": example " .. i .. " has no \"label\"") end
  if type(label) == "string" then
    if not seen[label] then seen[label], names[#names + 1] = true, label end
  else
    top = math.max(top, label:item())
  end
end
table.sort(names)
local label_id = {}
for i, name in ipairs(names) do label_id[name] = i - 1 end
local num_labels = #names > 0 and #names or top + 1

local tokenizer = opt.model_dir ~= "" and opt.model_dir .. "/tokenizer.json" or recipe.path("lib/wordpiece_tokenizer/tokenizer.json")
local tok = data.tokenizer(tokenizer)

local function encode(ex)
  local first = ex.sentence1 or ex.sentence or ex.text
  if first == nil then error("an example needs a \"sentence\", \"text\" or \"sentence1\" field") end
  local enc = ex.sentence2 and tok(first, ex.sentence2, { max_length = opt.max_seq_length })
              or tok(first, { max_length = opt.max_seq_length })
  enc.labels = type(ex.label) == "string" and label_id[ex.label] or ex.label:item()
  return enc
end

local train, eval
if opt.validation_file ~= "" then
  train, eval = raw, load(opt.validation_file)
else
  local split = raw:train_test_split{ test_size = 0.2, seed = 42 }
  train, eval = split.train, split.test
end
local drop = type(raw:get(0).label) == "string" and {} or { "label" }  -- the ids become "labels"
train, eval = train:map(encode, { remove_columns = drop }), eval:map(encode, { remove_columns = drop })

local model
if opt.model_dir ~= "" then
  model = models.from_pretrained(opt.model_dir, { num_labels = num_labels, labels = #names > 0 and names or nil })
else
  print("text_classification: no --model_dir given, training a small BERT from scratch")
  torch.manual_seed(0)
  model = models.encoder_classifier{ vocab_size = tok:vocab_size(), max_position_embeddings = opt.max_seq_length, n_layer = 2,
                                     n_head = 4, hidden_size = 64, intermediate_size = 128, num_labels = num_labels,
                                     labels = #names > 0 and names or nil }
end

return {
  args = { output_dir = "runs/text_classification", num_train_epochs = opt.model_dir ~= "" and 3 or 20,
           per_device_train_batch_size = 32, per_device_eval_batch_size = 64,
           learning_rate = opt.model_dir ~= "" and 2e-5 or 2e-3, warmup_ratio = 0.1, weight_decay = 0.01,
           eval_strategy = "epoch", save_strategy = "epoch", save_total_limit = 1, logging_steps = 10 },
  datasets = { train = train, eval = eval },
  data_collator = data.pad_collator{ pad_token_id = tok:token_to_id("[PAD]") or tok:token_to_id("<pad>") or 0 },  -- BERT's, RoBERTa's
  model = model,
  compute_metrics = function(p) return { accuracy = common.accuracy(p.predictions, p.label_ids) } end,
}
