# Finds the LibTorch runner builds against, and the Python the tests use as an independent
# reader (numpy, torch, transformers). See docs/building.md.
#
#   RUNNER_LIBTORCH  a LibTorch >= 2.4: the official archive's folder, or a PyTorch install's
#                    site-packages/torch (e.g. a CUDA PyTorch). Empty (the default): the
#                    PyTorch that scripts/setup installs into .venv/.
#   RUNNER_PYTHON    the Python for tests and benchmarks (default .venv/bin/python3).
#
# Sets RUNNER_TORCH_CUDA (LibTorch has CUDA and the CUDA toolkit is here, so runner's CUDA
# code compiles) and RUNNER_TORCH_LIB (LibTorch's lib folder).

set(RUNNER_LIBTORCH "$ENV{RUNNER_LIBTORCH}" CACHE PATH "LibTorch >= 2.4 to build against (empty: the .venv PyTorch)")
if(EXISTS ${PROJECT_SOURCE_DIR}/.venv/bin/python3)
  set(default_python ${PROJECT_SOURCE_DIR}/.venv/bin/python3)
else()
  find_program(default_python NAMES python3)
endif()
set(RUNNER_PYTHON "${default_python}" CACHE FILEPATH "Python used by tests and benchmarks")

if(RUNNER_LIBTORCH)
  set(torch_root ${RUNNER_LIBTORCH})
elseif(RUNNER_PYTHON)
  execute_process(COMMAND ${RUNNER_PYTHON} -c "import torch, os; print(os.path.dirname(torch.__file__))"
                  OUTPUT_VARIABLE torch_root OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runner: ${RUNNER_PYTHON} cannot import torch. Run scripts/setup (it installs the pinned PyTorch into .venv/), "
                        "or point -DRUNNER_LIBTORCH=/path/to/libtorch (or the environment variable RUNNER_LIBTORCH) at a LibTorch >= 2.4.")
  endif()
endif()
if(NOT EXISTS ${torch_root}/share/cmake/Torch/TorchConfig.cmake)
  message(FATAL_ERROR "runner: no LibTorch at '${torch_root}' (expected share/cmake/Torch/TorchConfig.cmake there)")
endif()
set(RUNNER_TORCH_LIB ${torch_root}/lib)

# A CUDA LibTorch's CMake config insists on the CUDA toolkit. Where the toolkit is missing
# (a laptop with PyPI's CUDA wheel), runner still builds for the CPU from the same libraries:
# the CUDA backends register themselves at load time, runner's own CUDA code is left out.
find_program(RUNNER_NVCC nvcc HINTS $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
set(torch_has_cuda OFF)
if(EXISTS ${RUNNER_TORCH_LIB}/libtorch_cuda.so)
  set(torch_has_cuda ON)
endif()
if(torch_has_cuda AND NOT RUNNER_NVCC)
  message(STATUS "runner: LibTorch has CUDA but no CUDA toolkit was found: building for the CPU only")
  file(STRINGS ${torch_root}/share/cmake/Torch/TorchConfigVersion.cmake ver REGEX "PACKAGE_VERSION \"")
  string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" Torch_VERSION "${ver}")
  add_library(torch INTERFACE IMPORTED)
  set_target_properties(torch PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${torch_root}/include;${torch_root}/include/torch/csrc/api/include"
    INTERFACE_COMPILE_DEFINITIONS "_GLIBCXX_USE_CXX11_ABI=1"
    INTERFACE_LINK_LIBRARIES "${RUNNER_TORCH_LIB}/libtorch.so;${RUNNER_TORCH_LIB}/libtorch_cpu.so;${RUNNER_TORCH_LIB}/libc10.so")
  set(RUNNER_TORCH_CUDA OFF)
else()
  if(RUNNER_NVCC AND NOT CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_COMPILER ${RUNNER_NVCC})
  endif()
  # Caffe2's CUDA config warns about a variable we never set; keep the output readable.
  set(TORCH_CUDA_ARCH_LIST "${TORCH_CUDA_ARCH_LIST}" CACHE STRING "GPU architectures for runner's CUDA code (e.g. 9.0)")
  # Torch's config turns the list into nvcc's -gencode flags for runner's .cu files; empty, it
  # would name every architecture it knows, some of which CUDA 13's nvcc no longer compiles.
  # Ampere (A100) and Hopper (H100/H200) machine code, and PTX newer GPUs compile at load.
  if(NOT TORCH_CUDA_ARCH_LIST)
    set(TORCH_CUDA_ARCH_LIST "8.0;9.0+PTX")
  endif()
  find_package(Torch REQUIRED PATHS ${torch_root}/share/cmake/Torch NO_DEFAULT_PATH)
  set(RUNNER_TORCH_CUDA ${torch_has_cuda})
endif()
if(Torch_VERSION VERSION_LESS 2.4)
  message(FATAL_ERROR "runner: LibTorch ${Torch_VERSION} at ${torch_root} is too old; runner needs LibTorch >= 2.4")
endif()
message(STATUS "runner: LibTorch ${Torch_VERSION} at ${torch_root} (CUDA code: ${RUNNER_TORCH_CUDA}); tests use ${RUNNER_PYTHON}")

# pip's LibTorch (libtorch.so, libtorch_cpu.so) exports unversioned copies of ~200
# std::filesystem functions, statically linked from its build compiler's runtime. The dynamic
# linker binds every reference to the first definition in load order; when LibTorch is
# loaded before libstdc++, runner's own std::filesystem calls land in LibTorch's copies,
# which crash (remove_all jumps to address 0). Listing libstdc++ first among every binary's
# needed libraries makes the system's libstdc++ the one definition for everybody.
add_link_options("LINKER:--push-state,--no-as-needed" "-lstdc++" "LINKER:--pop-state")

# at::parallel_for is inline: in a LibTorch built with OpenMP (pip's is), a file that calls it
# runs it on one thread unless it is compiled with -fopenmp too. runner_openmp gives such
# files the flag and links the OpenMP runtime LibTorch already loads (pip bundles its own
# libgomp; two OpenMP runtimes in one process would each start a thread pool).
# GCC's -fopenmp emits libgomp calls; clang's emits libomp's (__kmpc_*), which pip's libgomp
# lacks, so a clang build (the fuzzing build) runs those loops on one thread.
add_library(runner_openmp INTERFACE)
file(STRINGS ${torch_root}/include/ATen/Config.h torch_parallel REGEX "define AT_PARALLEL_OPENMP 1")
if(torch_parallel AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  file(GLOB torch_gomp ${RUNNER_TORCH_LIB}/libgomp*.so*)
  target_compile_options(runner_openmp INTERFACE -fopenmp)
  if(torch_gomp)
    list(GET torch_gomp 0 torch_gomp)
    target_link_libraries(runner_openmp INTERFACE ${torch_gomp})
  else()
    target_link_options(runner_openmp INTERFACE -fopenmp)
  endif()
endif()
