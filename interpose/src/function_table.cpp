#include "function_table.h"

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::interpose {

FunctionInfo::~FunctionInfo() {
  delete kernel_class.load(std::memory_order_relaxed);
}

FunctionInfo* FunctionTable::Insert(FunctionInfo* info) {
  std::lock_guard lock(mutex_);
  bool probed_out = false;
  FunctionInfo* existing = FindProbing(info->handle, &probed_out);
  if (existing == nullptr && probed_out) existing = FindInOverflow(info->handle);
  if (existing != nullptr) {
    delete info;
    return existing;
  }
  info->id = next_id_.load(std::memory_order_relaxed);
  by_id_.push_back(info);
  next_id_.store(info->id + 1, std::memory_order_release);
  size_t i = Hash(info->handle);
  for (size_t probe = 0; probe < kMaxProbe; ++probe, i = (i + 1) & (kSlots - 1)) {
    if (keys_[i].load(std::memory_order_relaxed) == 0) {
      // The value first, then the key: a reader that sees the key sees the value.
      values_[i].store(info, std::memory_order_release);
      keys_[i].store(info->handle, std::memory_order_release);
      return info;
    }
  }
  overflow_.push_back(info);
  return info;
}

FunctionInfo* FunctionTable::FindSlow(uint64_t handle) const {
  std::lock_guard lock(mutex_);
  return FindInOverflow(handle);
}

FunctionInfo* FunctionTable::FindInOverflow(uint64_t handle) const {
  for (FunctionInfo* info : overflow_) {
    if (info->handle == handle) return info;
  }
  return nullptr;
}

FunctionInfo* FunctionTable::ById(uint32_t id) const {
  std::lock_guard lock(mutex_);
  return id >= 1 && id <= by_id_.size() ? by_id_[id - 1] : nullptr;
}

FunctionTable& Functions() {
  static auto* table = new FunctionTable;
  return *table;
}

}  // namespace flopspy::interpose
