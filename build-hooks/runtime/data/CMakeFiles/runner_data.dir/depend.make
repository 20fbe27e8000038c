# Empty dependencies file for runner_data.
# This may be replaced when dependencies are built.
