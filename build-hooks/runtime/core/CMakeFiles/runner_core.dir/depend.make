# Empty dependencies file for runner_core.
# This may be replaced when dependencies are built.
