#include "runtime/train/training_plan.h"

#include "runtime/models/lora.h"

#include <cmath>
#include <cstdio>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"

namespace runner::train {

TrainingPlan plan_training(const TrainingArguments& args, int64_t batches_per_epoch, int64_t dataset_size, int world) {
  TrainingPlan p;
  const int64_t GA = args.gradient_accumulation_steps;
  p.batches_per_epoch = batches_per_epoch;
  if (batches_per_epoch == 0)
    throw DataError("the train dataset yields no batches (" + std::to_string(dataset_size) + " examples, batch size " +
                    std::to_string(args.per_device_train_batch_size) + (world > 1 ? " × " + std::to_string(world) + " ranks" : "") + (args.dataloader_drop_last ? ", drop_last" : "") + ")");
  p.update_steps_per_epoch = std::max<int64_t>(batches_per_epoch / GA + (batches_per_epoch % GA > 0 ? 1 : 0), 1);
  p.total_train_batch_size = args.per_device_train_batch_size * GA * world;
  if (args.max_steps > 0) {
    p.max_steps = args.max_steps;
    p.num_train_epochs = (args.max_steps + p.update_steps_per_epoch - 1) / p.update_steps_per_epoch;
    p.num_train_samples = static_cast<double>(args.max_steps * p.total_train_batch_size);
  } else {
    p.max_steps = static_cast<int64_t>(std::ceil(args.num_train_epochs * static_cast<double>(p.update_steps_per_epoch)));
    p.num_train_epochs = static_cast<int64_t>(std::ceil(args.num_train_epochs));
    p.num_train_samples = static_cast<double>(dataset_size) * args.num_train_epochs;
  }
  if (p.max_steps <= 0) throw ArgumentError("args.num_train_epochs: the run has no optimizer steps (num_train_epochs = 0?)");
  return p;
}

void log_plan(const TrainingPlan& p, const models::Module& model, const TrainingArguments& args, const std::string& device) {
  if (args.max_steps > 0) log::info("max_steps is given, it will override any value given in num_train_epochs");
  log::info("***** Running training *****" + (args.run_name ? " " + *args.run_name : std::string()));
  log::info("  Num epochs = " + std::to_string(p.num_train_epochs) + ", total optimization steps = " + std::to_string(p.max_steps));
  log::info("  Batch size per device = " + std::to_string(args.per_device_train_batch_size) +
            ", gradient accumulation steps = " + std::to_string(args.gradient_accumulation_steps) +
            ", total batch size = " + std::to_string(p.total_train_batch_size));
  int64_t trainable = 0, all = 0;
  for (const auto& [name, t] : model.named_parameters()) {
    all += t.numel();
    if (t.requires_grad()) trainable += t.numel();
  }
  log::info("  Number of trainable parameters = " + std::to_string(trainable));
  log::info("  Device = " + device + ", " + (args.bf16 ? "bf16 autocast" : args.fp16 ? "fp16 autocast with loss scaling" : "fp32"));
  // peft's print_trainable_parameters counts a modules_to_save module twice (the original and
  // the trained copy it keeps; runner trains it in place).
  if (const auto& lora = model.lora())
    for (const auto& [name, t] : model.named_parameters())
      for (const auto& kept : lora->saved)
        if (name.rfind(kept + ".", 0) == 0) all += t.numel();
  if (trainable < all) {  // frozen weights (LoRA): peft's print_trainable_parameters
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.4f", 100.0 * static_cast<double>(trainable) / static_cast<double>(all));
    log::info("  trainable params: " + std::to_string(trainable) + " || all params: " + std::to_string(all) + " || trainable%: " + pct);
  }
}

void log_model_states(int64_t state_bytes, int64_t optimizer_bytes, int64_t frozen, const std::string& layout) {
  log::info("Model states on this rank (parameters, gradients, optimizer) = " + std::to_string(state_bytes) + " bytes" + layout +
            "; optimizer state = " + std::to_string(optimizer_bytes) + " bytes" +
            (frozen > 0 ? "; frozen parameters = " + std::to_string(frozen) + " bytes" : ""));
}

}  // namespace runner::train
