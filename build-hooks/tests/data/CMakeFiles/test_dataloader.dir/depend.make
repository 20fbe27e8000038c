# Empty dependencies file for test_dataloader.
# This may be replaced when dependencies are built.
