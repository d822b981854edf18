// The recorded part of a cuDNN or NCCL hook: the real call made inside the library scopes with
// its own correlation on CUPTI's stack, the clock read around it, and the record started with
// what every library call has (times, correlation, device, status). The hook's decoder fills the
// rest of `raw` afterwards.
#pragma once

#include <cstdint>

#include "clock.h"
#include "current_device.h"
#include "launch_record.h"
#include "library_call_defaults.h"
#include "library_scope.h"
#include "raw_events.h"

namespace flopspy::interpose {

// `LibraryMark`: the library's own scope (DnnCallScope, NcclCallScope), so that what the library
// calls inside is known to be its. Returns the real call's result.
template <class LibraryMark, class Call>
__attribute__((always_inline)) inline auto TimedLibraryCall(RawLibraryCall& raw, Call&& call)
    -> decltype(call()) {
  const uint64_t correlation = NextCorrelation();
  const uint64_t enter = NowNs();
  decltype(call()) status;
  {
    LibraryMark mark;
    LibraryCallScope scope;
    GpuCorrelationScope timing(correlation, CorrelatedCall::kLibrary);
    status = call();
  }
  const uint64_t exit = NowNs();
  ResetLibraryCall(raw);
  raw.record.enter_ns = enter;
  raw.record.exit_ns = exit;
  raw.record.correlation = correlation;
  raw.record.device = CurrentDevice();
  raw.record.status = static_cast<int32_t>(status);
  return status;
}

}  // namespace flopspy::interpose
