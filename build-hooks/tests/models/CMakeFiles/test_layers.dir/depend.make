# Empty dependencies file for test_layers.
# This may be replaced when dependencies are built.
