-- Fashion-MNIST with an MLP 784-256-128-10 (target: test accuracy >= 0.885 after 5 epochs).
--   build/runner recipes/fashion_mnist_mlp.lua [--data_dir DIR] [--num_train_epochs 5]
local models, recipe = require "runner.models", require "runner.recipe"
local common, fmnist = require "common", require "fashion_mnist"

local opt = recipe.options{ data_dir = fmnist.default_dir }
local train, test = fmnist.load(opt.data_dir)
torch.manual_seed(0)

return {
  args = {
    output_dir = "runs/fashion_mnist_mlp",
    num_train_epochs = 5,
    per_device_train_batch_size = 64,
    per_device_eval_batch_size = 1000,
    learning_rate = 1e-3,
    lr_scheduler_type = "cosine",
    eval_strategy = "epoch",
    save_strategy = "no",
    logging_steps = 200,
    dataloader_num_workers = 1,
  },
  datasets = { train = train, eval = test },
  model = models.mlp{ sizes = {784, 256, 128, 10}, dropout = 0.1 },
  preprocess_logits_for_metrics = common.argmax_logits,
  compute_metrics = common.classification_metrics,
}
