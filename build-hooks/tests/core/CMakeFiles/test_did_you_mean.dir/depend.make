# Empty dependencies file for test_did_you_mean.
# This may be replaced when dependencies are built.
