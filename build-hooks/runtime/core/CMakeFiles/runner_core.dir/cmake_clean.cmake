file(REMOVE_RECURSE
  "CMakeFiles/runner_core.dir/callback.cpp.o"
  "CMakeFiles/runner_core.dir/callback.cpp.o.d"
  "CMakeFiles/runner_core.dir/did_you_mean.cpp.o"
  "CMakeFiles/runner_core.dir/did_you_mean.cpp.o.d"
  "CMakeFiles/runner_core.dir/errors.cpp.o"
  "CMakeFiles/runner_core.dir/errors.cpp.o.d"
  "CMakeFiles/runner_core.dir/trainer_state.cpp.o"
  "CMakeFiles/runner_core.dir/trainer_state.cpp.o.d"
  "CMakeFiles/runner_core.dir/training_args.cpp.o"
  "CMakeFiles/runner_core.dir/training_args.cpp.o.d"
  "librunner_core.a"
  "librunner_core.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_core.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
