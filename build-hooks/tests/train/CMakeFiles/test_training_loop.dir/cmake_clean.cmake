file(REMOVE_RECURSE
  "CMakeFiles/test_training_loop.dir/test_training_loop.cpp.o"
  "CMakeFiles/test_training_loop.dir/test_training_loop.cpp.o.d"
  "test_training_loop"
  "test_training_loop.pdb"
  "test_training_loop[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_training_loop.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
