# Empty compiler generated dependencies file for runner_log.
# This may be replaced when dependencies are built.
