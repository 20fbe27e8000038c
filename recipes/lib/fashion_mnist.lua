-- Fashion-MNIST from Debian's dataset-fashion-mnist package (installed by scripts/setup).
--   local fmnist = require "fashion_mnist"
--   local train, test = fmnist.load(data_dir)
local data = require "runner.data"

local M = {}

M.default_dir = "/usr/share/datasets/fashion-mnist"
M.classes = { "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot" }

-- Pixels standardised with the training set's mean and standard deviation.
local MEAN, STD = 0.2860, 0.3530

local function split(dir, prefix)
  return data.idx{
    images = dir .. "/" .. prefix .. "-images-idx3-ubyte.gz",
    labels = dir .. "/" .. prefix .. "-labels-idx1-ubyte.gz",
    normalize = "standardize", mean = MEAN, std = STD,
  }
end

-- The 60,000 training and 10,000 test images: pixel_values (N, 1, 28, 28), labels (N).
function M.load(dir)
  dir = dir or M.default_dir
  return split(dir, "train"), split(dir, "t10k")
end

return M
