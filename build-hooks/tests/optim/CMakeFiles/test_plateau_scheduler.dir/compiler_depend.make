# Empty compiler generated dependencies file for test_plateau_scheduler.
# This may be replaced when dependencies are built.
