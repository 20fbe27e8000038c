file(REMOVE_RECURSE
  "CMakeFiles/test_tensor_binding.dir/test_tensor_binding.cpp.o"
  "CMakeFiles/test_tensor_binding.dir/test_tensor_binding.cpp.o.d"
  "test_tensor_binding"
  "test_tensor_binding.pdb"
  "test_tensor_binding[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_tensor_binding.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
