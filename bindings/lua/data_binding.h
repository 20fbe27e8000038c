// Dataset and collator userdata shared by the data module and recipe loading.
#pragma once
#include <optional>
#include <string>

#include "bindings/lua/lua_common.h"
#include "runtime/data/collator.h"
#include "runtime/data/dataset.h"

namespace runner::lua {

constexpr const char* kDatasetMeta = "runner.Dataset";
void push_dataset(lua_State* L, data::DatasetPtr ds);
data::DatasetPtr check_dataset(lua_State* L, int idx);
data::DatasetPtr test_dataset(lua_State* L, int idx);  // nullptr if not a dataset

// A collator a recipe built with data.pad_collator{...} / data.lm_collator{...}, as a
// recipe gives it: `data_collator = data.pad_collator{...}`. Recipe loading passes
// `collate` to the trainer, and `thread_safe` to the DataLoader (collator_thread_safe),
// so these built-in collators may run on prefetch workers; Lua function collators may not.
constexpr const char* kCollatorMeta = "runner.Collator";
struct CollatorSpec {
  data::Collator collate;
  bool thread_safe = false;
  std::string name;  // "data.pad_collator", for messages
};
void push_collator(lua_State* L, CollatorSpec spec);
std::optional<CollatorSpec> test_collator(lua_State* L, int idx);  // nullopt if not a collator

// While a recipe's data_collator function builds a batch: the batch's origin, which a built-in
// collator it calls on that many examples then uses (so data.mlm_collator inside a Lua wrapper
// draws as it would unwrapped). Called with another number of examples, or outside a batch, a
// collator takes them as epoch 0, indices 0, 1, ...
class BatchOriginScope {
 public:
  explicit BatchOriginScope(const data::BatchOrigin& origin);
  ~BatchOriginScope();
  BatchOriginScope(const BatchOriginScope&) = delete;
  BatchOriginScope& operator=(const BatchOriginScope&) = delete;

 private:
  const data::BatchOrigin* previous_;
};

}  // namespace runner::lua
