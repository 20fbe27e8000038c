# Precompiled headers (docs/building.md, "Build time"). Most of a first build is GCC parsing
# LibTorch's <ATen/ATen.h> again for every file (~6 s of a ~9 s compile). With RUNNER_PCH
# (default ON) it is parsed once into a precompiled header that every file of every layer
# using LibTorch reuses (REUSE_FROM: one 400 MB .gch for all layers, not one per layer).
# The test binaries reuse it too (compiled with -fPIC, see tests/CMakeLists.txt).
# RUNNER_PCH=OFF builds every file from its own includes (scripts/fuzz.sh does, so missing
# includes still fail a build somewhere).
option(RUNNER_PCH "Precompile LibTorch's ATen headers once for the layers that use them" ON)

set(runner_pch_headers <ATen/ATen.h> <nlohmann/json.hpp> <functional> <map> <memory> <string>
                       <unordered_map> <vector>)

if(RUNNER_PCH)
  # ccache caches files built with a precompiled header only when told that __DATE__-style
  # macros and the header's own defines do not vary.
  if(CCACHE)
    set(CMAKE_CXX_COMPILER_LAUNCHER env CCACHE_SLOPPINESS=pch_defines,time_macros ${CCACHE})
  endif()
  add_library(runner_pch STATIC ${PROJECT_SOURCE_DIR}/cmake/pch_anchor.cpp)
  target_link_libraries(runner_pch PRIVATE torch nlohmann_json::nlohmann_json)
  target_compile_options(runner_pch PRIVATE -Wall -Wextra -Wno-unused-parameter)
  target_precompile_headers(runner_pch PRIVATE ${runner_pch_headers})
endif()

# runner_uses_torch(OUT deps...): TRUE when torch, or a layer that uses it, is among deps.
function(runner_uses_torch out)
  set(uses FALSE)
  foreach(dep ${ARGN})
    if(dep STREQUAL "torch")
      set(uses TRUE)
    elseif(TARGET ${dep})
      get_target_property(dep_uses ${dep} RUNNER_USES_TORCH)
      if(dep_uses)
        set(uses TRUE)
      endif()
    endif()
  endforeach()
  set(${out} ${uses} PARENT_SCOPE)
endfunction()

# runner_target_pch(TARGET FROM): TARGET's files reuse FROM's precompiled header.
function(runner_target_pch target from)
  if(RUNNER_PCH)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()
