
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/optim/test_adafactor.cpp" "tests/optim/CMakeFiles/test_adafactor.dir/test_adafactor.cpp.o" "gcc" "tests/optim/CMakeFiles/test_adafactor.dir/test_adafactor.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-hooks/runtime/optim/CMakeFiles/runner_optim.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/core/CMakeFiles/runner_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
