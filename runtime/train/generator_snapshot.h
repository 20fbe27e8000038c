// The default generators of the CPU and of the training device, saved and put back on
// restore(): what auto_find_batch_size's trial steps and a restarted first step drew is
// undone, so dropout in training draws what it would have drawn without them. Nothing happens
// on destruction: the Trainer keeps one as a member, and replacing or dropping it must not
// rewind the generators of a run that has moved on.
#pragma once
#include <mutex>
#include <vector>

#include <ATen/Context.h>
#include <c10/core/Device.h>

namespace runner::train {

class GeneratorSnapshot {
 public:
  explicit GeneratorSnapshot(const c10::Device& device) {
    for (const c10::Device d : {c10::Device(c10::kCPU), device}) {
      if (!gens_.empty() && d.is_cpu()) continue;
      at::Generator g = at::globalContext().defaultGenerator(d);
      std::lock_guard<std::mutex> lock(g.mutex());
      gens_.push_back(g);
      states_.push_back(g.get_state());
    }
  }
  void restore() {
    for (size_t i = 0; i < gens_.size(); ++i) {
      std::lock_guard<std::mutex> lock(gens_[i].mutex());
      gens_[i].set_state(states_[i]);
    }
  }

 private:
  std::vector<at::Generator> gens_;
  std::vector<at::Tensor> states_;
};

}  // namespace runner::train
