// Dataset userdata shared by the data module and recipe loading.
#pragma once
#include "bindings/lua/lua_common.h"
#include "runtime/data/dataset.h"

namespace runner::lua {

constexpr const char* kDatasetMeta = "runner.Dataset";
void push_dataset(lua_State* L, data::DatasetPtr ds);
data::DatasetPtr check_dataset(lua_State* L, int idx);
data::DatasetPtr test_dataset(lua_State* L, int idx);  // nullptr if not a dataset

}  // namespace runner::lua
