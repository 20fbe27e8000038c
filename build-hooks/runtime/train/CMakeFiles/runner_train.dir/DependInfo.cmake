
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/runtime/train/builtin_callbacks.cpp" "runtime/train/CMakeFiles/runner_train.dir/builtin_callbacks.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/builtin_callbacks.cpp.o.d"
  "/work/main/runtime/train/callback_handler.cpp" "runtime/train/CMakeFiles/runner_train.dir/callback_handler.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/callback_handler.cpp.o.d"
  "/work/main/runtime/train/checkpoint.cpp" "runtime/train/CMakeFiles/runner_train.dir/checkpoint.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/checkpoint.cpp.o.d"
  "/work/main/runtime/train/eval_accumulator.cpp" "runtime/train/CMakeFiles/runner_train.dir/eval_accumulator.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/eval_accumulator.cpp.o.d"
  "/work/main/runtime/train/evaluate.cpp" "runtime/train/CMakeFiles/runner_train.dir/evaluate.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/evaluate.cpp.o.d"
  "/work/main/runtime/train/memory_tracker.cpp" "runtime/train/CMakeFiles/runner_train.dir/memory_tracker.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/memory_tracker.cpp.o.d"
  "/work/main/runtime/train/model_call.cpp" "runtime/train/CMakeFiles/runner_train.dir/model_call.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/model_call.cpp.o.d"
  "/work/main/runtime/train/optimizer_factory.cpp" "runtime/train/CMakeFiles/runner_train.dir/optimizer_factory.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/optimizer_factory.cpp.o.d"
  "/work/main/runtime/train/param_groups.cpp" "runtime/train/CMakeFiles/runner_train.dir/param_groups.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/param_groups.cpp.o.d"
  "/work/main/runtime/train/run.cpp" "runtime/train/CMakeFiles/runner_train.dir/run.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/run.cpp.o.d"
  "/work/main/runtime/train/save.cpp" "runtime/train/CMakeFiles/runner_train.dir/save.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/save.cpp.o.d"
  "/work/main/runtime/train/trainer.cpp" "runtime/train/CMakeFiles/runner_train.dir/trainer.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/trainer.cpp.o.d"
  "/work/main/runtime/train/training_plan.cpp" "runtime/train/CMakeFiles/runner_train.dir/training_plan.cpp.o" "gcc" "runtime/train/CMakeFiles/runner_train.dir/training_plan.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-hooks/runtime/core/CMakeFiles/runner_core.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/data/CMakeFiles/runner_data.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/models/CMakeFiles/runner_models.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/optim/CMakeFiles/runner_optim.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/io/CMakeFiles/runner_io.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/log/CMakeFiles/runner_log.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
