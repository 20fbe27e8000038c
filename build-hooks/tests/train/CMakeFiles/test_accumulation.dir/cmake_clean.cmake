file(REMOVE_RECURSE
  "CMakeFiles/test_accumulation.dir/test_accumulation.cpp.o"
  "CMakeFiles/test_accumulation.dir/test_accumulation.cpp.o.d"
  "test_accumulation"
  "test_accumulation.pdb"
  "test_accumulation[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_accumulation.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
