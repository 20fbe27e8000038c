# Empty dependencies file for runner_io.
# This may be replaced when dependencies are built.
