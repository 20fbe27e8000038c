# CMake generated Testfile for 
# Source directory: /work/main/tests/core
# Build directory: /work/main/build-hooks/tests/core
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-hooks/tests/core/test_training_args[1]_include.cmake")
include("/work/main/build-hooks/tests/core/test_did_you_mean[1]_include.cmake")
include("/work/main/build-hooks/tests/core/test_trainer_state[1]_include.cmake")
include("/work/main/build-hooks/tests/core/test_command_line[1]_include.cmake")
