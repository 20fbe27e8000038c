# Empty dependencies file for test_accumulation.
# This may be replaced when dependencies are built.
