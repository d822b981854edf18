// Backward kernels tied to the forward line whose op created them, through the sequence numbers
// PyTorch's emit_nvtx puts in its range names: a forward op's range says "seq = N", the backward
// op's range on autograd's thread "stashed seq = N" (docs/call-sites.md).
#include <algorithm>

#include "call_sites_internal.h"
#include "helpers_internal.h"

namespace flopspy::analyzers::call_sites_internal {
namespace {

// How far back from the latest range begun before a launch to look for one still open: ranges
// nest, so the innermost open one is near; a bound keeps hostile traces linear.
constexpr size_t kLookBack = 64;

}  // namespace

std::optional<uint64_t> RangeSeq(std::string_view name, bool* stashed) {
  for (size_t at = name.find("seq"); at != std::string_view::npos; at = name.find("seq", at + 1)) {
    size_t i = at + 3;
    while (i < name.size() && name[i] == ' ') ++i;
    if (i >= name.size() || name[i] != '=') continue;
    ++i;
    while (i < name.size() && name[i] == ' ') ++i;
    uint64_t value = 0;
    size_t digits = 0;
    for (; i < name.size() && helpers::IsAsciiDigit(name[i]) && digits < 19; ++i, ++digits) {
      value = value * 10 + static_cast<uint64_t>(name[i] - '0');
    }
    if (digits == 0) continue;
    *stashed = name.substr(0, at).ends_with("stashed ");
    return value;
  }
  return std::nullopt;
}

SeqRanges::SeqRanges(const RangeLog& log) {
  for (const RangeInstance& r : log.ranges) {
    bool stashed = false;
    const auto seq = RangeSeq(r.name, &stashed);
    if (!seq) continue;
    by_thread_[r.thread].push_back({r.begin_ns, r.end_ns, *seq, stashed});
  }
  for (auto& [thread, ranges] : by_thread_) {
    std::stable_sort(ranges.begin(), ranges.end(),
                     [](const Range& a, const Range& b) { return a.begin < b.begin; });
  }
}

std::optional<uint64_t> SeqRanges::At(uint32_t thread, uint64_t time_ns, bool stashed) const {
  const auto found = by_thread_.find(thread);
  if (found == by_thread_.end()) return std::nullopt;
  const std::vector<Range>& ranges = found->second;
  auto it = std::upper_bound(ranges.begin(), ranges.end(), time_ns,
                             [](uint64_t t, const Range& r) { return t < r.begin; });
  for (size_t looked = 0; it != ranges.begin() && looked < kLookBack; ++looked) {
    --it;
    if (it->end >= time_ns && it->stashed == stashed) return it->seq;
  }
  return std::nullopt;
}

}  // namespace flopspy::analyzers::call_sites_internal
