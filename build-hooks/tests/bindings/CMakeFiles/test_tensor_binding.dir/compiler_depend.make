# Empty compiler generated dependencies file for test_tensor_binding.
# This may be replaced when dependencies are built.
