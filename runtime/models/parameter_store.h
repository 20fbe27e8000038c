// ParameterStore: a model's parameters through their life, and the one owner of every change
// of where a parameter's values live (DeepSpeed's partitioned-parameter states, as runner needs
// them):
//
//   in file ──materialize──▶ whole, on the host or a device
//      │ ╰──────place──────▶ in a flat buffer (a view of the optimizer's buffer: one process,
//      │                     DDP, ZeRO-1/2), values read from the file straight into it
//      ╰──────in_unit──────▶ in a ZeRO-3 unit (a view of the unit's buffer; the rank reads only
//                            its shard with read()); the unit's memory is released after use and
//                            refilled before the next (release_memory / refill_memory)
//
// from_pretrained builds the model under MetaInit (shapes and dtypes, no memory, no random
// initialisation, as transformers v5 builds a model before loading it) and records which
// safetensors tensor holds each parameter. A parameter still in its file is a placeholder: a
// CPU tensor of its shape and dtype whose elements all read one stored NaN, so it costs no
// memory and a path that forgot to load it computes NaN, never plausible numbers. Every
// transition is Tensor::set_data (public API): the parameter keeps its identity, so every
// holder (layers, tied heads, optimizer, Lua) sees the new values. Anything that touches the
// weights before the Trainer places them (recipe code, generation, evaluation without
// training) loads them whole with materialize().
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
// meta device and skip their random initialisation (it would be overwritten anyway);
// register_parameter turns each into a placeholder.
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
// A parameter in its file: `shape` and `dtype`, every element one stored NaN, no memory.
at::Tensor placeholder(at::IntArrayRef shape, at::ScalarType dtype);

class ParameterStore {
 public:
  enum class State { kWhole, kInFile, kInFlatBuffer, kInUnit };

  ParameterStore() = default;
  ~ParameterStore();
  ParameterStore(const ParameterStore&) = delete;
  ParameterStore& operator=(const ParameterStore&) = delete;
  // Parameters still in their files, in the whole process: materialize() returns at once when
  // there are none, so code on hot paths (every Lua call on a module) can call it freely.
  static int64_t waiting();

  // The placeholder `param` takes its values from tensor `name` of `file`.
  void add(const at::Tensor& param, std::shared_ptr<const io::SafetensorsFile> file, std::string name);
  bool covers(const at::Tensor& param) const;  // it came from this store's files
  State state(const at::Tensor& param) const;  // kWhole for one the store never handled
  bool in_file(const at::Tensor& param) const { return state(param) == State::kInFile; }
  // Elements [begin, begin + count) of the flattened parameter as stored in the file
  // (its dtype, on the CPU, 1-D): what a rank's shard needs and nothing more.
  at::Tensor read(const at::Tensor& param, int64_t begin, int64_t count) const;
  // Where a parameter still in its file will load: Module::to(device) on the model sets it.
  at::Device device() const { return device_; }
  void set_device(at::Device device) { device_ = device; }
  // Parameter values read from the files so far, and in the whole model (tests and the log
  // show that a ZeRO-3 rank reads its share only).
  int64_t values_read() const { return read_.load(); }
  int64_t values_total() const;

  // The transitions. Each takes the parameter's values from its file when it is still there.
  // Whole on device(), a tensor of its own.
  void materialize(const at::Tensor& param);
  // Into `slot` (a tensor of its shape: a view of a flat buffer), which it then is.
  void place(const at::Tensor& param, const at::Tensor& slot);
  // A ZeRO-3 unit's view, without reading the values (the rank reads its chunk with read()).
  void in_unit(const at::Tensor& param, const at::Tensor& view);
  // Converts a parameter's dtype in place (Module::to(dtype)); a placeholder stays one.
  void convert(const at::Tensor& param, at::ScalarType dtype) const;

  // A ZeRO-3 unit buffer's memory, freed while every view of it (its parameters, and tensors
  // autograd saved from them) keeps pointing at the same storage, and allocated again before
  // the unit's next use (FSDP2's untyped_storage().resize_(0) / resize_(n)). `buffer` is 1-D
  // and owns its storage.
  static void release_memory(const at::Tensor& buffer);
  static void refill_memory(const at::Tensor& buffer);

 private:
  struct Source {
    std::shared_ptr<const io::SafetensorsFile> file;
    std::string name;
    int64_t numel = 0;
  };
  const Source& source(const at::Tensor& param) const;
  void load(const at::Tensor& param, const at::Tensor& dst);  // all values into dst, in pieces
  void set_state(const at::Tensor& param, State s);
  // By TensorImpl (an identity key only): it survives to(dtype) and set_data.
  std::map<const void*, Source> sources_;
  std::map<const void*, State> states_;
  at::Device device_ = at::kCPU;
  mutable std::atomic<int64_t> read_{0};
};

using StoreList = std::vector<std::shared_ptr<ParameterStore>>;
// The stores of `model` and its descendants (a recipe may nest a from_pretrained model in its
// own container), parents first.
StoreList stores_in(const Module& model);
// The store among `stores` that holds `param`, or null (a parameter no file gave).
ParameterStore* store_of(const StoreList& stores, const at::Tensor& param);
// Whether `param` of a model with these stores is still in its file.
bool in_file(const StoreList& stores, const at::Tensor& param);
// Puts the values of `param` into `slot` and makes the parameter `slot`, through its store
// when it has one (how the flat buffers take a model's parameters without a second copy).
void place(const StoreList& stores, const at::Tensor& param, const at::Tensor& slot);
// Whether `model` or a descendant still has parameters waiting in their files.
bool is_deferred(const Module& model);
// Loads every waiting parameter of the tree whole, on the device the model was moved to.
// No-op for a model without one.
void materialize(Module& model);

}  // namespace runner::models
