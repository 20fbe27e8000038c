file(REMOVE_RECURSE
  "CMakeFiles/runner_log.dir/log.cpp.o"
  "CMakeFiles/runner_log.dir/log.cpp.o.d"
  "librunner_log.a"
  "librunner_log.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_log.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
