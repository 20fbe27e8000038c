# Empty compiler generated dependencies file for test_sources.
# This may be replaced when dependencies are built.
