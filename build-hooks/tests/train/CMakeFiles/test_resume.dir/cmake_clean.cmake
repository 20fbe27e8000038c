file(REMOVE_RECURSE
  "CMakeFiles/test_resume.dir/test_resume.cpp.o"
  "CMakeFiles/test_resume.dir/test_resume.cpp.o.d"
  "test_resume"
  "test_resume.pdb"
  "test_resume[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_resume.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
