
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/runtime/core/callback.cpp" "runtime/core/CMakeFiles/runner_core.dir/callback.cpp.o" "gcc" "runtime/core/CMakeFiles/runner_core.dir/callback.cpp.o.d"
  "/work/main/runtime/core/did_you_mean.cpp" "runtime/core/CMakeFiles/runner_core.dir/did_you_mean.cpp.o" "gcc" "runtime/core/CMakeFiles/runner_core.dir/did_you_mean.cpp.o.d"
  "/work/main/runtime/core/errors.cpp" "runtime/core/CMakeFiles/runner_core.dir/errors.cpp.o" "gcc" "runtime/core/CMakeFiles/runner_core.dir/errors.cpp.o.d"
  "/work/main/runtime/core/trainer_state.cpp" "runtime/core/CMakeFiles/runner_core.dir/trainer_state.cpp.o" "gcc" "runtime/core/CMakeFiles/runner_core.dir/trainer_state.cpp.o.d"
  "/work/main/runtime/core/training_args.cpp" "runtime/core/CMakeFiles/runner_core.dir/training_args.cpp.o" "gcc" "runtime/core/CMakeFiles/runner_core.dir/training_args.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
