# CMake generated Testfile for 
# Source directory: /work/main/tests
# Build directory: /work/main/build-hooks/tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("core")
subdirs("io")
subdirs("data")
subdirs("models")
subdirs("optim")
subdirs("train")
subdirs("bindings")
subdirs("integration")
