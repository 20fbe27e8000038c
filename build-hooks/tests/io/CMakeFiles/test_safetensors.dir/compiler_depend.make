# Empty compiler generated dependencies file for test_safetensors.
# This may be replaced when dependencies are built.
