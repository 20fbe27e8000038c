# CMake generated Testfile for 
# Source directory: /work/main
# Build directory: /work/main/build-hooks
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("runtime/core")
subdirs("runtime/log")
subdirs("runtime/io")
subdirs("runtime/data")
subdirs("runtime/models")
subdirs("runtime/optim")
subdirs("runtime/train")
subdirs("bindings/lua")
subdirs("runtime/cli")
subdirs("tests")
subdirs("scripts/bench")
