file(REMOVE_RECURSE
  "CMakeFiles/runner_io.dir/atomic_file.cpp.o"
  "CMakeFiles/runner_io.dir/atomic_file.cpp.o.d"
  "CMakeFiles/runner_io.dir/checkpoint.cpp.o"
  "CMakeFiles/runner_io.dir/checkpoint.cpp.o.d"
  "CMakeFiles/runner_io.dir/safetensors.cpp.o"
  "CMakeFiles/runner_io.dir/safetensors.cpp.o.d"
  "librunner_io.a"
  "librunner_io.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_io.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
