file(REMOVE_RECURSE
  "CMakeFiles/bench_malloc.dir/malloc_thresholds.cpp.o"
  "CMakeFiles/bench_malloc.dir/malloc_thresholds.cpp.o.d"
  "bench_malloc"
  "bench_malloc.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/bench_malloc.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
