// A library that wraps a libc function and forwards with dlsym(RTLD_NEXT), as many tools do.
// With flopspy's dlsym in the process, RTLD_NEXT must still resolve relative to this library:
// to libc's getpid, never back to this wrapper (an endless loop) and never past libc.
// The lookup is done twice: in the constructor (which may run before flopspy's own
// initialisation) and lazily at the first call.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace {

using GetpidFn = pid_t (*)();
GetpidFn g_constructor_next = nullptr;
std::atomic<GetpidFn> g_lazy_next{nullptr};
std::atomic<int> g_calls{0};
thread_local int tls_depth = 0;

__attribute__((constructor)) void ResolveAtLoad() {
  g_constructor_next = reinterpret_cast<GetpidFn>(dlsym(RTLD_NEXT, "getpid"));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) pid_t getpid() {
  g_calls.fetch_add(1);
  // A lookup that came back to this function would recurse forever: fail loudly instead.
  if (++tls_depth > 3) std::abort();
  GetpidFn next = g_lazy_next.load();
  if (next == nullptr) {
    next = reinterpret_cast<GetpidFn>(dlsym(RTLD_NEXT, "getpid"));
    g_lazy_next.store(next);
  }
  const pid_t pid = next != nullptr ? next() : -1;
  --tls_depth;
  return pid;
}

extern "C" __attribute__((visibility("default"))) void* getpid_wrap_constructor_next() {
  return reinterpret_cast<void*>(g_constructor_next);
}
extern "C" __attribute__((visibility("default"))) void* getpid_wrap_lazy_next() {
  return reinterpret_cast<void*>(g_lazy_next.load());
}
extern "C" __attribute__((visibility("default"))) int getpid_wrap_calls() {
  return g_calls.load();
}
