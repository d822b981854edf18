#include "caller_resolver.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <mutex>
#include <new>

#include "real_symbols.h"

namespace flopspy::interpose {
namespace {

// Never destroyed: hooks may run on other threads while the process exits.
std::mutex& SitesMutex() {
  static auto* m = new std::mutex;
  return *m;
}

// The loaded object that contains `address` (nullptr for none or the main program, whose
// scope starts with the preloaded libraries, flopspy first).
link_map* ObjectOf(const void* address, Dl_info* info) {
  link_map* map = nullptr;
  if (address == nullptr ||
      dladdr1(address, info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) {
    return nullptr;
  }
  if (map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0') return nullptr;
  return map;
}

// `name` in the scope of the object `map` (the object, then its dependencies breadth first),
// through a handle that only adds a reference to what is already loaded.
void* LookUpIn(const link_map* map, const char* name) {
  void* handle = dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* symbol = RealDlsym(handle, name);
  dlclose(handle);
  return symbol;
}

// Whether `address` lies in a file of `library` ("libcudart.so.12" for kRuntime, never
// libflopspy.so or another wrapper).
bool InLibrary(const void* address, CudaLibrary library) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return false;
  const char* base = std::strrchr(info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  const char* stem = LibraryStem(library);
  return std::strncmp(base, stem, std::strlen(stem)) == 0;
}

}  // namespace

void* ResolveRealForCaller(CudaLibrary library, const char* name, const void* caller) {
  Dl_info info{};
  if (const link_map* map = ObjectOf(caller, &info)) {
    void* symbol = LookUpIn(map, name);
    if (symbol != nullptr && InLibrary(symbol, library)) return symbol;
  }
  return ResolveReal(library, name);
}

void* ResolveBeside(const void* address, const char* name) {
  Dl_info info{};
  const link_map* map = ObjectOf(address, &info);
  if (map == nullptr) return nullptr;
  void* symbol = LookUpIn(map, name);
  Dl_info found{};
  if (symbol == nullptr || dladdr(symbol, &found) == 0 || found.dli_fbase != info.dli_fbase) {
    return nullptr;
  }
  return symbol;
}

void* CallerCache::Miss(const void* caller) {
  // Resolved without the lock: the dynamic linker takes its own, and a hook may be called from
  // a library constructor while another thread holds it.
  void* real = ResolveRealForCaller(library_, name_, caller);
  if (real == nullptr) return nullptr;  // not cached: the library may be loaded later
  std::lock_guard lock(SitesMutex());
  Site* site = sites_.load(std::memory_order_acquire);
  while (site != nullptr && site->caller != caller) site = site->next;
  if (site == nullptr) {
    site = new (std::nothrow) Site{caller, real, sites_.load(std::memory_order_relaxed)};
    if (site == nullptr) return real;  // answered, not cached
    sites_.store(site, std::memory_order_release);
  }
  slots_[Slot(caller)].store(site, std::memory_order_release);
  return site->real;
}

}  // namespace flopspy::interpose
