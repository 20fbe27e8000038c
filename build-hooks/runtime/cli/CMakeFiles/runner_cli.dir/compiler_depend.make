# Empty compiler generated dependencies file for runner_cli.
# This may be replaced when dependencies are built.
