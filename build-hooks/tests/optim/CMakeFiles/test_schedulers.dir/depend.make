# Empty dependencies file for test_schedulers.
# This may be replaced when dependencies are built.
