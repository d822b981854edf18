# Every dependency is a Debian package found by find_package; scripts/install-deps installs them.
set(_flopspy_fix "Run scripts/install-deps (Debian/Ubuntu) to install the build dependencies.")

find_package(Threads REQUIRED)

macro(flopspy_require package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR "flopspy needs ${package}, which was not found. ${_flopspy_fix}")
  endif()
endmacro()

flopspy_require(nlohmann_json 3.10)   # nlohmann-json3-dev
flopspy_require(fmt 9)                # libfmt-dev
flopspy_require(CLI11 2.1)            # libcli11-dev
flopspy_require(Boost 1.74)           # libboost-dev (headers: Boost.Stacktrace)

if(FLOPSPY_BUILD_TESTS)
  flopspy_require(GTest 1.12)         # libgtest-dev, libgmock-dev
endif()
if(FLOPSPY_BUILD_BENCHMARKS)
  flopspy_require(benchmark 1.7)      # libbenchmark-dev
endif()

# CUDA: headers only. libflopspy.so never links a CUDA library; it resolves everything at run time.
if(NOT FLOPSPY_REPORT_ONLY)
  find_package(CUDAToolkit 12.0 QUIET)
  if(NOT CUDAToolkit_FOUND)
    message(FATAL_ERROR
      "flopspy needs the CUDA toolkit headers (12.0 or newer) to build libflopspy.so, and none was found.\n"
      "Fix one of these ways:\n"
      "  * install the toolkit (NVIDIA's cuda-toolkit-13-0 package, or Debian's nvidia-cuda-toolkit);\n"
      "  * point CMake at it: -DCUDAToolkit_ROOT=/usr/local/cuda (or put its bin/ on PATH);\n"
      "  * build only the report tools: -DFLOPSPY_REPORT_ONLY=ON.")
  endif()
  # The toolkit's include folder holds cupti*.h since CUDA 13; older ones keep them in extras/CUPTI.
  find_path(FLOPSPY_CUPTI_INCLUDE_DIR cupti.h
            HINTS ${CUDAToolkit_CUPTI_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS}
                  ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include)
  if(NOT FLOPSPY_CUPTI_INCLUDE_DIR)
    message(FATAL_ERROR "The CUDA toolkit at ${CUDAToolkit_LIBRARY_ROOT} has no cupti.h. "
                        "Install its CUPTI component (cuda-cupti-dev) or pass -DFLOPSPY_CUPTI_INCLUDE_DIR=...")
  endif()
  # Headers only: an INTERFACE target with include folders and nothing to link.
  add_library(flopspy_cuda_headers INTERFACE)
  target_include_directories(flopspy_cuda_headers SYSTEM INTERFACE
                             ${CUDAToolkit_INCLUDE_DIRS} ${FLOPSPY_CUPTI_INCLUDE_DIR})
  message(STATUS "flopspy: CUDA ${CUDAToolkit_VERSION} headers from ${CUDAToolkit_INCLUDE_DIRS}")
endif()
