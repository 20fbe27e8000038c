# Empty compiler generated dependencies file for test_command_line.
# This may be replaced when dependencies are built.
