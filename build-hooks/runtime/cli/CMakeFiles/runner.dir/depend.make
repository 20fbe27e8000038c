# Empty dependencies file for runner.
# This may be replaced when dependencies are built.
