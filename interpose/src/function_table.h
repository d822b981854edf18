// Kernel functions seen by the launch hooks: one entry per handle (CUfunction, CUkernel or a
// runtime host stub), holding what the hooks need on every launch (an id, the layout of the
// parameters) and what the flusher writes once (the name) or works out once (the catalog's
// class of the kernel).
//
// Lookups are lock-free (open addressing over atomics); insertion takes a mutex and happens
// once per handle, on the first launch of that kernel.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {
struct KernelClass;
}  // namespace flopspy::analyzers

namespace flopspy::interpose {

enum class FunctionKind : uint8_t { kDriverFunction, kDriverKernel, kRuntimeStub, kRuntimeKernel };

struct ParamLayout {
  uint16_t count = 0xFFFF;  // 0xFFFF: unknown
  uint16_t known = 0;       // entries valid below
  std::array<uint16_t, trace::kMaxParamLayout> offset{};
  std::array<uint16_t, trace::kMaxParamLayout> size{};
};

struct FunctionInfo {
  FunctionInfo() = default;
  ~FunctionInfo();  // frees kernel_class (the process's entries are never destroyed)
  FunctionInfo(const FunctionInfo&) = delete;
  FunctionInfo& operator=(const FunctionInfo&) = delete;

  uint32_t id = 0;
  uint64_t handle = 0;
  FunctionKind kind = FunctionKind::kDriverFunction;
  std::string mangled_name;  // empty if the driver could not name it
  ParamLayout layout;
  // Leading parameter bytes the hooks copy per launch: the most one launch can carry until the
  // flusher has catalogued the kernel (so that its first launches keep what its model reads),
  // then FLOPSPY_PARAM_BYTES or what the catalog's model reads, the larger (catalog_param_bytes.h).
  std::atomic<uint16_t> wanted_param_bytes{0};
  uint16_t configured_param_bytes = 0;  // FLOPSPY_PARAM_BYTES when the entry was made; 0: off
  // What the kernel catalog says of the kernel, filled by the flusher (catalog_param_bytes.h),
  // never by a hook: the demangled name (flusher only), then the class, published last and
  // never freed (counter mode reads it on the launching thread). nullptr: not yet catalogued.
  std::string demangled_name;
  std::atomic<const analyzers::KernelClass*> kernel_class{nullptr};
  mutable std::atomic<bool> catalog_requested{false};  // counter mode asked the flusher for it once
};

class FunctionTable {
 public:
  static constexpr size_t kSlots = 1u << 16;  // beyond this many kernels, lookups fall back

  // The entry for `handle`, or nullptr if it was never inserted. Lock-free.
  FunctionInfo* Find(uint64_t handle) const {
    bool probed_out = false;
    if (FunctionInfo* info = FindProbing(handle, &probed_out)) return info;
    return probed_out ? FindSlow(handle) : nullptr;
  }

  // Inserts `info` (its id is assigned here) unless another thread inserted the same handle
  // first; returns the entry that is in the table.
  FunctionInfo* Insert(FunctionInfo* info);

  // For the flusher: the entry with `id` (ids are 1, 2, 3...), or nullptr.
  FunctionInfo* ById(uint32_t id) const;
  uint32_t size() const { return next_id_.load(std::memory_order_acquire) - 1; }

 private:
  static constexpr size_t kMaxProbe = 64;
  static size_t Hash(uint64_t h) { return (h * 0x9E3779B97F4A7C15ull >> 40) & (kSlots - 1); }
  // The probe sequence only; `probed_out`: every probed slot held another handle.
  FunctionInfo* FindProbing(uint64_t handle, bool* probed_out) const {
    size_t i = Hash(handle);
    for (size_t probe = 0; probe < kMaxProbe; ++probe, i = (i + 1) & (kSlots - 1)) {
      const uint64_t key = keys_[i].load(std::memory_order_acquire);
      if (key == handle) return values_[i].load(std::memory_order_acquire);
      if (key == 0) return nullptr;
    }
    *probed_out = true;
    return nullptr;
  }
  FunctionInfo* FindSlow(uint64_t handle) const;        // takes mutex_
  FunctionInfo* FindInOverflow(uint64_t handle) const;  // mutex_ held

  std::array<std::atomic<uint64_t>, kSlots> keys_{};
  std::array<std::atomic<FunctionInfo*>, kSlots> values_{};
  mutable std::mutex mutex_;
  std::vector<FunctionInfo*> by_id_;     // index id - 1; guarded by mutex_
  std::vector<FunctionInfo*> overflow_;  // when probing fails; guarded by mutex_
  std::atomic<uint32_t> next_id_{1};
};

// The process-wide table (never destroyed).
FunctionTable& Functions();

}  // namespace flopspy::interpose
