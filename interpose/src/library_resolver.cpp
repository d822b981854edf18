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
  CudaLibrary library;
  std::vector<std::string> paths;
};

int CollectObject(dl_phdr_info* info, size_t, void* data) {
  auto* found = static_cast<FoundObjects*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  if (IsLibraryFile(info->dlpi_name, found->library)) found->paths.emplace_back(info->dlpi_name);
  return 0;
}

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
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
    case CudaLibrary::kDnn:
      return "libcudnn.so";  // the front library: libcudnn_graph.so.9 and the rest lie behind
    case CudaLibrary::kNccl:
      return "libnccl.so";
  }
  return "";
}

bool IsLibraryFile(const char* path, CudaLibrary library) {
  if (path == nullptr) return false;
  const char* base = std::strrchr(path, '/');
  base = base ? base + 1 : path;
  const char* stem = LibraryStem(library);
  // "libcublas.so" must not match "libcublasLt.so": the stem ends at ".so".
  if (std::strncmp(base, stem, std::strlen(stem)) == 0) return true;
  // auditwheel's "<name>-<hash>.so...": the name, a dash, letters and digits, then ".so".
  const size_t name_length = std::strlen(stem) - 3;  // without ".so"
  if (std::strncmp(base, stem, name_length) != 0 || base[name_length] != '-') return false;
  const char* p = base + name_length + 1;
  const char* hash = p;
  while (IsAlnum(*p)) ++p;
  return p != hash && std::strncmp(p, ".so", 3) == 0;
}

void* ResolveReal(CudaLibrary library, const char* name) {
  if (void* next = NextSymbol(name)) return next;
  FoundObjects found{library, {}};
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
