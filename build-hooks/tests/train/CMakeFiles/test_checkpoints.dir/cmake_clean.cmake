file(REMOVE_RECURSE
  "CMakeFiles/test_checkpoints.dir/test_checkpoints.cpp.o"
  "CMakeFiles/test_checkpoints.dir/test_checkpoints.cpp.o.d"
  "test_checkpoints"
  "test_checkpoints.pdb"
  "test_checkpoints[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_checkpoints.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
