# CMake generated Testfile for 
# Source directory: /work/main/tests/data
# Build directory: /work/main/build-hooks/tests/data
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-hooks/tests/data/test_dataloader[1]_include.cmake")
include("/work/main/build-hooks/tests/data/test_sources[1]_include.cmake")
