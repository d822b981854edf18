# flopspy ceilings --gpu on a real GPU: FP32 FMA peak and DRAM copy bandwidth within
# 50-105% of the datasheet, bf16 GEMM at least half of it. Label gpu; exit 77 without a device.
# The CUDA runtime is linked statically, only to ask cudaGetDeviceCount.
if(TARGET flopspy_launcher AND TARGET CUDA::cudart_static)
  add_executable(flopspy_ceilings_gpu_test ${CMAKE_CURRENT_LIST_DIR}/ceilings_gpu_test.cpp)
  target_link_libraries(flopspy_ceilings_gpu_test PRIVATE flopspy_test_support
                        flopspy_gpu_roofline nlohmann_json::nlohmann_json CUDA::cudart_static
                        flopspy_warnings)
  target_compile_definitions(flopspy_ceilings_gpu_test PRIVATE
    FLOPSPY_LAUNCHER_PATH="$<TARGET_FILE:flopspy_launcher>")
  add_dependencies(flopspy_ceilings_gpu_test flopspy_launcher)
  add_test(NAME ceilings_gpu
           COMMAND flopspy_ceilings_gpu_test $<TARGET_FILE:flopspy_launcher>)
  set_tests_properties(ceilings_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
