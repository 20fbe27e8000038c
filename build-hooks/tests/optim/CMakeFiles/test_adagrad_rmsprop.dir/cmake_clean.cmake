file(REMOVE_RECURSE
  "CMakeFiles/test_adagrad_rmsprop.dir/test_adagrad_rmsprop.cpp.o"
  "CMakeFiles/test_adagrad_rmsprop.dir/test_adagrad_rmsprop.cpp.o.d"
  "test_adagrad_rmsprop"
  "test_adagrad_rmsprop.pdb"
  "test_adagrad_rmsprop[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_adagrad_rmsprop.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
