# Empty compiler generated dependencies file for runner_train.
# This may be replaced when dependencies are built.
