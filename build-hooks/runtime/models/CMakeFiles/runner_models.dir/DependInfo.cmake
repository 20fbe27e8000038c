
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/runtime/models/layers.cpp" "runtime/models/CMakeFiles/runner_models.dir/layers.cpp.o" "gcc" "runtime/models/CMakeFiles/runner_models.dir/layers.cpp.o.d"
  "/work/main/runtime/models/module.cpp" "runtime/models/CMakeFiles/runner_models.dir/module.cpp.o" "gcc" "runtime/models/CMakeFiles/runner_models.dir/module.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-hooks/runtime/core/CMakeFiles/runner_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
