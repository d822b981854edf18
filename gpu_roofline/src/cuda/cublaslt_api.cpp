#include "cublaslt_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace flopspy::gpuroof::cuda {

bool CublasLtApi::Load(std::string* error) {
  const std::vector<std::string> names{"libcublasLt.so.13", "libcublasLt.so.12"};
  std::vector<std::string> candidates = names;
  std::vector<std::string> dirs;
#ifdef FLOPSPY_CUDA_LIBRARY_DIR
  dirs.push_back(FLOPSPY_CUDA_LIBRARY_DIR);
#endif
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    dirs.push_back(std::string(home) + "/lib64");
  }
  dirs.push_back("/usr/local/cuda/lib64");
  for (const std::string& dir : dirs) {
    for (const std::string& name : names) candidates.push_back(dir + "/" + name);
  }
  std::string first_error;
  for (const std::string& candidate : candidates) {
    library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) {
      path = candidate;
      break;
    }
    if (first_error.empty()) {
      const char* why = dlerror();
      first_error = why ? why : candidate;
    }
  }
  if (library == nullptr) {
    *error = "cuBLASLt not found (" + first_error +
             "); put the CUDA toolkit's lib64 on LD_LIBRARY_PATH or set CUDA_HOME";
    return false;
  }
  bool ok = true;
  auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
    if (fn == nullptr && ok) {
      *error = path + " lacks " + name;
      ok = false;
    }
  };
  resolve(GetVersion, "cublasLtGetVersion");
  resolve(Create, "cublasLtCreate");
  resolve(Destroy, "cublasLtDestroy");
  resolve(MatmulDescCreate, "cublasLtMatmulDescCreate");
  resolve(MatmulDescDestroy, "cublasLtMatmulDescDestroy");
  resolve(MatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute");
  resolve(MatrixLayoutCreate, "cublasLtMatrixLayoutCreate");
  resolve(MatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy");
  resolve(MatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate");
  resolve(MatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy");
  resolve(MatmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute");
  resolve(MatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic");
  resolve(Matmul, "cublasLtMatmul");
  return ok;
}

}  // namespace flopspy::gpuroof::cuda
