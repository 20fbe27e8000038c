file(REMOVE_RECURSE
  "CMakeFiles/runner_cli.dir/command_line.cpp.o"
  "CMakeFiles/runner_cli.dir/command_line.cpp.o.d"
  "CMakeFiles/runner_cli.dir/commands.cpp.o"
  "CMakeFiles/runner_cli.dir/commands.cpp.o.d"
  "CMakeFiles/runner_cli.dir/process_setup.cpp.o"
  "CMakeFiles/runner_cli.dir/process_setup.cpp.o.d"
  "librunner_cli.a"
  "librunner_cli.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/runner_cli.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
