# CMake generated Testfile for 
# Source directory: /work/main/tests/io
# Build directory: /work/main/build-hooks/tests/io
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-hooks/tests/io/test_safetensors[1]_include.cmake")
include("/work/main/build-hooks/tests/io/test_atomic_file[1]_include.cmake")
