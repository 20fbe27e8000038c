# Empty compiler generated dependencies file for test_checkpoints.
# This may be replaced when dependencies are built.
