# runner_layer(NAME DIR SOURCES... [DEPS targets...] [PUBLIC_DEPS targets...])
#
# One static library per layer. Code includes headers by their repository path
# ("runtime/core/errors.h"), but the include root a target sees holds only the layers it
# links: each layer gets its own root in the build tree with a symlink to its folder. So a
# layer that does not list another cannot even include its headers, and the arrows of
# DESIGN.md fail the build instead of failing review. PUBLIC_DEPS are layers whose headers
# appear in this layer's own headers. A layer using LibTorch (directly or through a layer)
# reuses the precompiled header (cmake/precompiled_headers.cmake).
function(runner_layer name dir)
  cmake_parse_arguments(L "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  set(root ${PROJECT_BINARY_DIR}/include/${name})
  get_filename_component(parent ${root}/${dir} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT EXISTS ${root}/${dir})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${dir} ${root}/${dir} SYMBOLIC)
  endif()
  add_library(${name} STATIC ${L_SOURCES})
  target_include_directories(${name} PUBLIC ${root})
  target_link_libraries(${name} PUBLIC ${L_PUBLIC_DEPS} PRIVATE ${L_DEPS})
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  runner_uses_torch(uses_torch ${L_DEPS} ${L_PUBLIC_DEPS})
  set_target_properties(${name} PROPERTIES RUNNER_USES_TORCH ${uses_torch})
  # -fopenmp files define _OPENMP, which the shared precompiled header was built without.
  if(uses_torch AND NOT "runner_openmp" IN_LIST L_DEPS)
    runner_target_pch(${name} runner_pch)
  endif()
endfunction()
