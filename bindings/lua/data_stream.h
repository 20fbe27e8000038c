// The data.stream userdata, shared by the data module and recipe loading (datasets.train).
#pragma once
#include "bindings/lua/lua_common.h"
#include "runtime/data/stream/stream.h"

namespace runner::lua {

constexpr const char* kStreamMeta = "runner.Stream";
void push_stream(lua_State* L, data::StreamPtr stream);
data::StreamPtr test_stream(lua_State* L, int idx);  // nullptr if not a stream
data::StreamPtr check_stream(lua_State* L, int idx);
// Registers the userdata type and adds data.stream to the module table on top of the stack.
void add_stream_functions(lua_State* L);

}  // namespace runner::lua
