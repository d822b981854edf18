#include "catalog_param_bytes.h"

#include <algorithm>

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::interpose {

uint16_t CatalogParamBytes(std::string_view demangled) {
  if (demangled.empty()) return 0;
  const int wanted = analyzers::ParamBytesWanted(demangled);
  return static_cast<uint16_t>(std::clamp<int>(wanted, 0, kMaxCapturedParamBytes));
}

uint16_t RaiseWantedParamBytes(FunctionInfo& info, std::string_view demangled) {
  uint16_t current = info.wanted_param_bytes.load(std::memory_order_relaxed);
  if (current == 0) return 0;  // capture is off: the catalog does not turn it back on
  const uint16_t wanted = CatalogParamBytes(demangled);
  while (wanted > current && !info.wanted_param_bytes.compare_exchange_weak(
                                 current, wanted, std::memory_order_relaxed)) {
  }
  return std::max(current, wanted);
}

}  // namespace flopspy::interpose
