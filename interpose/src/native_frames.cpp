#include "native_frames.h"

#include <unwind.h>

#include <algorithm>
#include <cstring>

#include "stack_id.h"

namespace flopspy::interpose {
namespace {

uint64_t ReadWord(uint64_t at) {
  uint64_t word;
  std::memcpy(&word, reinterpret_cast<const void*>(at), sizeof(word));
  return word;
}

struct Collect {
  NativeWalk* walk;
  const NativeWalk* base;  // the last walk: its outer frames are taken over where they match
  uint64_t reference;      // the walker's frame address (CFA)
  uint64_t stack_low, stack_high;
  int count = 0;
  bool confirmable = true;  // every slot holds its address: later captures can be confirmed
  int base_differs_at = 0;  // a base slot found changed: attempts from inside it fail there too
};

bool InStack(const Collect& c, uint64_t slot) {
  return slot >= c.stack_low && slot + 8 <= c.stack_high;
}

void Append(Collect& c, uint64_t address, uint64_t slot_end) {
  NativeWalk& w = *c.walk;
  const uint64_t offset = slot_end - c.reference;
  if (slot_end < c.reference || offset > UINT32_MAX) c.confirmable = false;
  w.offset[c.count] = static_cast<uint32_t>(offset);
  w.max_offset = std::max(w.max_offset, w.offset[c.count]);
  w.address[c.count++] = address;
}

// Frame `address`, read from `slot`, is frame j of the base walk at the same slot, and the base's
// outer slots still hold its addresses: the rest of the stack is the base's. True if taken over.
bool TakeOverBase(Collect& c, uint64_t address, uint64_t slot) {
  const NativeWalk* b = c.base;
  if (b == nullptr || b->total < 2) return false;
  // Slots lie further out frame by frame: a binary search over the base's.
  int lo = 1, hi = b->total - 1;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (b->reference + b->offset[mid] - 8 < slot) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (b->reference + b->offset[lo] - 8 != slot || b->address[lo] != address ||
      lo < c.base_differs_at) {
    return false;
  }
  for (int i = lo + 1; i < b->total; ++i) {
    const uint64_t at = b->reference + b->offset[i] - 8;
    if (!InStack(c, at) || ReadWord(at) != b->address[i]) {
      c.base_differs_at = i;
      return false;
    }
  }
  for (int i = lo; i < b->total && c.count < kMaxNativeWalk; ++i) {
    Append(c, b->address[i], b->reference + b->offset[i]);
  }
  c.walk->full = b->full || c.count == kMaxNativeWalk ? 1 : 0;
  return true;
}

_Unwind_Reason_Code OnFrame(_Unwind_Context* context, void* arg) {
  auto& c = *static_cast<Collect*>(arg);
  const uint64_t ip = _Unwind_GetIP(context);
  if (ip == 0) return _URC_END_OF_STACK;
  if (c.count == kMaxNativeWalk) {
    c.walk->full = 1;
    return _URC_END_OF_STACK;
  }
  if (c.count == 0) {
    Append(c, ip, c.reference);  // the walker itself
    return _URC_NO_REASON;
  }
  // A frame's context holds its stack pointer as it was at its call (the CFA of the frame it
  // called); the return address was pushed just below. The walker's caller's is the reference.
  const uint64_t sp = _Unwind_GetCFA(context);
  if (c.count == 1 && sp != c.reference) c.confirmable = false;
  const uint64_t slot = sp - 8;
  if (!InStack(c, slot) || ReadWord(slot) != ip) {
    c.confirmable = false;  // a signal frame, another stack: walk every time
  } else if (c.confirmable && TakeOverBase(c, ip, slot)) {
    return _URC_END_OF_STACK;
  }
  Append(c, ip, sp);
  return _URC_NO_REASON;
}

}  // namespace

void NativeFrameWalker::Init(uint64_t skip_start, uint64_t skip_end, uint64_t stack_low,
                             uint64_t stack_high) {
  skip_start_ = skip_start;
  skip_end_ = skip_end;
  stack_low_ = stack_low;
  stack_high_ = stack_high;
  Forget();
}

void NativeFrameWalker::Forget() {
  for (NativeWalk& w : walks_) w.total = 0;
  next_ = 0;
  last_hit_ = 0;
}

bool NativeFrameWalker::Matches(const NativeWalk& walk, uint64_t reference) const noexcept {
  if (walk.total == 0 || reference < stack_low_ || reference + walk.max_offset > stack_high_) {
    return false;
  }
  for (int i = 1; i < walk.total; ++i) {
    if (ReadWord(reference + walk.offset[i] - 8) != walk.address[i]) return false;
  }
  return true;
}

NativeStack NativeFrameWalker::Result(const NativeWalk& walk, bool repeated) const noexcept {
  NativeStack s;
  s.frames = walk.address + walk.first_kept;
  s.depth = walk.kept;
  s.truncated = walk.truncated != 0;
  s.id = walk.id;
  s.repeated = repeated;
  return s;
}

NativeStack NativeFrameWalker::Capture() noexcept {
  const auto reference = reinterpret_cast<uint64_t>(__builtin_dwarf_cfa());
  if (Matches(walks_[last_hit_], reference)) return Result(walks_[last_hit_], true);
  for (uint32_t i = 0; i < kCached; ++i) {
    if (i != last_hit_ && Matches(walks_[i], reference)) {
      last_hit_ = i;
      return Result(walks_[i], true);
    }
  }
  // The round-robin slot, never the base being taken over.
  uint32_t slot = next_;
  if (slot == last_hit_) slot = (slot + 1) % kCached;
  next_ = (slot + 1) % kCached;
  NativeWalk& w = walks_[slot];
  w.total = 0;
  w.full = 0;
  w.max_offset = 0;
  w.reference = reference;
  const NativeWalk* base =
      stack_high_ != 0 && walks_[last_hit_].total != 0 ? &walks_[last_hit_] : nullptr;
  Collect c{&w, base, reference, stack_low_, stack_high_};
  _Unwind_Backtrace(OnFrame, &c);
  // Frame 0 is this function; then flopspy's own frames down to the hook.
  int first = std::min(c.count, 1);
  while (first < c.count && w.address[first] >= skip_start_ && w.address[first] < skip_end_) {
    ++first;
  }
  int kept = c.count - first;
  bool truncated = w.full != 0;
  if (kept > trace::kMaxStackFrames) {
    kept = trace::kMaxStackFrames;
    truncated = true;
  }
  w.first_kept = static_cast<uint16_t>(first);
  w.kept = static_cast<uint16_t>(kept);
  w.truncated = truncated ? 1 : 0;
  w.id = StackIdOf(trace::StackKind::kNative, w.address + first, static_cast<size_t>(kept));
  // Confirmed later by its slots only if every slot was read back as its address.
  w.total = static_cast<uint16_t>(c.confirmable && stack_high_ != 0 ? c.count : 0);
  NativeStack s = Result(w, false);
  if (w.total != 0) last_hit_ = slot;
  return s;
}

}  // namespace flopspy::interpose
