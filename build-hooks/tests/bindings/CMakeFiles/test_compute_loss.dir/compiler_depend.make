# Empty compiler generated dependencies file for test_compute_loss.
# This may be replaced when dependencies are built.
