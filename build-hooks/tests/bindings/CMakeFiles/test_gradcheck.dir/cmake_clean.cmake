file(REMOVE_RECURSE
  "CMakeFiles/test_gradcheck.dir/test_gradcheck.cpp.o"
  "CMakeFiles/test_gradcheck.dir/test_gradcheck.cpp.o.d"
  "test_gradcheck"
  "test_gradcheck.pdb"
  "test_gradcheck[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_gradcheck.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
