file(REMOVE_RECURSE
  "CMakeFiles/runner_optim.dir/adafactor.cpp.o"
  "CMakeFiles/runner_optim.dir/adafactor.cpp.o.d"
  "CMakeFiles/runner_optim.dir/adagrad.cpp.o"
  "CMakeFiles/runner_optim.dir/adagrad.cpp.o.d"
  "CMakeFiles/runner_optim.dir/adamw.cpp.o"
  "CMakeFiles/runner_optim.dir/adamw.cpp.o.d"
  "CMakeFiles/runner_optim.dir/flat_params.cpp.o"
  "CMakeFiles/runner_optim.dir/flat_params.cpp.o.d"
  "CMakeFiles/runner_optim.dir/optimizer.cpp.o"
  "CMakeFiles/runner_optim.dir/optimizer.cpp.o.d"
  "CMakeFiles/runner_optim.dir/rmsprop.cpp.o"
  "CMakeFiles/runner_optim.dir/rmsprop.cpp.o.d"
  "CMakeFiles/runner_optim.dir/scheduler.cpp.o"
  "CMakeFiles/runner_optim.dir/scheduler.cpp.o.d"
  "CMakeFiles/runner_optim.dir/sgd.cpp.o"
  "CMakeFiles/runner_optim.dir/sgd.cpp.o.d"
  "librunner_optim.a"
  "librunner_optim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_optim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
