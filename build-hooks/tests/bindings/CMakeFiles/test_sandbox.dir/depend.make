# Empty dependencies file for test_sandbox.
# This may be replaced when dependencies are built.
