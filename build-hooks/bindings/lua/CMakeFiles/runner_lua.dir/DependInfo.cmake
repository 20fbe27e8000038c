
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/bindings/lua/data.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/data.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/data.cpp.o.d"
  "/work/main/bindings/lua/functional.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/functional.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/functional.cpp.o.d"
  "/work/main/bindings/lua/lua_call.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/lua_call.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/lua_call.cpp.o.d"
  "/work/main/bindings/lua/lua_callbacks.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/lua_callbacks.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/lua_callbacks.cpp.o.d"
  "/work/main/bindings/lua/lua_common.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/lua_common.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/lua_common.cpp.o.d"
  "/work/main/bindings/lua/lua_hooks.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/lua_hooks.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/lua_hooks.cpp.o.d"
  "/work/main/bindings/lua/lua_module.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/lua_module.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/lua_module.cpp.o.d"
  "/work/main/bindings/lua/lua_state.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/lua_state.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/lua_state.cpp.o.d"
  "/work/main/bindings/lua/nn.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/nn.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/nn.cpp.o.d"
  "/work/main/build-hooks/bindings/lua/prelude_lua.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/prelude_lua.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/prelude_lua.cpp.o.d"
  "/work/main/bindings/lua/recipe.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/recipe.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/recipe.cpp.o.d"
  "/work/main/bindings/lua/tensor.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/tensor.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/tensor.cpp.o.d"
  "/work/main/bindings/lua/tensor_methods.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/tensor_methods.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/tensor_methods.cpp.o.d"
  "/work/main/bindings/lua/torch_module.cpp" "bindings/lua/CMakeFiles/runner_lua.dir/torch_module.cpp.o" "gcc" "bindings/lua/CMakeFiles/runner_lua.dir/torch_module.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-hooks/runtime/train/CMakeFiles/runner_train.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/core/CMakeFiles/runner_core.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/data/CMakeFiles/runner_data.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/models/CMakeFiles/runner_models.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/log/CMakeFiles/runner_log.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/io/CMakeFiles/runner_io.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/optim/CMakeFiles/runner_optim.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
