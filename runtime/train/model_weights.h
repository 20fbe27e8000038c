// The model's weights between the ranks and a checkpoint's files: the writer's copy of what
// model.safetensors holds, and a weights file loaded into the model. Both are collective:
// under ZeRO-3 the weights are whole only a unit at a time (DataParallel::visit_whole), so a
// model that trains only sharded also saves and loads.
#pragma once
#include <optional>
#include <string>

#include "runtime/models/saved_model.h"
#include "runtime/train/run_context.h"

namespace runner::train {

// The weights for model.safetensors (a LoRA model: only its adapters) on the writer, nullopt
// on the other ranks. Under ZeRO-3 they are gathered a unit at a time on every rank and freed
// after the writer's copy, so no rank holds the whole model (FSDP's FULL_STATE_DICT with
// rank0_only and offload_to_cpu). Copies are made on the host (a device clone of a GPU's
// weights would hold a second whole model on the GPU) of what is freed after, or of
// everything with `snapshot` (save_async: training changes the weights while the background
// thread writes).
std::optional<models::SavedModel> writer_weights(RunContext& ctx, bool snapshot);

// Loads the weights file `dir` holds for this model into it (under ZeRO-3 a unit at a time,
// into this rank's shards), warning about missing and unexpected keys as HF does. Under
// ZeRO-3 the ranks first agree that each could read and match the file: one that cannot
// stops them all (its error; the others name the folder) instead of leaving them in a gather.
void load_model_weights(RunContext& ctx, const std::string& dir);

}  // namespace runner::train
