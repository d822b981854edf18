// The CUDA driver functions flopspy wraps, and how a caller that found a driver function by
// itself (dlsym on libcuda, cuGetProcAddress) is handed flopspy's wrapper instead.
#pragma once

namespace flopspy::interpose {

// If `name` is a driver function flopspy records and `real` is that function in the loaded
// driver, returns flopspy's wrapper of `real`; otherwise returns `real` unchanged.
void* WrapDriverSymbol(const char* name, void* real);

}  // namespace flopspy::interpose
