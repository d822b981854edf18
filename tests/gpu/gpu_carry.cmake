# Script mode (cmake -P), run by the flopspy_gpu_carry target: copies the programs and libraries
# a bare GPU machine needs into CARRY_DIR/{bin,lib}, with every shared library they need that such
# a machine cannot be assumed to have, and writes CARRY_DIR/MANIFEST.txt.
#
#   -DCARRY_DIR=<folder>  -DCARRY_FILES=<file>|<file>|...
#
# Left out on purpose, because the GPU machine must provide its own: the C library family and
# the dynamic loader (the machine's glibc must be as new as the build's), libstdc++ and libgcc_s
# (every machine with PyTorch has them; a second, static copy in our programs would meet the
# shared one that libfmt loads), and every CUDA library (the driver must match the machine, and
# the shared-cudart programs use the machine's toolkit).
cmake_minimum_required(VERSION 3.21)
if(NOT CARRY_DIR OR NOT CARRY_FILES)
  message(FATAL_ERROR "gpu_carry.cmake needs -DCARRY_DIR=... and -DCARRY_FILES=a|b|...")
endif()
string(REPLACE "|" ";" _files "${CARRY_FILES}")

file(REMOVE_RECURSE ${CARRY_DIR})
file(MAKE_DIRECTORY ${CARRY_DIR}/bin ${CARRY_DIR}/lib)

set(_executables "")
set(_libraries "")
foreach(_f ${_files})
  get_filename_component(_name ${_f} NAME)
  if(_name MATCHES "\\.so(\\.|$)")
    file(COPY ${_f} DESTINATION ${CARRY_DIR}/lib)
    list(APPEND _libraries ${_f})
  else()
    file(COPY ${_f} DESTINATION ${CARRY_DIR}/bin)
    list(APPEND _executables ${_f})
  endif()
endforeach()

set(_system_libraries
  "^ld-linux" "^libc\\.so" "^libm\\.so" "^libdl\\.so" "^libpthread\\.so" "^librt\\.so"
  "^libutil\\.so" "^libresolv\\.so" "^libstdc\\+\\+\\.so" "^libgcc_s\\.so"
  "^libcuda\\.so" "^libcudart\\.so" "^libcublas\\.so" "^libcublasLt\\.so" "^libcupti\\.so"
  "^libnvidia-" "^libnvrtc")
file(GET_RUNTIME_DEPENDENCIES
  EXECUTABLES ${_executables}
  LIBRARIES ${_libraries}
  RESOLVED_DEPENDENCIES_VAR _resolved
  UNRESOLVED_DEPENDENCIES_VAR _unresolved
  PRE_EXCLUDE_REGEXES ${_system_libraries})

set(_manifest "flopspy GPU carry folder: copy of the programs a GPU machine runs.\n\n")
string(APPEND _manifest "Shared libraries copied into lib/ (not assumed on the GPU machine):\n")
foreach(_dep ${_resolved})
  get_filename_component(_soname ${_dep} NAME)
  get_filename_component(_real ${_dep} REALPATH)
  configure_file(${_real} ${CARRY_DIR}/lib/${_soname} COPYONLY)
  string(APPEND _manifest "  ${_soname}  (from ${_real})\n")
endforeach()
if(NOT _resolved)
  string(APPEND _manifest "  none\n")
endif()
if(_unresolved)
  list(JOIN _unresolved ", " _list)
  message(WARNING "gpu-carry: shared libraries not found on this machine: ${_list}")
  string(APPEND _manifest "Needed but not found here: ${_list}\n")
endif()
list(JOIN _system_libraries " " _list)
string(APPEND _manifest "The GPU machine must provide (not copied): ${_list}\n\nFiles:\n")

set(_total 0)
file(GLOB_RECURSE _copied RELATIVE ${CARRY_DIR} ${CARRY_DIR}/bin/* ${CARRY_DIR}/lib/*)
list(SORT _copied)
foreach(_f ${_copied})
  file(SIZE ${CARRY_DIR}/${_f} _size)
  math(EXPR _total "${_total} + ${_size}")
  string(APPEND _manifest "  ${_size}  ${_f}\n")
endforeach()
math(EXPR _mib "${_total} / 1048576")
string(APPEND _manifest "Total: ${_total} bytes (${_mib} MiB; the device tool carries 64 MiB)\n")
file(WRITE ${CARRY_DIR}/MANIFEST.txt "${_manifest}")
message(STATUS "gpu-carry: ${CARRY_DIR}: ${_total} bytes (${_mib} MiB), manifest in MANIFEST.txt")
