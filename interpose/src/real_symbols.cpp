#include "real_symbols.h"

namespace flopspy::interpose {

void* NextSymbol(const char* name) {
  return dlsym(RTLD_NEXT, name);
}

}  // namespace flopspy::interpose
