# CMake generated Testfile for 
# Source directory: /work/main/scripts/bench
# Build directory: /work/main/build-hooks/scripts/bench
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
