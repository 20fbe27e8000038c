# CMake generated Testfile for 
# Source directory: /work/main/tests/bindings
# Build directory: /work/main/build-hooks/tests/bindings
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-hooks/tests/bindings/test_tensor_binding[1]_include.cmake")
include("/work/main/build-hooks/tests/bindings/test_gradcheck[1]_include.cmake")
include("/work/main/build-hooks/tests/bindings/test_sandbox[1]_include.cmake")
include("/work/main/build-hooks/tests/bindings/test_recipe_loading[1]_include.cmake")
include("/work/main/build-hooks/tests/bindings/test_compute_loss[1]_include.cmake")
include("/work/main/build-hooks/tests/bindings/test_stack_balance[1]_include.cmake")
