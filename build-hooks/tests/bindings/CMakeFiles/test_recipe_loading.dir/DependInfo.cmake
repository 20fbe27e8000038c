
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/bindings/test_recipe_loading.cpp" "tests/bindings/CMakeFiles/test_recipe_loading.dir/test_recipe_loading.cpp.o" "gcc" "tests/bindings/CMakeFiles/test_recipe_loading.dir/test_recipe_loading.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-hooks/bindings/lua/CMakeFiles/runner_lua.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/train/CMakeFiles/runner_train.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/core/CMakeFiles/runner_core.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/io/CMakeFiles/runner_io.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/optim/CMakeFiles/runner_optim.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/data/CMakeFiles/runner_data.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/models/CMakeFiles/runner_models.dir/DependInfo.cmake"
  "/work/main/build-hooks/runtime/log/CMakeFiles/runner_log.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
