// Callers of dlsym and dlvsym that have nothing to do with CUDA must see exactly what they see
// without flopspy: RTLD_NEXT relative to the caller (getpid_wrap.cpp), RTLD_DEFAULT, dlvsym,
// and handle lookups of non-driver symbols and of driver symbols flopspy does not wrap.
// Prints the library each lookup resolved to; the test compares with a run without flopspy.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

extern "C" void* getpid_wrap_constructor_next();
extern "C" void* getpid_wrap_lazy_next();
extern "C" int getpid_wrap_calls();

namespace {

const char* Base(void* p) {
  if (p == nullptr) return "NULL";
  Dl_info info{};
  if (dladdr(p, &info) == 0 || info.dli_fname == nullptr) return "?";
  const char* slash = std::strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

}  // namespace

int main() {
  const pid_t pid = getpid();
  std::printf("getpid matches the kernel's: %s\n",
              pid == static_cast<pid_t>(syscall(SYS_getpid)) ? "yes" : "no");
  std::printf("wrapper called: %s\n", getpid_wrap_calls() > 0 ? "yes" : "no");
  std::printf("wrapper's RTLD_NEXT in its constructor: %s\n", Base(getpid_wrap_constructor_next()));
  std::printf("wrapper's RTLD_NEXT at first call: %s\n", Base(getpid_wrap_lazy_next()));
  std::printf("RTLD_DEFAULT getpid: %s\n", Base(dlsym(RTLD_DEFAULT, "getpid")));
  std::printf("RTLD_NEXT getpid from main: %s\n", Base(dlsym(RTLD_NEXT, "getpid")));
  std::printf("dlvsym RTLD_DEFAULT getpid GLIBC_2.2.5: %s\n",
              Base(dlvsym(RTLD_DEFAULT, "getpid", "GLIBC_2.2.5")));
  std::printf("RTLD_DEFAULT printf: %s\n", Base(dlsym(RTLD_DEFAULT, "printf")));

  void* libm = dlopen("libm.so.6", RTLD_NOW);
  void* cos_plain = libm ? dlsym(libm, "cos") : nullptr;
  std::printf("handle lookup cos: %s\n", Base(cos_plain));
  std::printf("dlsym and dlvsym agree on cos: %s\n",
              cos_plain == (libm ? dlvsym(libm, "cos", "GLIBC_2.2.5") : nullptr) ? "yes" : "no");

  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  std::printf("dlopen libcuda.so.1: %s\n", cuda ? "yes" : "no");
  if (cuda != nullptr) {
    std::printf("handle lookup cuInit: %s\n", Base(dlsym(cuda, "cuInit")));
    std::printf("handle lookup cuFuncGetName: %s\n", Base(dlsym(cuda, "cuFuncGetName")));
    std::printf("handle lookup fakecuda_calls: %s\n", Base(dlsym(cuda, "fakecuda_calls")));
    dlerror();
    void* missing = dlsym(cuda, "cuNoSuchSymbol");
    const char* error = dlerror();
    std::printf("handle lookup cuNoSuchSymbol: %s, error %s\n", Base(missing),
                error != nullptr && std::strstr(error, "cuNoSuchSymbol") ? "names it" : "missing");
    std::printf("handle lookup cuLaunchKernel found: %s\n",
                dlsym(cuda, "cuLaunchKernel") ? "yes" : "no");
  }
  void* runtime = dlopen("libcudart.so.13", RTLD_NOW);
  if (runtime != nullptr) {
    std::printf("dlvsym cudaLaunchKernel@libcudart.so.13: %s\n",
                Base(dlvsym(runtime, "cudaLaunchKernel", "libcudart.so.13")));
    std::printf("handle lookup cudaLaunchKernel: %s\n", Base(dlsym(runtime, "cudaLaunchKernel")));
  }
  return 0;
}
