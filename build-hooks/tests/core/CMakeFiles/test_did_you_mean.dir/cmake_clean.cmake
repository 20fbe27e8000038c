file(REMOVE_RECURSE
  "CMakeFiles/test_did_you_mean.dir/test_did_you_mean.cpp.o"
  "CMakeFiles/test_did_you_mean.dir/test_did_you_mean.cpp.o.d"
  "test_did_you_mean"
  "test_did_you_mean.pdb"
  "test_did_you_mean[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_did_you_mean.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
