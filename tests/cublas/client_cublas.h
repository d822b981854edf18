// The test client's two halves: the cuBLAS handle and legacy APIs (client_cublas.cpp, fake
// libcublas only) and cublasLtMatmul (client_lt.cpp, fake or real libcublasLt).
#pragma once

#include "client_common.h"

namespace flopspy::cublas_client {

// Calls every hooked handle-API and legacy entry point once, then a few invalid calls.
// Returns non-zero if the client could not start (no handle).
int RunCublasCases(Sink& sink);

// cublasLtMatmul with descriptors covering the epilogues, FP8 scaling, batched strided layouts,
// transposes, pointer modes and invalid descriptors. With `fake`, also attribute reads that fail.
void RunLtCases(Sink& sink);

}  // namespace flopspy::cublas_client
