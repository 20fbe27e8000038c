file(REMOVE_RECURSE
  "CMakeFiles/test_adafactor.dir/test_adafactor.cpp.o"
  "CMakeFiles/test_adafactor.dir/test_adafactor.cpp.o.d"
  "test_adafactor"
  "test_adafactor.pdb"
  "test_adafactor[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_adafactor.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
