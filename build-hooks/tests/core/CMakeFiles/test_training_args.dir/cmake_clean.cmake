file(REMOVE_RECURSE
  "CMakeFiles/test_training_args.dir/test_training_args.cpp.o"
  "CMakeFiles/test_training_args.dir/test_training_args.cpp.o.d"
  "test_training_args"
  "test_training_args.pdb"
  "test_training_args[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_training_args.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
