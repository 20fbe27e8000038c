# CMake generated Testfile for 
# Source directory: /work/main/tests/optim
# Build directory: /work/main/build-hooks/tests/optim
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-hooks/tests/optim/test_optimizers[1]_include.cmake")
include("/work/main/build-hooks/tests/optim/test_schedulers[1]_include.cmake")
include("/work/main/build-hooks/tests/optim/test_adagrad_rmsprop[1]_include.cmake")
include("/work/main/build-hooks/tests/optim/test_adafactor[1]_include.cmake")
include("/work/main/build-hooks/tests/optim/test_plateau_scheduler[1]_include.cmake")
