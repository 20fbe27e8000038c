# Empty dependencies file for test_adafactor.
# This may be replaced when dependencies are built.
