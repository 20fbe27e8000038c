file(REMOVE_RECURSE
  "CMakeFiles/test_compute_loss.dir/test_compute_loss.cpp.o"
  "CMakeFiles/test_compute_loss.dir/test_compute_loss.cpp.o.d"
  "test_compute_loss"
  "test_compute_loss.pdb"
  "test_compute_loss[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_compute_loss.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
