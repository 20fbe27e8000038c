// Module: a tree of named parameters, buffers and child modules with PyTorch's naming
// ("0.weight", "transformer.h.0.attn.c_attn.weight"), so state dicts interchange with
// PyTorch. Layers map tensor → tensor; models map a batch (field → tensor) → outputs.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/models/activation_offload.h"

namespace runner::models {

using TensorMap = std::map<std::string, at::Tensor>;  // a batch, or a model's outputs
struct KVCache;     // kv_cache.h
struct LoraConfig;  // lora.h
class ParameterStore;  // parameter_store.h
using NamedTensorList = std::vector<std::pair<std::string, at::Tensor>>;

// A batch field of integer ids and the values it may hold: [0, limit), and -100 where
// `ignore_minus_100` (labels the loss skips). `limit_name` says where the limit comes from.
struct IdRange {
  std::string field;
  int64_t limit = 0;
  bool ignore_minus_100 = false;
  std::string limit_name;  // "vocab_size = 65"
};

// While one is alive on this thread, Module::dropout_active() is false for every module (TRL's
// disable_dropout, for DPO's policy forward).
class DropoutDisabled {
 public:
  DropoutDisabled();
  ~DropoutDisabled();
  DropoutDisabled(const DropoutDisabled&) = delete;
  DropoutDisabled& operator=(const DropoutDisabled&) = delete;
};
bool dropout_disabled();

class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string type_name) : type_name_(std::move(type_name)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& type_name() const { return type_name_; }

  // Layers override forward_impl(x). Models override forward_batch_impl and return
  // takes_batch(). Callers use forward / forward_batch, which run the forward hooks.
  at::Tensor forward(const at::Tensor& x);
  TensorMap forward_batch(const TensorMap& batch);
  virtual at::Tensor forward_impl(const at::Tensor& x);
  virtual TensorMap forward_batch_impl(const TensorMap& batch);

  // Hooks a sharding engine puts around this module's forward (FSDP / ZeRO-3 units): `pre`
  // before it computes, `post` with its outputs. Null removes them.
  struct ForwardHooks {
    std::function<void(Module&)> pre;
    std::function<void(Module&, const std::vector<at::Tensor>&)> post;
  };
  void set_forward_hooks(std::shared_ptr<ForwardHooks> hooks) { hooks_ = std::move(hooks); }
  bool has_forward_hooks() const { return hooks_ != nullptr; }
  // Gradient checkpointing of this module (activation_checkpoint.h): in training, with
  // gradients on, forward keeps no activations and backward recomputes them; `offload`
  // says where its inputs wait for backward (activation_offload.h).
  void set_checkpointing(bool on, ActivationOffload offload = ActivationOffload::kOff) {
    checkpointing_ = on;
    offload_ = offload;
  }
  bool checkpointing() const { return checkpointing_; }
  // Causal LMs (models.gpt, the Llama family): a forward with labels whose caller reads only
  // the loss (loss_only.h, the Trainer's training step) computes it fused with the output
  // projection, without logits (kernels/linear_cross_entropy.h). On by default; the recipe
  // option fused_linear_cross_entropy = false turns it off (docs/models.md).
  void set_fused_linear_cross_entropy(bool on) { fused_linear_cross_entropy_ = on; }
  bool fused_linear_cross_entropy() const { return fused_linear_cross_entropy_; }

  // HF _no_split_modules: the type names of this model's repeated layers, the default
  // FSDP wrapping unit ("GPT2Block").
  virtual std::vector<std::string> no_split_modules() const { return {}; }
  virtual bool takes_batch() const { return false; }
  // A forward written as host code runtime cannot see into (a recipe's Lua function): a
  // captured step (cuda_graphs) would replay its tensor work but not its host side.
  virtual bool forward_runs_host_code() const { return false; }
  // The batch fields forward_batch reads (empty = unknown: keep every field).
  virtual std::vector<std::string> input_names() const { return {}; }
  // The fields that hold its labels when the arguments name none (HF's find_labels of the
  // model class: start_positions and end_positions for question answering).
  virtual std::vector<std::string> label_names() const { return {"labels"}; }
  // Reads position_ids yet lets every token of a row attend to the ones before it, across
  // sequences packed into the row (GPT-2's, as HF's GPT2 does): packing is refused for it.
  virtual bool attends_across_packed_sequences() const { return false; }
  // The id fields this model indexes tables with. The Trainer checks them on the host batch
  // (check_id_ranges): on a GPU an id outside a table is a device-side assert that poisons
  // the CUDA context, on the host it is one line naming the field.
  virtual std::vector<IdRange> id_ranges() const { return {}; }
  // HF floating_point_ops: forward+backward FLOPs for this batch (0 when unknown).
  virtual double floating_point_ops(const TensorMap& batch) const { return 0.0; }
  // Causal language models compare logits at t with labels at t+1 (the label smoother
  // must shift like the model does).
  virtual bool shifts_labels() const { return false; }
  // Causal LMs that generate (generation.h) decode incrementally: forward_cached returns the
  // logits (B, T, V) of `ids` (B, T) placed after the cache's positions, and appends their
  // keys and values to the cache. `attention_mask` (B, T_past + T) marks padding (left-padded
  // prompts) or is undefined. `logits_to_keep` > 0 (HF's): only the last that many positions'
  // logits, (B, logits_to_keep, V); generation keeps 1, so a long prompt's prefill never
  // holds a (B, T, V) tensor (8 GB for a 128k vocabulary and 8 × 2k prompts).
  virtual bool can_generate() const { return false; }
  virtual at::Tensor forward_cached(const at::Tensor& ids, const at::Tensor& attention_mask, KVCache& cache, int64_t logits_to_keep = 0);
  // The Hugging Face config.json of this model ("" when it has none): written next to
  // model.safetensors so transformers' from_pretrained loads runner's output.
  virtual std::string hf_config_json() const { return ""; }

  // An additive branch beside this layer (a LoRA adapter, lora.h): forward returns
  // adapter(x, forward_impl(x)), the layer's output with the branch added, inside the forward
  // hooks and the checkpointed region.
  using Adapter = std::function<at::Tensor(const at::Tensor& x, const at::Tensor& out)>;
  // What a LoRA branch is made of (A and B are Linear layers), for a fused node that applies
  // it itself instead of calling the adapter (kernels/swiglu_linear.h, from Llama's MLP).
  struct LowRankBranch {
    std::shared_ptr<Module> a, b;
    double scaling = 1.0, dropout = 0.0;
  };
  void set_adapter(Adapter adapter, std::shared_ptr<const LowRankBranch> parts = nullptr) {
    adapter_ = std::move(adapter);
    adapter_parts_ = std::move(parts);
  }
  bool has_adapter() const { return static_cast<bool>(adapter_); }
  // PyTorch's forward hook that returns a new output: forward returns hook(*this, output),
  // the output with the adapter's branch added (NEFTune's noise on the input embeddings,
  // train/neftune.h). Null removes it.
  using OutputHook = std::function<at::Tensor(const Module& self, const at::Tensor& out)>;
  void set_output_hook(OutputHook hook) { output_hook_ = std::move(hook); }
  bool has_output_hook() const { return static_cast<bool>(output_hook_); }
  // HF get_input_embeddings(): the token embedding whose output the model's first block
  // reads (GPT-2's wte, Llama's embed_tokens, an encoder's word_embeddings); null when the
  // model has none runner knows of (a recipe's own or a TorchScript model).
  virtual Module* input_embeddings() { return nullptr; }
  const std::shared_ptr<const LowRankBranch>& adapter_parts() const { return adapter_parts_; }
  // The LoRA configuration of a model that apply_lora adapted (set on its root, else null):
  // saving then writes only the adapters (saved_model.h).
  const std::shared_ptr<const LoraConfig>& lora() const { return lora_; }
  void set_lora(std::shared_ptr<const LoraConfig> config) { lora_ = std::move(config); }
  // HF config._name_or_path: the folder from_pretrained read this model from ("" otherwise),
  // written as an adapter's base_model_name_or_path.
  const std::string& name_or_path() const { return name_or_path_; }
  void set_name_or_path(std::string path) { name_or_path_ = std::move(path); }
  // HF's model.generation_config when something replaced it (Seq2SeqTrainingArguments'
  // generation_config): a generation_config.json's text that generation starts from instead
  // of the folder's, and that the saved model carries; "" when not replaced.
  const std::string& generation_config_json() const { return generation_config_json_; }
  void set_generation_config_json(std::string text) { generation_config_json_ = std::move(text); }
  // The owner of where this model's parameters live (parameter_store.h): set on the root by
  // from_pretrained, whose parameters wait in their files until the run loads them; null
  // otherwise.
  const std::shared_ptr<ParameterStore>& parameter_store() const { return store_; }
  void set_parameter_store(std::shared_ptr<ParameterStore> store) { store_ = std::move(store); }

  // Parameters in registration order, children after own; a tensor shared by two names
  // (tied weights) is listed once under its first name, as PyTorch does.
  NamedTensorList named_parameters() const;
  std::vector<at::Tensor> parameters() const;
  NamedTensorList named_buffers() const;
  // Every parameter and persistent buffer, shared ones under each name.
  NamedTensorList state_dict() const;
  // Each tensor once, under its first name: what a saved model holds (HF's save_pretrained
  // drops tied aliases such as lm_head.weight; loading ties them again).
  NamedTensorList unique_state_dict() const;

  struct LoadReport {
    std::vector<std::string> missing, unexpected;
  };
  // What load_state_dict would copy: each of the model's tensors (`targets`) and the given
  // value for it (`sources`), names and shapes checked first, nothing copied. Lets a caller
  // copy them in pieces (ZeRO-3 loads a unit at a time: DataParallel::visit_whole).
  struct LoadPlan {
    std::vector<at::Tensor> targets, sources;
    LoadReport report;
    LoadReport copy_all() const;  // every copy at once (under no_grad)
  };
  LoadPlan plan_load(const NamedTensorList& tensors, bool strict = true);
  // Copies values in place (under no_grad). A shape mismatch is always an error; missing
  // and unexpected keys are errors when strict. Every check comes before the first copy.
  LoadReport load_state_dict(const NamedTensorList& tensors, bool strict = true);

  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& children() const { return children_; }
  std::shared_ptr<Module> child(const std::string& name) const;  // nullptr if absent
  at::Tensor parameter(const std::string& name) const;            // undefined if absent
  at::Tensor buffer(const std::string& name) const;

  // Converts floating-point parameters and persistent buffers in place (tensors keep their
  // identity, like PyTorch's module.to(dtype)). Non-persistent buffers are constants derived
  // from the config (rotary frequencies) and keep their precision.
  void to(at::ScalarType dtype);
  // Moves parameters and buffers to `device` in place (PyTorch's module.to(device)): every
  // holder of a parameter (optimizer, TorchScript module, tied weights) sees the move.
  // Parameters still in their files stay there and will load onto `device`.
  void to(at::Device device);
  // Where the weights are: the device of the first parameter or buffer (for one still in its
  // file, where it will load: parameter_store.h); nullopt for a module without any.
  std::optional<at::Device> device() const;

  // Virtual so wrappers of foreign modules (TorchScript) can pass the mode on.
  virtual void train(bool mode = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  // What dropout (and a LoRA branch's dropout) reads: train mode, outside a DropoutDisabled
  // scope. TRL's disable_dropout turns dropout off without leaving train mode, so gradient
  // checkpointing, which reads the mode, stays on.
  bool dropout_active() const { return training_ && !dropout_disabled(); }

  // Registering a name again replaces the parameter (a recipe's `head.weight = emb.weight`
  // ties them, as in PyTorch); a layer's member that mirrors it (mirror_parameter) follows.
  at::Tensor& register_parameter(const std::string& name, at::Tensor value, bool requires_grad = true);
  at::Tensor& register_buffer(const std::string& name, at::Tensor value, bool persistent = true);
  std::shared_ptr<Module> register_module(const std::string& name, std::shared_ptr<Module> child);

  int64_t num_parameters() const;
  // config.json's "dtype" for this model: its first floating-point parameter's ("float32",
  // "bfloat16", "float16", "float64"), as transformers' save_pretrained writes it.
  std::string hf_dtype() const;

 protected:
  // Runs fn (returning the module's output tensor) between the forward hooks; modules with
  // an entry point other than forward (the encoder layer's forward_masked) call it themselves.
  template <class F>
  at::Tensor hooked(F&& fn) {
    if (!hooks_) return fn();
    auto keep = hooks_;
    keep->pre(*this);
    at::Tensor out = fn();
    keep->post(*this, {out});
    return out;
  }
  // body(inputs), checkpointed when this module checkpoints and a backward will follow.
  // Inside hooked(): a sharding engine's gather before the forward and before the backward
  // (which recomputes) both hold.
  at::Tensor maybe_checkpointed(const std::vector<at::Tensor>& inputs, const std::function<at::Tensor(const std::vector<at::Tensor>&)>& body);

  bool training_ = true;

 private:
  void collect(const std::string& prefix, bool params, bool buffers, bool persistent_only, bool dedupe,
               NamedTensorList& out, std::vector<const void*>& seen) const;
  std::string type_name_;
  std::vector<std::pair<std::string, at::Tensor>> params_;
  struct Buffer {
    std::string name;
    at::Tensor value;
    bool persistent;
  };
  std::vector<Buffer> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  std::shared_ptr<ForwardHooks> hooks_;
  bool checkpointing_ = false;
  ActivationOffload offload_ = ActivationOffload::kOff;
  bool fused_linear_cross_entropy_ = true;
  Adapter adapter_;
  OutputHook output_hook_;
  std::shared_ptr<const LowRankBranch> adapter_parts_;
  std::shared_ptr<const LoraConfig> lora_;
  std::string name_or_path_;
  std::string generation_config_json_;
  std::shared_ptr<ParameterStore> store_;
  std::vector<std::pair<std::string, at::Tensor*>> mirrors_;  // members that hold a parameter for forward

 protected:
  // `member` (a field of this layer that forward reads) is kept equal to parameter `name`
  // when it is replaced: without this a replaced weight would be listed, trained and saved
  // while forward went on computing with the old one.
  void mirror_parameter(const std::string& name, at::Tensor* member) { mirrors_.emplace_back(name, member); }
};

using ModulePtr = std::shared_ptr<Module>;

}  // namespace runner::models
