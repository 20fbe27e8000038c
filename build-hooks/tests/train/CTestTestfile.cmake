# CMake generated Testfile for 
# Source directory: /work/main/tests/train
# Build directory: /work/main/build-hooks/tests/train
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-hooks/tests/train/test_accumulation[1]_include.cmake")
include("/work/main/build-hooks/tests/train/test_training_loop[1]_include.cmake")
include("/work/main/build-hooks/tests/train/test_event_flow[1]_include.cmake")
include("/work/main/build-hooks/tests/train/test_resume[1]_include.cmake")
include("/work/main/build-hooks/tests/train/test_checkpoints[1]_include.cmake")
include("/work/main/build-hooks/tests/train/test_evaluation[1]_include.cmake")
include("/work/main/build-hooks/tests/train/test_flow_details[1]_include.cmake")
