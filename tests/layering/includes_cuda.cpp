// Must not compile in a folder that may not use CUDA (see tests/layering/CMakeLists.txt).
#include <cuda.h>

int layering_probe() {
  return CUDA_VERSION;
}
