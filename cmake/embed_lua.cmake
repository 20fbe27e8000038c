# Turns a .lua file into a C++ source defining `const char* <symbol>` with its text, so
# the runner binary needs no Lua files installed next to it.
function(runner_embed_lua lua_file symbol out_cpp)
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DIN=${lua_file} -DSYMBOL=${symbol} -DOUT=${out_cpp} -P ${PROJECT_SOURCE_DIR}/cmake/embed_lua_run.cmake
    DEPENDS ${lua_file} ${PROJECT_SOURCE_DIR}/cmake/embed_lua_run.cmake
    COMMENT "Embedding ${lua_file}")
endfunction()
