# Empty dependencies file for runner_lua.
# This may be replaced when dependencies are built.
