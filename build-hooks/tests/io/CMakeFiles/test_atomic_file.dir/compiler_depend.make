# Empty compiler generated dependencies file for test_atomic_file.
# This may be replaced when dependencies are built.
