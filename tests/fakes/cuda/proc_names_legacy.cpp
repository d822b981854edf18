// Exported names for cuGetProcAddress lookups without
// CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM.
#include <cuda.h>

#include "proc_names.h"

#define FAKECUDA_STR(x) #x
#define FAKECUDA_XSTR(x) FAKECUDA_STR(x)
#define FAKECUDA_NAME(base, version) {#base, FAKECUDA_XSTR(base), version},

namespace fakecuda {
const ProcName kLegacyProcNames[] = {FAKECUDA_PROC_BASES(FAKECUDA_NAME){nullptr, nullptr, 0}};
}  // namespace fakecuda
