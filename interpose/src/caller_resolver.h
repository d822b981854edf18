// Real functions of a library a process may hold in several copies: libcudart.so.12 loaded by one
// extension module and libcudart.so.13 by another, each opened with RTLD_LOCAL as Python opens
// them (or libcublas.so.12 and .13, libcublasLt, a wheel's renamed copy). A call to one of
// flopspy's hooks comes from code linked against one of those copies and must reach that copy,
// not the first one flopspy found (docs/testing-without-gpu.md, "Two CUDA runtimes in one
// process" and "Two cuBLAS copies in one process").
//
// So the real function is found per call site: from the hook's return address, in the scope of
// the object that made the call (the object and its own dependencies, which is what its
// references bind to, flopspy aside). The answer is cached by return address; the fast path is
// one load and one compare. It names the copy too (LibraryCopy), for the functions a hook calls
// beside the real one.
#pragma once

#include <atomic>
#include <cstdint>

#include "library_resolver.h"

namespace flopspy::interpose {

// Cold path: the real `name` for a call whose return address is `caller`: the definition the
// calling object's own dependencies provide when it lies in a file of `library`, otherwise
// ResolveReal(library, name) (the main program, a caller that does not link the library).
void* ResolveRealForCaller(CudaLibrary library, const char* name, const void* caller);

// Cold path: `name` as defined by the loaded object that contains `address` (nullptr if that
// object does not define it). Used to ask the runtime copy that ran a launch to name its kernel.
void* ResolveBeside(const void* address, const char* name);

// One loaded copy of a library (one object: libcublas.so.12, libcublasLt.so.13, ...). What a
// hook needs from the copy its call went to, besides the real function (cuBLAS's handle getters,
// cuBLASLt's descriptor getters), is looked up once per copy and kept here, so that it always
// comes from that copy: another copy does not know the caller's handles. Never freed.
class LibraryCopy {
 public:
  static constexpr int kBesideSlots = 8;

  // `name` as this copy defines it, kept in `slot` (one slot per name flopspy asks for, numbered
  // by its users: hooks_cublas_common.h); nullptr when the copy does not define it.
  void* Beside(int slot, const char* name) {
    void* f = beside_[slot].load(std::memory_order_acquire);
    if (__builtin_expect(f != nullptr, 1)) return f == Absent() ? nullptr : f;
    return FindBeside(slot, name);
  }
  // Bits the hooks keep per copy (cuBLAS: the program changed this copy's legacy stream).
  std::atomic<uint32_t>& marks() { return marks_; }

 private:
  friend LibraryCopy* CopyHolding(const void* real);
  static void* Absent() { return reinterpret_cast<void*>(uintptr_t{1}); }
  void* FindBeside(int slot, const char* name);

  const void* base_ = nullptr;    // the object's load address: which copy this is
  const void* anchor_ = nullptr;  // a function it defines, to find the object again
  LibraryCopy* next_ = nullptr;
  std::atomic<void*> beside_[kBesideSlots] = {};
  std::atomic<uint32_t> marks_{0};
};

// Cold path: the copy that holds the real function `real`, created on first sight (nullptr when
// `real` lies in no loaded object, or memory runs out).
LibraryCopy* CopyHolding(const void* real);

// Where a call goes: the real function and the copy that holds it.
struct CallTarget {
  void* real;
  LibraryCopy* copy;
};

// One real function per call site. Entries are immutable once published and never freed (their
// number is bounded by the call sites of the program), so readers need no lock.
class CallerCache {
 public:
  constexpr CallerCache(CudaLibrary library, const char* name) : library_(library), name_(name) {}

  CallTarget Target(const void* caller) {
    const Site* site = slots_[Slot(caller)].load(std::memory_order_acquire);
    if (__builtin_expect(site != nullptr && site->caller == caller, 1)) {
      return {site->real, site->copy};
    }
    return Miss(caller);
  }
  void* Get(const void* caller) { return Target(caller).real; }
  const char* name() const { return name_; }

 private:
  struct Site {
    const void* caller;
    void* real;
    LibraryCopy* copy;
    Site* next;  // every site of this cache, for reuse when two call sites share a slot
  };
  static constexpr int kSlotBits = 5;
  static constexpr size_t kSlots = size_t{1} << kSlotBits;
  static size_t Slot(const void* caller) {
    return (reinterpret_cast<uintptr_t>(caller) * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits);
  }
  CallTarget Miss(const void* caller);

  CudaLibrary library_;
  const char* name_;
  std::atomic<const Site*> slots_[kSlots] = {};
  std::atomic<Site*> sites_{nullptr};
};

// A real function resolved per call site (see above), typed.
template <class F>
class CallerRealFunction {
 public:
  constexpr CallerRealFunction(CudaLibrary library, const char* name) : cache_(library, name) {}
  F get(const void* caller) { return reinterpret_cast<F>(cache_.Get(caller)); }
  const char* name() const { return cache_.name(); }

 private:
  CallerCache cache_;
};

}  // namespace flopspy::interpose
