// data.idx: MNIST-style IDX files (MNIST, Fashion-MNIST, KMNIST, ...), raw or gzip.
// Debian's dataset-fashion-mnist package installs them under
// /usr/share/datasets/fashion-mnist/ (train-images-idx3-ubyte.gz, ...).
//
// Images: magic 0x00000803, then big-endian int32 count, rows, cols, then count·rows·cols
// unsigned bytes. Labels: magic 0x00000801, then count, then count unsigned bytes.
#pragma once
#include <optional>
#include <string>

#include "runtime/data/dataset.h"

namespace runner::data {

struct IdxOptions {
  // "unit": pixel / 255 in [0, 1] (torchvision's ToTensor). "standardize": (pixel / 255 -
  // mean) / std, with mean and std defaulting to this file's own statistics — give the
  // training set's values when loading a test set. "none": the raw 0..255 values as floats.
  std::string normalize = "unit";
  std::optional<double> mean, std;
  bool flatten = false;  // pixel_values (n, rows·cols) instead of (n, 1, rows, cols)
};

// Fields "pixel_values" float32 and, when labels_path is not empty, "labels" int64.
// A DataError names the file on a wrong magic number, a truncated file, trailing bytes,
// or an image/label count mismatch.
DatasetPtr load_idx(const std::string& images_path, const std::string& labels_path, const IdxOptions& options = {});

}  // namespace runner::data
