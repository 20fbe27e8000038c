file(REMOVE_RECURSE
  "CMakeFiles/test_safetensors.dir/test_safetensors.cpp.o"
  "CMakeFiles/test_safetensors.dir/test_safetensors.cpp.o.d"
  "test_safetensors"
  "test_safetensors.pdb"
  "test_safetensors[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_safetensors.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
