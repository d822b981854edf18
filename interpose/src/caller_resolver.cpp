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
  if (dladdr(address, &info) == 0) return false;
  return IsLibraryFile(info.dli_fname, library);
}

// Every copy met so far, newest first (a handful per process).
std::atomic<LibraryCopy*> g_copies{nullptr};

std::mutex& CopiesMutex() {
  static auto* m = new std::mutex;
  return *m;
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

LibraryCopy* CopyHolding(const void* real) {
  // dladdr outside the lock: it takes the dynamic linker's, and a hook may be called from a
  // library constructor while another thread holds that one.
  Dl_info info{};
  if (real == nullptr || dladdr(real, &info) == 0 || info.dli_fbase == nullptr) return nullptr;
  std::lock_guard lock(CopiesMutex());
  for (LibraryCopy* c = g_copies.load(std::memory_order_acquire); c != nullptr; c = c->next_) {
    if (c->base_ == info.dli_fbase) return c;
  }
  auto* copy = new (std::nothrow) LibraryCopy;
  if (copy == nullptr) return nullptr;
  copy->base_ = info.dli_fbase;
  copy->anchor_ = real;
  copy->next_ = g_copies.load(std::memory_order_relaxed);
  g_copies.store(copy, std::memory_order_release);
  return copy;
}

void* LibraryCopy::FindBeside(int slot, const char* name) {
  // Two threads may both look: they find the same function.
  void* f = ResolveBeside(anchor_, name);
  beside_[slot].store(f != nullptr ? f : Absent(), std::memory_order_release);
  return f;
}

CallTarget CallerCache::Miss(const void* caller) {
  // Resolved without the lock: the dynamic linker takes its own, and a hook may be called from
  // a library constructor while another thread holds it.
  void* real = ResolveRealForCaller(library_, name_, caller);
  if (real == nullptr) return {nullptr, nullptr};  // not cached: the library may be loaded later
  LibraryCopy* copy = CopyHolding(real);
  std::lock_guard lock(SitesMutex());
  Site* site = sites_.load(std::memory_order_acquire);
  while (site != nullptr && site->caller != caller) site = site->next;
  if (site == nullptr) {
    site = new (std::nothrow) Site{caller, real, copy, sites_.load(std::memory_order_relaxed)};
    if (site == nullptr) return {real, copy};  // answered, not cached
    sites_.store(site, std::memory_order_release);
  }
  slots_[Slot(caller)].store(site, std::memory_order_release);
  return {site->real, site->copy};
}

}  // namespace flopspy::interpose
