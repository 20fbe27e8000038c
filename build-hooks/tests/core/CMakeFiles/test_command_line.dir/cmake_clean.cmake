file(REMOVE_RECURSE
  "CMakeFiles/test_command_line.dir/test_command_line.cpp.o"
  "CMakeFiles/test_command_line.dir/test_command_line.cpp.o.d"
  "test_command_line"
  "test_command_line.pdb"
  "test_command_line[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_command_line.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
