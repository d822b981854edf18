# FlopspyCuda.cmake: decides once, before any target exists, what CUDA this build has
# (docs/install.md, "The CUDA toolkit and architectures"):
#
#   FLOPSPY_REPORT_ONLY          forced ON (a normal variable) when no toolkit is found and
#                                FLOPSPY_REQUIRE_CUDA is OFF; FLOPSPY_REPORT_ONLY_REASON says why
#   flopspy_cuda_headers         INTERFACE target: the CUDA and CUPTI headers (no library)
#   FLOPSPY_HAVE_NVCC            the CUDA language is enabled (demo/ and tests/gpu/ compile .cu)
#   FLOPSPY_CUDA_ARCHS           the architectures every .cu and nvcc command compiles for, and
#   FLOPSPY_CUDA_ARCHS_SOURCE    where that choice came from (for the configure summary)
#   flopspy_cuda_gencode(<var>)  the same architectures as nvcc -gencode options
#
# Targets take the architectures from CMAKE_CUDA_ARCHITECTURES, set here before any is created:
# a target made before enable_language(CUDA) gets none ("CUDA_ARCHITECTURES is empty"), which
# is why the language is enabled here and not in the folders that use it.

set(FLOPSPY_DEFAULT_CUDA_ARCHITECTURES "75-real;80-real;90")
set(FLOPSPY_CUDA_ARCHITECTURES "" CACHE STRING
    "CUDA architectures of flopspy's kernels; overrides CMAKE_CUDA_ARCHITECTURES (e.g. 90, native)")
option(FLOPSPY_REQUIRE_CUDA "Fail to configure without the CUDA toolkit instead of building report-only" OFF)

set(FLOPSPY_HAVE_NVCC OFF)
set(FLOPSPY_REPORT_ONLY_REASON "")
if(FLOPSPY_REPORT_ONLY)
  set(FLOPSPY_REPORT_ONLY_REASON "FLOPSPY_REPORT_ONLY=ON")
  return()
endif()

# Headers only: libflopspy.so never links a CUDA library; it resolves everything at run time.
find_package(CUDAToolkit 12.0 QUIET)
if(CUDAToolkit_FOUND)
  # The toolkit's include folder holds cupti*.h since CUDA 13; older ones keep them in extras/CUPTI.
  find_path(FLOPSPY_CUPTI_INCLUDE_DIR cupti.h
            HINTS ${CUDAToolkit_CUPTI_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS}
                  ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include)
endif()
if(NOT CUDAToolkit_FOUND OR NOT FLOPSPY_CUPTI_INCLUDE_DIR)
  if(NOT CUDAToolkit_FOUND)
    set(_missing "no CUDA toolkit 12.0 or newer was found")
  else()
    set(_missing "the CUDA toolkit at ${CUDAToolkit_LIBRARY_ROOT} has no cupti.h (cuda-cupti-dev)")
  endif()
  if(FLOPSPY_REQUIRE_CUDA)
    message(FATAL_ERROR
      "flopspy: ${_missing}, and FLOPSPY_REQUIRE_CUDA is ON. Install the toolkit (NVIDIA's "
      "cuda-toolkit package), point CMake at it with -DCUDAToolkit_ROOT=/usr/local/cuda, or "
      "pass -DFLOPSPY_CUPTI_INCLUDE_DIR=... for CUPTI's headers.")
  endif()
  # Shadows the option for this run only, so a later configure that finds the toolkit builds it all.
  set(FLOPSPY_REPORT_ONLY ON)
  set(FLOPSPY_REPORT_ONLY_REASON "${_missing}")
  message(STATUS "flopspy: ${_missing}: building the report-only build (flopspy-report, no "
                 "libflopspy.so, no launcher); -DCUDAToolkit_ROOT=<toolkit> builds everything")
  return()
endif()

add_library(flopspy_cuda_headers INTERFACE)
target_include_directories(flopspy_cuda_headers SYSTEM INTERFACE
                           ${CUDAToolkit_INCLUDE_DIRS} ${FLOPSPY_CUPTI_INCLUDE_DIR})
message(STATUS "flopspy: CUDA ${CUDAToolkit_VERSION} headers from ${CUDAToolkit_INCLUDE_DIRS}")

# --- Architectures ------------------------------------------------------------------------------
# SASS for sm_75 (T4), sm_80 (A100; also runs on sm_86/89) and sm_90 (H100/H200), plus compute_90
# PTX that newer GPUs JIT-compile at load: one nvcc pass per family keeps 2-core CI fast.
# A value given on the command line (or in a preset) is the user's; one CMake chose itself in an
# older build folder (its help text is CMake's) is replaced by flopspy's default.
set(_flopspy_archs_help "CUDA architectures (flopspy's default unless set; docs/install.md)")
get_property(_help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
if(FLOPSPY_CUDA_ARCHITECTURES)
  set(FLOPSPY_CUDA_ARCHS "${FLOPSPY_CUDA_ARCHITECTURES}")
  set(FLOPSPY_CUDA_ARCHS_SOURCE "FLOPSPY_CUDA_ARCHITECTURES")
  set(CMAKE_CUDA_ARCHITECTURES "${FLOPSPY_CUDA_ARCHS}")
elseif(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT _help STREQUAL "CUDA architectures"
       AND NOT (_help STREQUAL _flopspy_archs_help
                AND CMAKE_CUDA_ARCHITECTURES STREQUAL FLOPSPY_DEFAULT_CUDA_ARCHITECTURES))
  set(FLOPSPY_CUDA_ARCHS "${CMAKE_CUDA_ARCHITECTURES}")
  set(FLOPSPY_CUDA_ARCHS_SOURCE "CMAKE_CUDA_ARCHITECTURES")
elseif(DEFINED ENV{CUDAARCHS} AND NOT _help STREQUAL _flopspy_archs_help)
  set(FLOPSPY_CUDA_ARCHS "$ENV{CUDAARCHS}")
  set(FLOPSPY_CUDA_ARCHS_SOURCE "the CUDAARCHS environment variable")
  set(CMAKE_CUDA_ARCHITECTURES "${FLOPSPY_CUDA_ARCHS}" CACHE STRING "CUDA architectures" FORCE)
else()
  set(FLOPSPY_CUDA_ARCHS "${FLOPSPY_DEFAULT_CUDA_ARCHITECTURES}")
  set(FLOPSPY_CUDA_ARCHS_SOURCE "flopspy's default")
  set(CMAKE_CUDA_ARCHITECTURES "${FLOPSPY_CUDA_ARCHS}" CACHE STRING "${_flopspy_archs_help}" FORCE)
endif()

# nvcc -gencode options for FLOPSPY_CUDA_ARCHS, for nvcc commands outside the CUDA language
# (gpu_roofline's ceilings fatbin): "N-real" is SASS, "N-virtual" PTX, "N" both.
function(flopspy_cuda_gencode out)
  set(_flags "")
  foreach(_arch IN LISTS FLOPSPY_CUDA_ARCHS)
    if(_arch MATCHES "^(native|all|all-major)$")
      list(APPEND _flags -arch=${_arch})
    elseif(_arch MATCHES "^([0-9]+[af]?)-real$")
      list(APPEND _flags -gencode=arch=compute_${CMAKE_MATCH_1},code=sm_${CMAKE_MATCH_1})
    elseif(_arch MATCHES "^([0-9]+[af]?)-virtual$")
      list(APPEND _flags -gencode=arch=compute_${CMAKE_MATCH_1},code=compute_${CMAKE_MATCH_1})
    elseif(_arch MATCHES "^([0-9]+[af]?)$")
      list(APPEND _flags
           "-gencode=arch=compute_${_arch},code=[sm_${_arch},compute_${_arch}]")
    else()
      message(FATAL_ERROR "flopspy: CUDA architecture '${_arch}' is not N, N-real, N-virtual, "
                          "native, all or all-major")
    endif()
  endforeach()
  set(${out} "${_flags}" PARENT_SCOPE)
endfunction()
flopspy_cuda_gencode(_check)  # an unusable entry fails here, not at build time

# --- nvcc ---------------------------------------------------------------------------------------
# Only the demo's kernels and tests/gpu's programs are CUDA sources; without nvcc they are left
# out (the demo keeps its CPU part) and everything else still builds from the headers.
if(FLOPSPY_BUILD_DEMO OR FLOPSPY_BUILD_TESTS)
  # Let the check find the toolkit's nvcc even when its bin/ folder is not on PATH.
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND CUDAToolkit_NVCC_EXECUTABLE)
    set(ENV{CUDACXX} ${CUDAToolkit_NVCC_EXECUTABLE})
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Otherwise a C++20 target that links CUDA objects asks nvcc for a "CUDA20" dialect.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    set(FLOPSPY_HAVE_NVCC ON)
    if(FLOPSPY_CCACHE AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
      set(CMAKE_CUDA_COMPILER_LAUNCHER ${FLOPSPY_CCACHE})
    endif()
  endif()
endif()
