# Empty compiler generated dependencies file for test_trainer_state.
# This may be replaced when dependencies are built.
