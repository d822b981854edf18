// Finding the libcupti to use, never a second copy of one the program loaded (docs/gpu-timing.md,
// "Starting"):
//   1. a libcupti the process already loaded (PyTorch wheels load one at import);
//   2. the libcupti that matches the loaded libcudart: beside it (CUDA 13 toolkit, cu13 wheels),
//      in the toolkit's extras/CUPTI/lib64 (CUDA 12 toolkit), in the wheel's cuda_cupti/lib
//      (cu12 wheels), then by soname libcupti.so.<cudart major> on the loader's search path;
//   3. FLOPSPY_CUPTI_PATH;
//   4. when no libcudart is loaded at all (static cudart, driver-API programs): by soname,
//      libcupti.so.<major of the headers flopspy was built with>.
// And the driver: only the libcuda.so.1 the program already loaded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace flopspy::interpose {

struct CuptiLibrary {
  void* handle = nullptr;  // dlopen handle, null when none was found
  std::string path;        // the file that was loaded
  std::string origin;      // how it was found, for the trace metadata
  std::string error;       // why none was found (handle null)
};

CuptiLibrary LocateCupti(std::string_view configured_path);

// The major version in a library file name: ("/x/libcudart.so.13.0.96", "libcudart.so") -> 13;
// -1 when the name has none.
int LibraryMajor(std::string_view path, std::string_view stem);

// Files that may hold the CUPTI matching a libcudart at `cudart_path` with major `major`, most
// likely first (existence is not checked).
std::vector<std::string> CuptiCandidatesBesideCudart(std::string_view cudart_path, int major);

// The libcuda.so.1 the process loaded (RTLD_NOLOAD), or null. Never loads one.
void* LoadedDriver();

}  // namespace flopspy::interpose
