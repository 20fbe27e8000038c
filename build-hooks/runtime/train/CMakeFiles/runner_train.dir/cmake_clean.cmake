file(REMOVE_RECURSE
  "CMakeFiles/runner_train.dir/builtin_callbacks.cpp.o"
  "CMakeFiles/runner_train.dir/builtin_callbacks.cpp.o.d"
  "CMakeFiles/runner_train.dir/callback_handler.cpp.o"
  "CMakeFiles/runner_train.dir/callback_handler.cpp.o.d"
  "CMakeFiles/runner_train.dir/checkpoint.cpp.o"
  "CMakeFiles/runner_train.dir/checkpoint.cpp.o.d"
  "CMakeFiles/runner_train.dir/eval_accumulator.cpp.o"
  "CMakeFiles/runner_train.dir/eval_accumulator.cpp.o.d"
  "CMakeFiles/runner_train.dir/evaluate.cpp.o"
  "CMakeFiles/runner_train.dir/evaluate.cpp.o.d"
  "CMakeFiles/runner_train.dir/memory_tracker.cpp.o"
  "CMakeFiles/runner_train.dir/memory_tracker.cpp.o.d"
  "CMakeFiles/runner_train.dir/model_call.cpp.o"
  "CMakeFiles/runner_train.dir/model_call.cpp.o.d"
  "CMakeFiles/runner_train.dir/optimizer_factory.cpp.o"
  "CMakeFiles/runner_train.dir/optimizer_factory.cpp.o.d"
  "CMakeFiles/runner_train.dir/param_groups.cpp.o"
  "CMakeFiles/runner_train.dir/param_groups.cpp.o.d"
  "CMakeFiles/runner_train.dir/run.cpp.o"
  "CMakeFiles/runner_train.dir/run.cpp.o.d"
  "CMakeFiles/runner_train.dir/save.cpp.o"
  "CMakeFiles/runner_train.dir/save.cpp.o.d"
  "CMakeFiles/runner_train.dir/trainer.cpp.o"
  "CMakeFiles/runner_train.dir/trainer.cpp.o.d"
  "CMakeFiles/runner_train.dir/training_plan.cpp.o"
  "CMakeFiles/runner_train.dir/training_plan.cpp.o.d"
  "librunner_train.a"
  "librunner_train.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_train.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
