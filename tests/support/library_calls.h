// The library-call records of a trace file as the hook tests read them (each record with its
// name and its stream's handle), and the hook tests' run of a client with and without flopspy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flopspy/trace/schema.h"
#include "subprocess.h"

namespace flopspy::testing {

struct TracedCall {
  trace::LibraryCallRecord record{};
  std::string name;
  uint64_t stream_handle = 0;
};

// Every LibraryCallRecord of the trace at `path`, in file order; `error` says why reading failed.
std::vector<TracedCall> ReadLibraryCalls(const std::string& path, std::string& error);

// A program run plain and under the preload `library`, with the library calls of its one trace.
struct TracedRun {
  ChildResult plain, traced;
  std::vector<TracedCall> calls;
  std::string trace_error;  // "" when exactly one trace was written and read
};
TracedRun RunPlainAndTraced(const std::vector<std::string>& argv, const std::string& library);

}  // namespace flopspy::testing
