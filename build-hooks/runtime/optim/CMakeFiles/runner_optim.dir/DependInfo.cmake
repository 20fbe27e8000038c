
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/runtime/optim/adafactor.cpp" "runtime/optim/CMakeFiles/runner_optim.dir/adafactor.cpp.o" "gcc" "runtime/optim/CMakeFiles/runner_optim.dir/adafactor.cpp.o.d"
  "/work/main/runtime/optim/adagrad.cpp" "runtime/optim/CMakeFiles/runner_optim.dir/adagrad.cpp.o" "gcc" "runtime/optim/CMakeFiles/runner_optim.dir/adagrad.cpp.o.d"
  "/work/main/runtime/optim/adamw.cpp" "runtime/optim/CMakeFiles/runner_optim.dir/adamw.cpp.o" "gcc" "runtime/optim/CMakeFiles/runner_optim.dir/adamw.cpp.o.d"
  "/work/main/runtime/optim/flat_params.cpp" "runtime/optim/CMakeFiles/runner_optim.dir/flat_params.cpp.o" "gcc" "runtime/optim/CMakeFiles/runner_optim.dir/flat_params.cpp.o.d"
  "/work/main/runtime/optim/optimizer.cpp" "runtime/optim/CMakeFiles/runner_optim.dir/optimizer.cpp.o" "gcc" "runtime/optim/CMakeFiles/runner_optim.dir/optimizer.cpp.o.d"
  "/work/main/runtime/optim/rmsprop.cpp" "runtime/optim/CMakeFiles/runner_optim.dir/rmsprop.cpp.o" "gcc" "runtime/optim/CMakeFiles/runner_optim.dir/rmsprop.cpp.o.d"
  "/work/main/runtime/optim/scheduler.cpp" "runtime/optim/CMakeFiles/runner_optim.dir/scheduler.cpp.o" "gcc" "runtime/optim/CMakeFiles/runner_optim.dir/scheduler.cpp.o.d"
  "/work/main/runtime/optim/sgd.cpp" "runtime/optim/CMakeFiles/runner_optim.dir/sgd.cpp.o" "gcc" "runtime/optim/CMakeFiles/runner_optim.dir/sgd.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-hooks/runtime/core/CMakeFiles/runner_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
