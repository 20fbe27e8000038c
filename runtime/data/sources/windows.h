// Language-model windows over one long token sequence, shared by data.text and
// data.token_bin. Example i is `block_size` consecutive tokens as input_ids, and labels are
// the same ids: the model shifts them by one, as HF causal LMs do.
//
// Windows are either laid out in order (`stride` apart; a tail shorter than a window is
// dropped, like HF's group_texts) or, with random_windows, start at an offset drawn from
// a generator seeded by (seed, i): nanoGPT's get_batch sampling, but map-style, so example
// i is the same window whatever order it is read in and however many workers read it.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/data/dataset.h"

namespace runner::data {

struct WindowOptions {
  int64_t block_size = 0;
  int64_t stride = 0;        // 0 = block_size (windows do not overlap)
  bool random_windows = false;
  int64_t num_samples = 0;   // random: windows (0 = tokens / block_size); in order: at most this many (0 = all)
  int64_t seed = 0;
};

// Window start offsets for a sequence of num_tokens tokens. The constructor checks the
// options; errors are DataErrors located at `where`.
class WindowPlan {
 public:
  WindowPlan(int64_t num_tokens, const WindowOptions& options, const std::string& where);
  int64_t size() const { return size_; }
  int64_t block_size() const { return block_; }
  int64_t offset(int64_t index) const;  // first token of window `index`

 private:
  int64_t tokens_, block_, stride_, size_, seed_;
  bool random_;
};

// A dataset of windows; subclasses only say how to read tokens.
class TokenWindowDataset : public Dataset {
 public:
  int64_t size() const override { return plan_.size(); }
  Example get(int64_t index) const override;
  std::vector<std::string> fields() const override { return {"input_ids", "labels"}; }
  bool gather(const std::vector<int64_t>& indices, Batch& out) const override;
  std::string describe() const override { return origin_; }
  const WindowPlan& plan() const { return plan_; }

 protected:
  TokenWindowDataset(WindowPlan plan, std::string origin) : plan_(plan), origin_(std::move(origin)) {}
  // Copies tokens [offset, offset + count) as int64 ids into out. Must be thread-safe.
  virtual void read_tokens(int64_t offset, int64_t count, int64_t* out) const = 0;

 private:
  WindowPlan plan_;
  std::string origin_;
};

}  // namespace runner::data
