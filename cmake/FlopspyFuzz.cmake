# FLOPSPY_FUZZ=ON (preset `fuzz`): a clang build of the report's libraries, every file
# instrumented for libFuzzer's coverage and under ASan and UBSan, for tests/fuzz. Any UBSan
# finding aborts, so the fuzzer counts it as a crash. Build only the fuzz targets with it.
if(NOT FLOPSPY_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "FLOPSPY_FUZZ needs clang (libFuzzer): cmake --preset fuzz, or "
                      "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
endif()
if(NOT FLOPSPY_REPORT_ONLY)
  message(FATAL_ERROR "FLOPSPY_FUZZ builds the report's libraries only: add -DFLOPSPY_REPORT_ONLY=ON")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)
