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
flopspy_require(ZLIB)                 # zlib1g-dev (flopspy-report --chrome FILE.json.gz)
# libdw-dev (elfutils): flopspy-report's native symbols (symbols/); found by pkg-config, as
# elfutils installs no CMake package.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(LIBDW QUIET IMPORTED_TARGET libdw>=0.176)
endif()
# libzstd-dev: compressed trace chunks (trace/), headers only: libzstd.so.1 is opened at run
# time (trace/src/zstd_library.cpp), as CUDA's libraries are, so libflopspy.so needs nothing a
# program did not bring and a trace is written uncompressed where it is missing.
# pkg-config, as Ubuntu 22.04's package has no CMake files.
if(PkgConfig_FOUND)
  pkg_check_modules(ZSTD QUIET libzstd>=1.4)
endif()
if(NOT ZSTD_FOUND)
  message(FATAL_ERROR "flopspy needs libzstd 1.4 or newer, which was not found. ${_flopspy_fix}")
endif()
add_library(flopspy_zstd_headers INTERFACE)
target_include_directories(flopspy_zstd_headers SYSTEM INTERFACE ${ZSTD_INCLUDE_DIRS})

if(NOT LIBDW_FOUND)
  message(FATAL_ERROR "flopspy needs libdw 0.176 or newer (elfutils), which was not found. ${_flopspy_fix}")
endif()

if(FLOPSPY_BUILD_TESTS)
  flopspy_require(GTest 1.12)         # libgtest-dev, libgmock-dev
endif()
if(FLOPSPY_BUILD_BENCHMARKS)
  flopspy_require(benchmark 1.7)      # libbenchmark-dev
endif()

# fmt header-only in every target, never the shared libfmt: Debian 12 has libfmt9 and Ubuntu
# 22.04 only libfmt8, so a .deb depending on either installs on one of them only
# (docs/install.md). Link flopspy_fmt, never fmt::fmt, so no binary mixes the two.
add_library(flopspy_fmt INTERFACE)
target_link_libraries(flopspy_fmt INTERFACE fmt::fmt-header-only)
