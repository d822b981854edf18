// Exported names for cuGetProcAddress lookups with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM:
// cuda.h's macros as a program compiled with --default-stream per-thread sees them.
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <cuda.h>

#include "proc_names.h"

#define FAKECUDA_STR(x) #x
#define FAKECUDA_XSTR(x) FAKECUDA_STR(x)
#define FAKECUDA_NAME(base, version) {#base, FAKECUDA_XSTR(base), version},

namespace fakecuda {
const ProcName kPerThreadProcNames[] = {FAKECUDA_PROC_BASES(FAKECUDA_NAME){nullptr, nullptr, 0}};
}  // namespace fakecuda
