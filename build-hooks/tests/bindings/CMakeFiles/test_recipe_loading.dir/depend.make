# Empty dependencies file for test_recipe_loading.
# This may be replaced when dependencies are built.
