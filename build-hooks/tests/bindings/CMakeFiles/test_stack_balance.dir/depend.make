# Empty dependencies file for test_stack_balance.
# This may be replaced when dependencies are built.
