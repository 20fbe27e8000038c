file(REMOVE_RECURSE
  "CMakeFiles/runner_models.dir/layers.cpp.o"
  "CMakeFiles/runner_models.dir/layers.cpp.o.d"
  "CMakeFiles/runner_models.dir/module.cpp.o"
  "CMakeFiles/runner_models.dir/module.cpp.o.d"
  "librunner_models.a"
  "librunner_models.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_models.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
