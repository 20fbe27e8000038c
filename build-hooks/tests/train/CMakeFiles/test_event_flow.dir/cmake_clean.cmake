file(REMOVE_RECURSE
  "CMakeFiles/test_event_flow.dir/test_event_flow.cpp.o"
  "CMakeFiles/test_event_flow.dir/test_event_flow.cpp.o.d"
  "test_event_flow"
  "test_event_flow.pdb"
  "test_event_flow[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_event_flow.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
