# FlopspyInstall.cmake: what `cmake --install` and the .deb hold (docs/install.md). Included last,
# after every folder has added its install() rules. Components:
#   runtime  bin/flopspy, bin/flopspy-report, lib/libflopspy.so (any rule that names none)
#   python   the pure-Python module, lib/python3/dist-packages/flopspy
#   dev      include/flopspy/flopspy.h and lib/cmake/flopspy (find_package(flopspy))
#   doc      share/doc/flopspy
#   demo     bin/flopspy-demo: `cmake --install` installs it, the .deb does not
include(CMakePackageConfigHelpers)

# --- The marker API as a package ----------------------------------------------------------------
# Header-only: the markers look their functions up with dlsym at run time, so a program links
# nothing of flopspy's; libdl only where glibc is older than 2.34 (CMAKE_DL_LIBS).
add_library(flopspy_markers INTERFACE)
add_library(flopspy::markers ALIAS flopspy_markers)
set_target_properties(flopspy_markers PROPERTIES EXPORT_NAME markers)
target_sources(flopspy_markers INTERFACE
  FILE_SET HEADERS BASE_DIRS ${PROJECT_SOURCE_DIR}/interpose/include
  FILES ${PROJECT_SOURCE_DIR}/interpose/include/flopspy/flopspy.h)
target_link_libraries(flopspy_markers INTERFACE ${CMAKE_DL_LIBS})
install(TARGETS flopspy_markers EXPORT flopspyTargets
        FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/flopspy)
install(EXPORT flopspyTargets NAMESPACE flopspy:: DESTINATION ${_cmake_dir} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/flopspyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/flopspyConfig.cmake INSTALL_DESTINATION ${_cmake_dir})
# 0.x: a minor version may change the API, so only the same minor version matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/flopspyConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/flopspyConfig.cmake ${PROJECT_BINARY_DIR}/flopspyConfigVersion.cmake
        DESTINATION ${_cmake_dir} COMPONENT dev)

# --- Docs and the Python module -----------------------------------------------------------------
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)

# Debian's python3 reads /usr/lib/python3/dist-packages; any other prefix works with
# PYTHONPATH=<prefix>/lib/python3/dist-packages.
set(FLOPSPY_INSTALL_PYTHONDIR lib/python3/dist-packages CACHE PATH
    "Where the flopspy Python module is installed, relative to the prefix")
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/python/flopspy)
  install(DIRECTORY python/flopspy DESTINATION ${FLOPSPY_INSTALL_PYTHONDIR} COMPONENT python
          PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
endif()

# --- The .deb -----------------------------------------------------------------------------------
# `cpack -G DEB` in the build folder (or the `package` target). Dependencies come from
# dpkg-shlibdeps: libc6, libstdc++6, libgcc-s1 and libdw1 (flopspy-report's native symbols)
# only, since fmt is header-only and nothing links a CUDA library (docs/install.md, "The .deb").
set(FLOPSPY_PACKAGE_MAINTAINER "flopspy maintainers <maintainers@users.noreply.a-seed-81791e2d.example>"
    CACHE STRING "Maintainer field of the .deb")
set(FLOPSPY_PACKAGE_HOMEPAGE "" CACHE STRING "Homepage field of the .deb (left out when empty)")

set(CPACK_PACKAGE_NAME flopspy)
set(CPACK_PACKAGE_VENDOR flopspy)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "${FLOPSPY_PACKAGE_MAINTAINER}")
if(FLOPSPY_PACKAGE_HOMEPAGE)
  set(CPACK_PACKAGE_HOMEPAGE_URL "${FLOPSPY_PACKAGE_HOMEPAGE}")
endif()
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# flopspy.load() returns pandas DataFrames; the rest of the package does not need Python.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, python3-pandas")
# The extended description; CPack puts the summary above it.
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "flopspy records every CUDA kernel launch and cuBLAS call of an unmodified program run under\n"
  "`flopspy run` (libflopspy.so preloaded) with its launch cost, GPU time, FLOPs and bytes, and\n"
  "flopspy-report turns the traces into rooflines, regime verdicts and advice. Includes the\n"
  "marker header, a CMake package (find_package(flopspy)) and the flopspy Python module.")

# One package of every component but the demo (it links the toolkit's libcudart and libcublas).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL runtime python dev doc)
include(CPack)
