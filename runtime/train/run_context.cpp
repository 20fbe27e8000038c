#include "runtime/train/run_context.h"

#include <algorithm>
#include <cmath>

#include "runtime/data/sampler.h"
#include "runtime/log/log.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/loss_only.h"

namespace runner::train {

using nlohmann::json;

namespace {
double round_to(double v, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}
}  // namespace

bool RunContext::should_write() const { return args.save_on_each_node ? options.local_rank == 0 : dp.rank() == 0; }

AutocastGuard RunContext::autocast() const {
  return AutocastGuard(args.bf16 || args.fp16, device.device.type(), args.fp16 ? at::kHalf : at::kBFloat16);
}

AutocastGuard RunContext::autocast_off() const { return AutocastGuard(AutocastGuard::Off{}, device.device.type()); }

data::Batch RunContext::on_device(const data::Batch& host) const {
  if (model) models::check_id_ranges(*model, host);
  return device::to_device(host, device);
}

void RunContext::warn_if_label_smoothing_unused(const char* hook) const {
  // HF applies label_smoothing_factor inside its own compute_loss only: a recipe's loss takes
  // its place, so the setting changes nothing; say so once rather than ignore it silently.
  if (call.label_smoothing == 0.0 || label_smoothing_warned) return;
  label_smoothing_warned = true;
  log::warn(std::string("label_smoothing_factor = ") + log::format_number(call.label_smoothing) + " has no effect: the recipe's " + hook +
            " computes the loss (HF smooths only its default loss); smooth the labels there, e.g. F.cross_entropy(..., {label_smoothing = ...})");
}

LossResult RunContext::compute_loss(const data::Batch& batch, LossContext& ctx) const {
  if (auto r = hooks.compute_loss(*model, batch, ctx)) {
    if (ctx.training) warn_if_label_smoothing_unused("compute_loss");
    return std::move(*r);
  }
  if (!ctx.training) return default_compute_loss(*model, batch, call);  // evaluation collects the logits
  // The training step reads only the loss: a causal LM may skip its logits (loss_only.h).
  const models::LossOnlyScope loss_only;
  return default_compute_loss(*model, batch, call);
}

data::DataLoader RunContext::make_loader(const data::DatasetPtr& ds, bool train, int64_t batch_size, bool shard) const {
  std::shared_ptr<const data::Sampler> sampler;
  const std::string strategy = train ? args.train_sampling_strategy : "sequential";
  if (strategy == "random") {
    sampler = std::make_shared<data::RandomSampler>(ds->size(), args.effective_data_seed());
  } else if (strategy == "group_by_length") {
    const int64_t mega = batch_size * args.gradient_accumulation_steps;
    sampler = std::make_shared<data::LengthGroupedSampler>(data::example_lengths(*ds, args.length_column_name, main_input_name(*ds)),
                                                           mega, args.effective_data_seed());
  } else {
    sampler = std::make_shared<data::SequentialSampler>(ds->size());
  }
  // One global order sliced by rank, so what an optimizer step (or an evaluation batch)
  // sees does not depend on the world size.
  if (shard && dp.world() > 1)
    sampler = std::make_shared<data::ShardedSampler>(sampler, batch_size, dp.rank(), dp.world(), args.dataloader_drop_last);
  data::LoaderOptions o;
  o.batch_size = batch_size;
  o.drop_last = args.dataloader_drop_last;
  o.collator = options.collator;
  o.collator_thread_safe = options.collator_thread_safe;
  o.num_workers = args.dataloader_num_workers;
  o.prefetch_factor = args.dataloader_prefetch_factor.value_or(2);
  o.pin_memory = device.pin_memory;
  o.seed = static_cast<uint64_t>(args.seed);
  return data::DataLoader(ds, sampler, std::move(o));
}

std::string RunContext::main_input_name(const data::Dataset& ds) const {
  const auto fields = ds.fields();
  if (std::find(fields.begin(), fields.end(), "input_ids") != fields.end()) return "input_ids";
  if (!call.input_name.empty()) return call.input_name;
  for (const auto& f : fields)
    if (std::find(call.label_names.begin(), call.label_names.end(), f) == call.label_names.end()) return f;
  return fields.empty() ? "" : fields.front();
}

void RunContext::log(json logs, bool with_speed) {
  TrainerState& state = loop.state;
  logs["epoch"] = state.epoch;
  if (args.include_num_input_tokens_seen != "no") {
    logs["num_input_tokens_seen"] = state.num_input_tokens_seen;
    if (with_speed) {
      const double runtime = std::chrono::duration<double>(Clock::now() - loop.train_start).count();
      logs["train_runtime"] = round_to(runtime, 4);
      const double tokens = static_cast<double>(state.num_input_tokens_seen - loop.initial_tokens_seen);
      if (runtime > 0) logs["train_tokens_per_second"] = round_to(tokens / runtime, 3);
    }
  }
  json entry = logs;
  entry["step"] = state.global_step;
  state.log_history.push_back(entry);
  callbacks.fire(Event::kLog, state, loop.control, logs);
}

}  // namespace runner::train
