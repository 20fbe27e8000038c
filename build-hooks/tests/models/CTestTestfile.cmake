# CMake generated Testfile for 
# Source directory: /work/main/tests/models
# Build directory: /work/main/build-hooks/tests/models
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-hooks/tests/models/test_layers[1]_include.cmake")
