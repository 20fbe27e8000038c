file(REMOVE_RECURSE
  "CMakeFiles/runner_lua.dir/data.cpp.o"
  "CMakeFiles/runner_lua.dir/data.cpp.o.d"
  "CMakeFiles/runner_lua.dir/functional.cpp.o"
  "CMakeFiles/runner_lua.dir/functional.cpp.o.d"
  "CMakeFiles/runner_lua.dir/lua_call.cpp.o"
  "CMakeFiles/runner_lua.dir/lua_call.cpp.o.d"
  "CMakeFiles/runner_lua.dir/lua_callbacks.cpp.o"
  "CMakeFiles/runner_lua.dir/lua_callbacks.cpp.o.d"
  "CMakeFiles/runner_lua.dir/lua_common.cpp.o"
  "CMakeFiles/runner_lua.dir/lua_common.cpp.o.d"
  "CMakeFiles/runner_lua.dir/lua_hooks.cpp.o"
  "CMakeFiles/runner_lua.dir/lua_hooks.cpp.o.d"
  "CMakeFiles/runner_lua.dir/lua_module.cpp.o"
  "CMakeFiles/runner_lua.dir/lua_module.cpp.o.d"
  "CMakeFiles/runner_lua.dir/lua_state.cpp.o"
  "CMakeFiles/runner_lua.dir/lua_state.cpp.o.d"
  "CMakeFiles/runner_lua.dir/nn.cpp.o"
  "CMakeFiles/runner_lua.dir/nn.cpp.o.d"
  "CMakeFiles/runner_lua.dir/prelude_lua.cpp.o"
  "CMakeFiles/runner_lua.dir/prelude_lua.cpp.o.d"
  "CMakeFiles/runner_lua.dir/recipe.cpp.o"
  "CMakeFiles/runner_lua.dir/recipe.cpp.o.d"
  "CMakeFiles/runner_lua.dir/tensor.cpp.o"
  "CMakeFiles/runner_lua.dir/tensor.cpp.o.d"
  "CMakeFiles/runner_lua.dir/tensor_methods.cpp.o"
  "CMakeFiles/runner_lua.dir/tensor_methods.cpp.o.d"
  "CMakeFiles/runner_lua.dir/torch_module.cpp.o"
  "CMakeFiles/runner_lua.dir/torch_module.cpp.o.d"
  "librunner_lua.a"
  "librunner_lua.pdb"
  "prelude_lua.cpp"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_lua.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
