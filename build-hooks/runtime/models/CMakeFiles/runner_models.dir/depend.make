# Empty dependencies file for runner_models.
# This may be replaced when dependencies are built.
