file(REMOVE_RECURSE
  "../../runner"
  "../../runner.pdb"
  "CMakeFiles/runner.dir/main.cpp.o"
  "CMakeFiles/runner.dir/main.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
