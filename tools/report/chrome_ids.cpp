#include "report/chrome_ids.h"

namespace flopspy::tools {

int64_t ChromePids::Synthetic() {
  while (next_ <= kMaxChromeId && (real_.contains(next_) || used_.contains(next_))) ++next_;
  // 2^30 ids are more than any export holds; past them, ids repeat rather than overflow.
  const int64_t id = next_ <= kMaxChromeId ? next_++ : kMaxChromeId;
  used_.insert(id);
  return id;
}

int64_t ChromePids::Process(int64_t pid) {
  if (pid > 0 && pid < kSyntheticPidBase && used_.insert(pid).second) return pid;
  return Synthetic();
}

int64_t ChromePids::Gpu(int index, int32_t device) {
  const auto [it, inserted] = gpus_.try_emplace({index, device}, 0);
  if (inserted) it->second = Synthetic();
  return it->second;
}

int64_t ChromeTids::Get(uint64_t key, int64_t preferred) {
  if (const auto it = by_key_.find(key); it != by_key_.end()) return it->second;
  int64_t id = preferred;
  if (id < 0 || id > kMaxChromeId || used_.contains(id)) {
    while (next_ > 0 && used_.contains(next_)) --next_;
    id = next_ > 0 ? next_-- : 0;
  }
  used_.insert(id);
  by_key_.emplace(key, id);
  return id;
}

}  // namespace flopspy::tools
