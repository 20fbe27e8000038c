# Empty dependencies file for test_training_loop.
# This may be replaced when dependencies are built.
