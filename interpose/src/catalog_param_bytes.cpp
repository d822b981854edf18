#include "catalog_param_bytes.h"

#include <algorithm>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::interpose {

uint16_t CatalogParamBytes(std::string_view demangled) {
  if (demangled.empty()) return 0;
  const int wanted = analyzers::ParamBytesWanted(demangled);
  return static_cast<uint16_t>(std::clamp<int>(wanted, 0, kMaxCapturedParamBytes));
}

uint16_t UncataloguedParamBytes(uint16_t configured) {
  return configured == 0 ? 0 : std::max(configured, kMaxCapturedParamBytes);
}

uint16_t SettleWantedParamBytes(FunctionInfo& info, std::string_view demangled) {
  const uint16_t configured = info.configured_param_bytes;
  const uint16_t wanted = configured == 0 ? 0 : std::max(configured, CatalogParamBytes(demangled));
  info.wanted_param_bytes.store(wanted, std::memory_order_relaxed);
  return wanted;
}

const std::string& CatalogFunction(FunctionInfo& info) {
  if (info.kernel_class.load(std::memory_order_acquire) != nullptr) return info.demangled_name;
  info.demangled_name = info.mangled_name.empty() ? "" : analyzers::Demangle(info.mangled_name);
  SettleWantedParamBytes(info, info.demangled_name);
  // Never freed: a launching thread may hold it while the process exits.
  info.kernel_class.store(
      new analyzers::KernelClass(analyzers::ClassifyKernel(info.demangled_name)),
      std::memory_order_release);
  return info.demangled_name;
}

void CatalogNewFunctions(FunctionTable& table, uint32_t& next_id) {
  for (const uint32_t last = table.size(); next_id <= last; ++next_id) {
    if (FunctionInfo* info = table.ById(next_id)) CatalogFunction(*info);
  }
}

}  // namespace flopspy::interpose
