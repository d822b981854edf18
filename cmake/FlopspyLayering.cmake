# trace/ and analyzers/ must never see a CUDA header, whatever the machine has installed
# (docs/architecture.md, "Folders and what each may use"). Targets marked with
# flopspy_forbid_cuda_headers() get a folder of same-named headers that stop the compile with an
# explanation; it is searched before every system folder.
set(FLOPSPY_POISON_DIR ${CMAKE_BINARY_DIR}/layering/no_cuda)

set(_flopspy_cuda_headers
  cuda.h cudaTypedefs.h cuda_runtime.h cuda_runtime_api.h driver_types.h vector_types.h
  builtin_types.h cuda_fp16.h cuda_bf16.h cuda_fp8.h library_types.h
  cupti.h cupti_activity.h cupti_callbacks.h cupti_driver_cbid.h cupti_runtime_cbid.h cupti_result.h
  cupti_profiler_host.h cupti_range_profiler.h cupti_target.h cupti_version.h
  cublas.h cublas_v2.h cublas_api.h cublasLt.h cudnn.h nccl.h nvperf_host.h)
if(DEFINED CUDAToolkit_INCLUDE_DIRS)
  foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    file(GLOB _found RELATIVE ${dir} ${dir}/*.h)
    list(APPEND _flopspy_cuda_headers ${_found})
  endforeach()
endif()
list(REMOVE_DUPLICATES _flopspy_cuda_headers)
foreach(header IN LISTS _flopspy_cuda_headers)
  file(CONFIGURE OUTPUT ${FLOPSPY_POISON_DIR}/${header} CONTENT
    "#error \"${header}: this folder may not use CUDA headers (only interpose/ and gpu_roofline/ may: docs/architecture.md)\"\n")
endforeach()

function(flopspy_forbid_cuda_headers target)
  target_include_directories(${target} BEFORE PRIVATE ${FLOPSPY_POISON_DIR})
endfunction()

# Adds every *.cpp under a folder's src/ to a target; new files need no CMake edit.
function(flopspy_glob_sources target folder)
  file(GLOB _sources CONFIGURE_DEPENDS ${folder}/src/*.cpp)
  if(NOT _sources)
    set(_sources ${PROJECT_SOURCE_DIR}/cmake/empty.cpp)
  endif()
  target_sources(${target} PRIVATE ${_sources})
endfunction()
