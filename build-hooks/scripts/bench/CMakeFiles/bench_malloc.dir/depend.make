# Empty dependencies file for bench_malloc.
# This may be replaced when dependencies are built.
