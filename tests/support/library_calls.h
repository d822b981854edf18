// The library-call records of a trace file as the hook tests read them: each record with its
// name and its stream's handle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::testing {

struct TracedCall {
  trace::LibraryCallRecord record{};
  std::string name;
  uint64_t stream_handle = 0;
};

// Every LibraryCallRecord of the trace at `path`, in file order; `error` says why reading failed.
std::vector<TracedCall> ReadLibraryCalls(const std::string& path, std::string& error);

}  // namespace flopspy::testing
