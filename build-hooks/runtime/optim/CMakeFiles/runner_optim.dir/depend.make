# Empty dependencies file for runner_optim.
# This may be replaced when dependencies are built.
