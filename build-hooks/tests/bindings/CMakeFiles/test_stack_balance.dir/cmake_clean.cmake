file(REMOVE_RECURSE
  "CMakeFiles/test_stack_balance.dir/test_stack_balance.cpp.o"
  "CMakeFiles/test_stack_balance.dir/test_stack_balance.cpp.o.d"
  "test_stack_balance"
  "test_stack_balance.pdb"
  "test_stack_balance[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_stack_balance.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
