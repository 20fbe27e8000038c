file(REMOVE_RECURSE
  "CMakeFiles/runner_data.dir/collator.cpp.o"
  "CMakeFiles/runner_data.dir/collator.cpp.o.d"
  "CMakeFiles/runner_data.dir/dataloader.cpp.o"
  "CMakeFiles/runner_data.dir/dataloader.cpp.o.d"
  "CMakeFiles/runner_data.dir/dataset.cpp.o"
  "CMakeFiles/runner_data.dir/dataset.cpp.o.d"
  "CMakeFiles/runner_data.dir/sampler.cpp.o"
  "CMakeFiles/runner_data.dir/sampler.cpp.o.d"
  "CMakeFiles/runner_data.dir/sources/csv.cpp.o"
  "CMakeFiles/runner_data.dir/sources/csv.cpp.o.d"
  "CMakeFiles/runner_data.dir/sources/jsonl.cpp.o"
  "CMakeFiles/runner_data.dir/sources/jsonl.cpp.o.d"
  "librunner_data.a"
  "librunner_data.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_data.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
