# CMake generated Testfile for 
# Source directory: /work/main/tests/integration
# Build directory: /work/main/build-hooks/tests/integration
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test(integration_quickstart "/usr/bin/python3" "/work/main/tests/integration/test_quickstart.py")
set_tests_properties(integration_quickstart PROPERTIES  ENVIRONMENT "RUNNER_BINARY=/work/main/build-hooks/runner;RUNNER_SOURCE_DIR=/work/main" TIMEOUT "600" _BACKTRACE_TRIPLES "/work/main/tests/integration/CMakeLists.txt;9;add_test;/work/main/tests/integration/CMakeLists.txt;14;runner_py_test;/work/main/tests/integration/CMakeLists.txt;0;")
add_test(integration_errors "/usr/bin/python3" "/work/main/tests/integration/test_errors.py")
set_tests_properties(integration_errors PROPERTIES  ENVIRONMENT "RUNNER_BINARY=/work/main/build-hooks/runner;RUNNER_SOURCE_DIR=/work/main" TIMEOUT "600" _BACKTRACE_TRIPLES "/work/main/tests/integration/CMakeLists.txt;9;add_test;/work/main/tests/integration/CMakeLists.txt;15;runner_py_test;/work/main/tests/integration/CMakeLists.txt;0;")
add_test(integration_cli "/usr/bin/python3" "/work/main/tests/integration/test_cli.py")
set_tests_properties(integration_cli PROPERTIES  ENVIRONMENT "RUNNER_BINARY=/work/main/build-hooks/runner;RUNNER_SOURCE_DIR=/work/main" TIMEOUT "600" _BACKTRACE_TRIPLES "/work/main/tests/integration/CMakeLists.txt;9;add_test;/work/main/tests/integration/CMakeLists.txt;16;runner_py_test;/work/main/tests/integration/CMakeLists.txt;0;")
add_test(check_recipe_quickstart "/work/main/build-hooks/runner" "check" "/work/main/recipes/quickstart.lua" "--output_dir" "/work/main/build-hooks/tests/integration/check_quickstart")
set_tests_properties(check_recipe_quickstart PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tests/integration/CMakeLists.txt;22;add_test;/work/main/tests/integration/CMakeLists.txt;0;")
