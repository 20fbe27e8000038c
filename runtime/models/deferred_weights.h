// Weights that stay in their files until the run knows how it needs them.
//
// from_pretrained builds the model under MetaInit: parameters on PyTorch's meta device
// (shapes and dtypes, no memory, no random initialisation, as transformers v5 builds a model
// before loading it) and DeferredWeights records which safetensors tensor holds each. The
// Trainer then reads each value once, straight into its training buffers: the flat
// parameter buffer (one process, DDP, ZeRO-1/2: place()), or under ZeRO-3 only this rank's
// slice of each parameter into its shard (dist/zero3.cpp), so no rank ever holds the whole
// model. Anything else that touches the weights first (recipe code, generation, an
// evaluation without training) loads them whole with materialize().
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/models/module.h"

namespace runner::io {
class SafetensorsFile;  // io is a private dependency of models
}

namespace runner::models {

// While one is alive on this thread, the built-in layers create their parameters on the
// meta device and skip their random initialisation (it would be overwritten anyway).
class MetaInit {
 public:
  MetaInit();
  ~MetaInit();
  MetaInit(const MetaInit&) = delete;
  MetaInit& operator=(const MetaInit&) = delete;
};
bool meta_init_active();
// Options for a new parameter: the default dtype on the CPU, or on the meta device under MetaInit.
at::TensorOptions param_options();

class DeferredWeights {
 public:
  DeferredWeights();
  ~DeferredWeights();
  DeferredWeights(const DeferredWeights&) = delete;
  DeferredWeights& operator=(const DeferredWeights&) = delete;
  // How many exist in the process: materialize() returns at once when none does, so code
  // on hot paths (every Lua call on a module) can call it freely.
  static int64_t live();

  // The meta parameter `param` takes its values from tensor `name` of `file`.
  void add(const at::Tensor& param, std::shared_ptr<const io::SafetensorsFile> file, std::string name);
  bool covers(const at::Tensor& param) const;
  // Elements [begin, begin + count) of the flattened parameter as stored in the file
  // (its dtype, on the CPU, 1-D): what a rank's shard needs and nothing more.
  at::Tensor read(const at::Tensor& param, int64_t begin, int64_t count) const;
  // All of the parameter's values into `dst` (as many elements, any dtype and device), read
  // in pieces so no second full-size copy exists.
  void load(const at::Tensor& param, const at::Tensor& dst) const;
  // Where the parameters go once loaded: Module::to(device) on a deferred model sets it.
  at::Device device() const { return device_; }
  void set_device(at::Device device) { device_ = device; }
  // Parameter values read from the files so far, and in the whole model (tests and the
  // log show that a ZeRO-3 rank reads its share only).
  int64_t values_read() const { return read_.load(); }
  int64_t values_total() const;

 private:
  struct Source {
    std::shared_ptr<const io::SafetensorsFile> file;
    std::string name;
    int64_t numel = 0;
  };
  const Source& source(const at::Tensor& param) const;
  std::map<const void*, Source> sources_;  // by TensorImpl: it survives to(dtype) and set_data
  at::Device device_ = at::kCPU;
  mutable std::atomic<int64_t> read_{0};
};

// Puts `value` (a dense tensor of the same shape) into the meta parameter `param` in place:
// the same TensorImpl, so every holder (layers, tied heads, state dicts) sees the values.
// set_data refuses meta → dense (their dispatch keys differ), but both are plain TensorImpls
// and a parameter that never took part in autograd has no accumulator to invalidate, so the
// shallow copy set_data makes is safe; dense → dense goes through set_data itself.
void assign_data(const at::Tensor& param, const at::Tensor& value);

using DeferredRecords = std::vector<std::shared_ptr<DeferredWeights>>;
// The records of `model` and its descendants (a recipe may nest a from_pretrained model in
// its own container), parents first.
DeferredRecords deferred_in(const Module& model);
// The record among `records` that holds `param`; CheckpointError naming `name` if none does.
const DeferredWeights& record_of(const DeferredRecords& records, const at::Tensor& param, const std::string& name);
// Fills `slot` (a tensor of the parameter's shape: a view of a flat or unit buffer) with the
// parameter's values, from its files when it is still there, and makes the parameter `slot`
// (assign_data). How the flat buffers take a model's parameters without a second copy.
void place(const DeferredRecords& records, const at::Tensor& param, const at::Tensor& slot, const std::string& name);
// Whether `model` or a descendant still has parameters waiting in their files.
bool is_deferred(const Module& model);
// Loads every waiting parameter of the tree whole, on the device the model was moved to, and
// drops the records. No-op for a model without one.
void materialize(Module& model);

}  // namespace runner::models
