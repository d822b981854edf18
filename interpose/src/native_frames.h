// Native frames of the launching thread: return addresses only, innermost first; the report
// symbolises them (docs/call-sites.md). No symbol lookup, no lock, no allocation.
//
// A full walk (_Unwind_Backtrace over the objects' unwind tables) costs about 0.4 µs a frame,
// far above the budget of a stack taken again (docs/performance.md, "Call sites"). So each walk
// is kept with where every return address sat on the stack, relative to the walker's own frame;
// a later capture from the same call path finds the same addresses in the same slots, and is
// confirmed by reading those slots alone (a few loads), never by walking again. Any slot that
// differs (another path, a frame of another size) means a walk; it stops where it reaches a
// frame of the last walk at the same stack slot and finds that walk's outer slots unchanged (a
// new call from the same loop walks only the frames that are new). Boost.Stacktrace's
// safe_dump_to walks the same way (_Unwind_Backtrace) and costs the same; the slots need the
// walk's frame addresses (_Unwind_GetCFA), which it does not give, so flopspy walks itself.
#pragma once

#include <cstddef>
#include <cstdint>

#include "flopspy/trace/schema.h"

namespace flopspy::interpose {

// Frames walked at most: the kept ones plus flopspy's own at the top.
inline constexpr int kMaxNativeWalk = trace::kMaxStackFrames + 32;

struct NativeStack {
  const uint64_t* frames = nullptr;  // innermost first; valid until the next capture
  int depth = 0;
  bool truncated = false;  // deeper than trace::kMaxStackFrames: the outermost are cut
  uint64_t id = 0;         // StackIdOf(kNative, frames)
  bool repeated = false;   // confirmed from an earlier walk of this walker, without walking
};

// One thread's walker, with the stacks it walked last. Lives in memory the caller owns (a
// thread's mapped state): no constructor work beyond zeroing.
// One walk kept: the addresses and the stack slots they were read from.
struct NativeWalk {
  uint64_t id;
  uint64_t reference;   // the walker's frame address (CFA) during the walk
  uint16_t total;       // frames walked (the first, the walker itself, included); 0: none kept
  uint16_t first_kept;  // frames before it are flopspy's own
  uint16_t kept;        // frames in the stack, from first_kept
  uint8_t truncated;
  uint8_t full;                     // the walk stopped at kMaxNativeWalk frames
  uint32_t max_offset;              // highest slot offset: bounds the reads
  uint32_t offset[kMaxNativeWalk];  // slot of address[i]: reference + offset[i] - 8
  uint64_t address[kMaxNativeWalk];
};

// One thread's walker, with the stacks it walked last. Lives in memory the caller owns (a
// thread's mapped state): no constructor work beyond zeroing.
class NativeFrameWalker {
 public:
  // Frames at the top of the stack whose address lies in [skip_start, skip_end) are left out
  // (flopspy's own). `stack_low`/`stack_high`: the thread's stack; slots are only read inside it
  // (0, 0: never read slots, walk every time).
  void Init(uint64_t skip_start, uint64_t skip_end, uint64_t stack_low, uint64_t stack_high);

  // The calling thread's stack. Must not be inlined: its frame is the reference of the slots.
  NativeStack Capture() noexcept __attribute__((noinline));

  // Drops the walks kept: the next capture walks.
  void Forget();

 private:
  static constexpr int kCached = 32;

  bool Matches(const NativeWalk& walk, uint64_t reference) const noexcept;
  NativeStack Result(const NativeWalk& walk, bool repeated) const noexcept;

  uint64_t skip_start_ = 0, skip_end_ = 0;
  uint64_t stack_low_ = 0, stack_high_ = 0;
  uint32_t next_ = 0;      // the slot a new walk goes to (round robin)
  uint32_t last_hit_ = 0;  // tried first, and the walk a new one splices onto
  NativeWalk walks_[kCached];
};

}  // namespace flopspy::interpose
