// Finding the real functions behind flopspy's CUDA-library hooks, in the copy the program
// already loaded, never a fresh one (docs/cuda-notes.md, "Finding the copy the program loaded"):
//   1. dlsym(RTLD_NEXT): the next definition in the global scope (programs linked with the
//      library, LD_PRELOAD chains);
//   2. otherwise the library came in with dlopen(RTLD_LOCAL), as Python extensions do, and
//      RTLD_NEXT cannot see it: look through the loaded objects (dl_iterate_phdr) for files of
//      that library and dlsym on an RTLD_NOLOAD handle of each.
#pragma once

#include <atomic>
#include <string>

namespace flopspy::interpose {

enum class CudaLibrary { kDriver, kRuntime, kBlas, kBlasLt, kCupti, kDnn, kNccl };

// The file-name stem that identifies a library ("libcudart.so", ...).
const char* LibraryStem(CudaLibrary library);

// Whether the file `path` (a path or a base name) is a copy of `library`: its base name starts
// with the stem ("libcublas.so.12"), or with the stem renamed as auditwheel renames the libraries
// it bundles into a wheel ("libcublas-3f2a9c1e.so.12"). "libcublasLt.so.13" is not libcublas.
bool IsLibraryFile(const char* path, CudaLibrary library);

// The real `name`, or nullptr when no loaded copy defines it.
void* ResolveReal(CudaLibrary library, const char* name);

// A lazily resolved real function, cached after the first successful lookup.
template <class F>
class RealFunction {
 public:
  RealFunction(CudaLibrary library, const char* name) : library_(library), name_(name) {}

  F get() {
    F f = cached_.load(std::memory_order_acquire);
    if (__builtin_expect(f != nullptr, 1)) return f;
    f = reinterpret_cast<F>(ResolveReal(library_, name_));
    if (f != nullptr) cached_.store(f, std::memory_order_release);
    return f;
  }
  const char* name() const { return name_; }

 private:
  CudaLibrary library_;
  const char* name_;
  std::atomic<F> cached_{nullptr};
};

// Reports once that `name` has no real definition to forward to.
void ReportMissingReal(const char* name);

}  // namespace flopspy::interpose
