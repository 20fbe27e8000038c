file(REMOVE_RECURSE
  "CMakeFiles/test_plateau_scheduler.dir/test_plateau_scheduler.cpp.o"
  "CMakeFiles/test_plateau_scheduler.dir/test_plateau_scheduler.cpp.o.d"
  "test_plateau_scheduler"
  "test_plateau_scheduler.pdb"
  "test_plateau_scheduler[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_plateau_scheduler.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
