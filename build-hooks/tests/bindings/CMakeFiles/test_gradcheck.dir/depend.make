# Empty dependencies file for test_gradcheck.
# This may be replaced when dependencies are built.
