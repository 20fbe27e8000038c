// auto_find_batch_size: HF retries its whole inner training loop with a smaller batch after
// an out-of-memory error (accelerate's find_executable_batch_size). Here the search runs
// before the first step instead: each candidate batch gets one real training micro-step
// (forward and backward next to the optimizer's state, on this rank alone: no gradient
// reduction), then the ranks vote, so every rank moves on to the same size or all halve
// together; the weights, gradients and generators are left as they were, so training then
// runs exactly as if the found size had been given. A trial step can fit where the training
// loop's first step then does not (memory the trials left cached or fragmented; seen on an
// H200 under a 2 GB cap): on one process the Trainer then starts the loop over at half the
// size (Trainer::start_over_smaller), as HF's restarted loop would. Later, after an optimizer
// step, an out-of-memory error (a longer sequence) stops the run with its one-line message.
#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/data/collator.h"
#include "runtime/io/atomic_file.h"
#include "runtime/log/log.h"
#include "runtime/device/gpu_info.h"
#include "runtime/device/out_of_memory.h"
#include "runtime/train/batch_size_finder.h"
#include "runtime/train/generator_snapshot.h"

namespace runner::train {

int64_t find_batch_size(RunContext& ctx, StepRunner& steps, const data::DatasetPtr& train, const std::string& resume_checkpoint,
                        int64_t* start_out) {
  // HF: a resumed run starts from the batch size its checkpoint trained with.
  int64_t& start = *start_out;
  start = ctx.args.per_device_train_batch_size;
  if (!resume_checkpoint.empty()) {
    const nlohmann::json saved = io::read_json_file(resume_checkpoint + "/trainer_state.json");
    const auto it = saved.find("train_batch_size");
    if (it != saved.end() && it->is_number_integer() && it->get<int64_t>() > 0) start = it->get<int64_t>();
  }
  // The probes' draws are undone however the search ends (a size found, or the error below).
  struct RestoreOnExit {
    GeneratorSnapshot snapshot;
    ~RestoreOnExit() { snapshot.restore(); }
  } rng{GeneratorSnapshot(ctx.device.device)};
  const bool was_training = ctx.model->is_training();
  for (int64_t bs = start; bs >= 1; bs /= 2) {
    std::string failure;
    {
      data::DataLoader probe = ctx.make_loader(train, /*train=*/true, bs, /*shard=*/true);
      if (probe.num_batches() > 0) {
        try {
          const Batch batch = ctx.on_device(probe.batch(0));
          LossContext loss_ctx;
          loss_ctx.training = true;
          loss_ctx.micro_items = loss_ctx.num_items_in_batch = count_items(batch, ctx.call.label_names, ctx.model->shifts_labels());
          ctx.dp.begin_micro_step(/*last=*/false);  // stages 0/1: gradients stay on this rank
          steps.training_step(batch, loss_ctx);
          ctx.dp.end_micro_step();
        } catch (const std::exception& e) {
          if (!device::is_out_of_memory(e)) throw;
          failure = first_line(e.what());
        }
      }
      ctx.dp.zero_grad();
      ctx.hooks.collect_garbage();  // a Lua hook's tensors from the failed try
      device::empty_gpu_cache();  // what the try cached goes back (HF clears it too): training starts unfragmented
    }
    // Every rank's verdict, so all of them train with the same size.
    const std::vector<double> failed = ctx.dp.gather(failure.empty() ? 0.0 : 1.0);
    int first_failed = -1;
    for (size_t r = 0; r < failed.size() && first_failed < 0; ++r)
      if (failed[r] != 0.0) first_failed = static_cast<int>(r);
    if (first_failed < 0) {
      ctx.model->train(was_training);
      if (ctx.dp.rank() == 0)
        log::info("auto_find_batch_size: training with per_device_train_batch_size = " + std::to_string(bs) +
                  (bs == start ? "" : " (started from " + std::to_string(start) + ")"));
      return bs;
    }
    if (ctx.dp.rank() == 0 || !failure.empty())
      log::warn("auto_find_batch_size: per_device_train_batch_size = " + std::to_string(bs) + " ran out of memory" +
                (ctx.dp.world() > 1 ? " on rank " + std::to_string(first_failed) : "") +
                (bs > 1 ? "; retrying with " + std::to_string(bs / 2) : "") + (failure.empty() ? "" : " (" + failure + ")"));
  }
  throw ArgumentError("args.auto_find_batch_size: even per_device_train_batch_size = 1 runs out of memory; use bf16, "
                      "gradient checkpointing, ZeRO/FSDP sharding or CPU offload");
}

}  // namespace runner::train
