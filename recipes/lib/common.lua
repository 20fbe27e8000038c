-- Small pieces recipes share: require "common" from any recipe (recipes/lib is on the
-- require path).
local M = {}

-- Fraction of rows whose arg-max logit equals the label; labels of -100 are ignored.
function M.accuracy(logits, labels)
  local predictions = logits:argmax(-1)
  local valid = labels:ne(-100)
  local correct = predictions:eq(labels):long() * valid:long()
  return correct:sum():item() / math.max(valid:sum():item(), 1)
end

-- Mean squared error of a regression compute_loss, returning the predictions as logits.
function M.mse_loss(input_field)
  return function(model, inputs, ctx)
    local pred = model(inputs[input_field])
    return F.mse_loss(pred, inputs.labels), { logits = pred }
  end
end

return M
