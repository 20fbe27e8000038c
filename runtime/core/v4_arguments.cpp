#include "runtime/core/v4_arguments.h"

#include <map>

#include "runtime/core/errors.h"
#include "runtime/core/training_args.h"

namespace runner {

namespace {
const V4Argument kV4Arguments[] = {
    {"evaluation_strategy", "eval_strategy", ""},
    {"per_gpu_train_batch_size", "per_device_train_batch_size", ""},
    {"per_gpu_eval_batch_size", "per_device_eval_batch_size", ""},
    {"push_to_hub_token", "hub_token", ""},
    {"fsdp_min_num_params", "fsdp_config.min_num_params", ""},
    {"fsdp_transformer_layer_cls_to_wrap", "fsdp_config.transformer_layer_cls_to_wrap", ""},
    {"adafactor", "optim", ""},
    {"use_mps_device", "", "v5 picks the device itself (use_cpu to force the CPU); runner trains on CUDA or the CPU", "false"},
    {"fp16_backend", "", "v5 removed it (mixed precision is PyTorch's autocast); use fp16 / bf16", "\"auto\""},
    {"sharded_ddp", "", "v5 removed it; use fsdp (\"full_shard\", \"shard_grad_op\") or deepspeed", "[]"},
    // Names v4.34 still had, which later v4 releases renamed.
    {"include_inputs_for_metrics", "include_for_metrics", ""},
    {"dispatch_batches", "accelerator_config.dispatch_batches", ""},
    {"push_to_hub_model_id", "hub_model_id", ""},
    {"push_to_hub_organization", "", "give hub_model_id = \"organization/name\" (v4.34 joined them)", "null"},
    {"tpu_metrics_debug", "", "TPU debugging; runner trains on CUDA GPUs or the CPU", "false"},
    {"mp_parameters", "", "SageMaker model parallelism; runner shards with ZeRO / FSDP", "\"\""},
};
}  // namespace

const V4Argument* find_v4_argument(const std::string& name) {
  for (const V4Argument& a : kV4Arguments)
    if (name == a.name) return &a;
  return nullptr;
}

void check_one_name_per_argument(const nlohmann::json& args) {
  std::map<std::string, std::string> seen;  // argument → the key that set it
  for (auto it = args.begin(); it != args.end(); ++it) {
    const V4Argument* old = find_v4_argument(it.key());
    const ArgField* field = old ? find_arg_field(old->now) : find_arg_field(it.key());
    if (!field) continue;
    auto [at, fresh] = seen.emplace(field->name, it.key());
    if (!fresh && args.at(at->second) != it.value())
      throw ArgumentError("args." + at->second + " and args." + it.key() + " name the same argument with different values (" +
                          args.at(at->second).dump() + ", " + it.value().dump() + "): give " + field->name + " once");
  }
}

}  // namespace runner
