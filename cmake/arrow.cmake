# Finds the Apache Arrow C++ libraries (libarrow, libparquet) that runtime/data reads Parquet and
# Arrow files with: those of PyPI's pyarrow wheel, which ships them with their headers the way
# PyTorch's wheel ships LibTorch. scripts/setup installs the pinned pyarrow into .venv/; Debian
# packages no Arrow. See docs/building.md.
#
#   RUNNER_ARROW  a folder holding libarrow.so* and libparquet.so* with include/arrow and
#                 include/parquet beside them (e.g. an Arrow you built, or another site-packages/
#                 pyarrow). Empty (the default): the pyarrow that RUNNER_PYTHON imports.
#
# Defines the imported targets runner::arrow (libarrow + libparquet, their headers). Arrow's
# headers need C++20 (std::span); the files that include them are built as C++20 (runtime/data).

set(RUNNER_ARROW "$ENV{RUNNER_ARROW}" CACHE PATH "Folder with libarrow/libparquet and include/ (empty: the .venv's pyarrow)")
if(RUNNER_ARROW)
  set(arrow_root ${RUNNER_ARROW})
else()
  execute_process(COMMAND ${RUNNER_PYTHON} -c "import pyarrow; print(pyarrow.get_library_dirs()[0])"
                  OUTPUT_VARIABLE arrow_root OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runner: '${RUNNER_PYTHON}' cannot import pyarrow, whose libarrow/libparquet read Parquet and Arrow files. "
                        "Run scripts/setup (it installs the pinned pyarrow into .venv/, also when RUNNER_LIBTORCH brings your own "
                        "LibTorch), `pip install pyarrow` into RUNNER_PYTHON, or point -DRUNNER_ARROW at a folder with libarrow.so, "
                        "libparquet.so and include/.")
  endif()
endif()
# The wheel ships only versioned names (libarrow.so.2600), no development symlinks.
file(GLOB arrow_lib ${arrow_root}/libarrow.so ${arrow_root}/libarrow.so.[0-9]*)
file(GLOB parquet_lib ${arrow_root}/libparquet.so ${arrow_root}/libparquet.so.[0-9]*)
if(NOT arrow_lib OR NOT parquet_lib OR NOT EXISTS ${arrow_root}/include/arrow/api.h OR NOT EXISTS ${arrow_root}/include/parquet/arrow/reader.h)
  message(FATAL_ERROR "runner: no Arrow C++ at '${arrow_root}' (expected libarrow.so*, libparquet.so* and include/arrow, include/parquet)")
endif()
list(SORT arrow_lib)
list(SORT parquet_lib)
list(GET arrow_lib 0 arrow_lib)
list(GET parquet_lib 0 parquet_lib)
# LibTorch's ABI (runner's std::string) must be Arrow's: Arrow's API passes std::string and
# std::shared_ptr across the library boundary. A library of the new ABI exports __cxx11 names.
execute_process(COMMAND nm -D --defined-only ${arrow_lib} OUTPUT_VARIABLE arrow_syms ERROR_QUIET)
string(FIND "${arrow_syms}" "__cxx11" arrow_new_abi)
get_target_property(torch_defs torch INTERFACE_COMPILE_DEFINITIONS)
get_target_property(torch_opts torch INTERFACE_COMPILE_OPTIONS)
if(arrow_syms AND ("${torch_defs};${torch_opts}" MATCHES "_GLIBCXX_USE_CXX11_ABI=0") AND NOT arrow_new_abi EQUAL -1)
  message(FATAL_ERROR "runner: LibTorch uses the old C++ ABI (_GLIBCXX_USE_CXX11_ABI=0) but ${arrow_lib} the new one; "
                      "use a LibTorch built with the new ABI (PyTorch >= 2.7 wheels are), or an Arrow built with the old one (RUNNER_ARROW)")
endif()
add_library(runner_arrow_libs INTERFACE)
add_library(runner::arrow ALIAS runner_arrow_libs)
target_include_directories(runner_arrow_libs SYSTEM INTERFACE ${arrow_root}/include)
target_link_libraries(runner_arrow_libs INTERFACE ${parquet_lib} ${arrow_lib})
# build/runner finds them without LD_LIBRARY_PATH (as it finds LibTorch's).
set(RUNNER_ARROW_LIB ${arrow_root})
message(STATUS "runner: Arrow C++ at ${arrow_root} (${arrow_lib})")
