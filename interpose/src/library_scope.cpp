#include "library_scope.h"

namespace flopspy::interpose {

thread_local uint32_t tls_library_depth __attribute__((tls_model("initial-exec"))) = 0;
thread_local uint32_t tls_dnn_depth __attribute__((tls_model("initial-exec"))) = 0;

}  // namespace flopspy::interpose
