# Empty dependencies file for test_adagrad_rmsprop.
# This may be replaced when dependencies are built.
