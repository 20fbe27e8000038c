file(REMOVE_RECURSE
  "CMakeFiles/test_trainer_state.dir/test_trainer_state.cpp.o"
  "CMakeFiles/test_trainer_state.dir/test_trainer_state.cpp.o.d"
  "test_trainer_state"
  "test_trainer_state.pdb"
  "test_trainer_state[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_trainer_state.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
