
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/core/test_did_you_mean.cpp" "tests/core/CMakeFiles/test_did_you_mean.dir/test_did_you_mean.cpp.o" "gcc" "tests/core/CMakeFiles/test_did_you_mean.dir/test_did_you_mean.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-hooks/runtime/core/CMakeFiles/runner_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
