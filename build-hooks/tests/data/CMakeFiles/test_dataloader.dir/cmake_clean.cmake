file(REMOVE_RECURSE
  "CMakeFiles/test_dataloader.dir/test_dataloader.cpp.o"
  "CMakeFiles/test_dataloader.dir/test_dataloader.cpp.o.d"
  "test_dataloader"
  "test_dataloader.pdb"
  "test_dataloader[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_dataloader.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
