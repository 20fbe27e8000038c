
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/runtime/data/collator.cpp" "runtime/data/CMakeFiles/runner_data.dir/collator.cpp.o" "gcc" "runtime/data/CMakeFiles/runner_data.dir/collator.cpp.o.d"
  "/work/main/runtime/data/dataloader.cpp" "runtime/data/CMakeFiles/runner_data.dir/dataloader.cpp.o" "gcc" "runtime/data/CMakeFiles/runner_data.dir/dataloader.cpp.o.d"
  "/work/main/runtime/data/dataset.cpp" "runtime/data/CMakeFiles/runner_data.dir/dataset.cpp.o" "gcc" "runtime/data/CMakeFiles/runner_data.dir/dataset.cpp.o.d"
  "/work/main/runtime/data/sampler.cpp" "runtime/data/CMakeFiles/runner_data.dir/sampler.cpp.o" "gcc" "runtime/data/CMakeFiles/runner_data.dir/sampler.cpp.o.d"
  "/work/main/runtime/data/sources/csv.cpp" "runtime/data/CMakeFiles/runner_data.dir/sources/csv.cpp.o" "gcc" "runtime/data/CMakeFiles/runner_data.dir/sources/csv.cpp.o.d"
  "/work/main/runtime/data/sources/jsonl.cpp" "runtime/data/CMakeFiles/runner_data.dir/sources/jsonl.cpp.o" "gcc" "runtime/data/CMakeFiles/runner_data.dir/sources/jsonl.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-hooks/runtime/core/CMakeFiles/runner_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
