file(REMOVE_RECURSE
  "CMakeFiles/test_flow_details.dir/test_flow_details.cpp.o"
  "CMakeFiles/test_flow_details.dir/test_flow_details.cpp.o.d"
  "test_flow_details"
  "test_flow_details.pdb"
  "test_flow_details[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_flow_details.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
