# Empty dependencies file for test_evaluation.
# This may be replaced when dependencies are built.
