# Empty compiler generated dependencies file for test_training_args.
# This may be replaced when dependencies are built.
