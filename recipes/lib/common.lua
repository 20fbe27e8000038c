-- Pieces recipes share: require "common" from any recipe (recipes/lib is on the require
-- path).
local M = {}

-- Fraction of rows whose arg-max logit equals the label; labels of -100 are ignored.
-- Works on logits (..., C) or on already reduced class predictions (...).
function M.accuracy(predictions, labels)
  if predictions:dim() > labels:dim() then predictions = predictions:argmax(-1) end
  local valid = labels:ne(-100)
  local correct = predictions:eq(labels):long() * valid:long()
  return correct:sum():item() / math.max(valid:sum():item(), 1)
end

-- compute_metrics for classifiers: { accuracy = ... }.
function M.classification_metrics(p)
  return { accuracy = M.accuracy(p.predictions, p.label_ids) }
end

-- preprocess_logits_for_metrics that keeps only the predicted class: evaluation then
-- stores one integer per example instead of every logit.
function M.argmax_logits(logits, labels)
  return logits:argmax(-1)
end

-- A regression compute_loss on one input field, returning the predictions as logits.
function M.mse_loss(input_field)
  return function(model, inputs, ctx)
    local pred = model(inputs[input_field])
    return F.mse_loss(pred, inputs.labels), { logits = pred }
  end
end

return M
