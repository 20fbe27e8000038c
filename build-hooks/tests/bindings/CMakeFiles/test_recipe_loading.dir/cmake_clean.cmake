file(REMOVE_RECURSE
  "CMakeFiles/test_recipe_loading.dir/test_recipe_loading.cpp.o"
  "CMakeFiles/test_recipe_loading.dir/test_recipe_loading.cpp.o.d"
  "test_recipe_loading"
  "test_recipe_loading.pdb"
  "test_recipe_loading[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_recipe_loading.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
