# gpu_counters: counter mode (FLOPSPY_COUNTERS=1) on a real GPU, checked against kernels with
# known FLOPs and bytes (tests/gpu/counters_check.py). Label gpu; exit 77 (skipped) without a
# GPU, nvcc or counter permission. Included from tests/CMakeLists.txt.
if(TARGET flopspy AND TARGET flopspy-report)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    set(_nvcc_args "")
    if(CUDAToolkit_NVCC_EXECUTABLE)
      set(_nvcc_args --nvcc ${CUDAToolkit_NVCC_EXECUTABLE})
    endif()
    add_test(NAME gpu_counters
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/counters_check.py
                     --build-dir ${CMAKE_BINARY_DIR} ${_nvcc_args})
    set_tests_properties(gpu_counters PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
  endif()
endif()
