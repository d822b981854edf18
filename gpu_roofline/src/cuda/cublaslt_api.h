// The cuBLASLt functions the GEMM ceilings use, found at run time (dlopen), never linked: the
// types come from the toolkit's headers, the code from whatever libcublasLt the machine has.
#pragma once

#include <cublasLt.h>

#include <string>

namespace flopspy::gpuroof::cuda {

struct CublasLtApi {
  void* library = nullptr;
  std::string path;  // the file loaded

  decltype(&cublasLtGetVersion) GetVersion = nullptr;
  decltype(&cublasLtCreate) Create = nullptr;
  decltype(&cublasLtDestroy) Destroy = nullptr;
  decltype(&cublasLtMatmulDescCreate) MatmulDescCreate = nullptr;
  decltype(&cublasLtMatmulDescDestroy) MatmulDescDestroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) MatmulDescSetAttribute = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) MatrixLayoutCreate = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) MatrixLayoutDestroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) MatmulPreferenceCreate = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) MatmulPreferenceDestroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) MatmulPreferenceSetAttribute = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) MatmulAlgoGetHeuristic = nullptr;
  decltype(&cublasLtMatmul) Matmul = nullptr;

  // libcublasLt.so.13 or .12 from the library search path, else from the toolkit folder this
  // flopspy was built against, $CUDA_HOME/lib64 or /usr/local/cuda/lib64.
  bool Load(std::string* error);
};

}  // namespace flopspy::gpuroof::cuda
