#include "library_resolver.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <string>
#include <vector>

#include "log.h"
#include "real_symbols.h"

namespace flopspy::interpose {
namespace {

struct FoundObjects {
  const char* stem;
  std::vector<std::string> paths;
};

int CollectObject(dl_phdr_info* info, size_t, void* data) {
  auto* found = static_cast<FoundObjects*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  const char* base = std::strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  // "libcublas.so" must not match "libcublasLt.so": the stem ends at ".so".
  if (std::strncmp(base, found->stem, std::strlen(found->stem)) == 0) {
    found->paths.emplace_back(info->dlpi_name);
  }
  return 0;
}

}  // namespace

const char* LibraryStem(CudaLibrary library) {
  switch (library) {
    case CudaLibrary::kDriver:
      return "libcuda.so";
    case CudaLibrary::kRuntime:
      return "libcudart.so";
    case CudaLibrary::kBlas:
      return "libcublas.so";
    case CudaLibrary::kBlasLt:
      return "libcublasLt.so";
    case CudaLibrary::kCupti:
      return "libcupti.so";
  }
  return "";
}

void* ResolveReal(CudaLibrary library, const char* name) {
  if (void* next = NextSymbol(name)) return next;
  FoundObjects found{LibraryStem(library), {}};
  dl_iterate_phdr(CollectObject, &found);
  for (const std::string& path : found.paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void* symbol = RealDlsym(handle, name);
    dlclose(handle);  // drops only the reference RTLD_NOLOAD added
    if (symbol != nullptr) return symbol;
  }
  return nullptr;
}

void ReportMissingReal(const char* name) {
  ReportOnce(std::string("missing-") + name, trace::WarningCode::kSymbolMissing,
             std::string("no loaded library defines ") + name +
                 " to forward to; the call fails with an error instead");
}

}  // namespace flopspy::interpose
