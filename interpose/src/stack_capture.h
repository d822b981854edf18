// Call stacks of sampled launches (docs/call-sites.md): which launches get stacks, taking them,
// and the records that carry them (trace/include/flopspy/trace/schema.h, "Call sites").
//
// Policy (FLOPSPY_STACKS, FLOPSPY_STACK_SAMPLE=N): the first launch of each kernel signature on a
// thread, then one in N of that signature's launches on it. A launch with stacks is followed, on
// its thread, by the StackRecords, PyCodeRecords and ModuleRecords this thread has not written
// yet, then its StackSampleRecord.
//
// Cost (docs/performance.md, "Call sites"): with stacks off, one relaxed load. Otherwise a hash
// of the launch's signature and a probe of the thread's table; a sampled launch reads its frames
// (a known native stack is confirmed from its stack slots, not walked again) and looks its stack
// id up in the thread's set; only a new stack writes frames, code objects and modules.
#pragma once

#include <atomic>
#include <cstdint>

#include "function_table.h"
#include "launch_record.h"

namespace flopspy::interpose {

// kStacksUnset until the first launch reads the configuration; kStacksOff also once nothing can
// ever be taken (python asked for in a process without a readable Python).
inline constexpr uint8_t kStacksOff = 0;
inline constexpr uint8_t kStacksOn = 1;
inline constexpr uint8_t kStacksUnset = 2;
extern std::atomic<uint8_t> g_stacks_state;

void NoteLaunchStacksSlow(const FunctionInfo* function, const LaunchShape& shape,
                          uint64_t correlation) noexcept;

// After a launch is recorded: takes its stacks if the policy says so.
inline void NoteLaunchStacks(const FunctionInfo* function, const LaunchShape& shape,
                             uint64_t correlation) noexcept {
  if (g_stacks_state.load(std::memory_order_relaxed) == kStacksOff) return;
  NoteLaunchStacksSlow(function, shape, correlation);
}

}  // namespace flopspy::interpose
