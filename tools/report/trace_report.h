// One trace read and summarised: the facts every report output starts from.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "flopspy/analyzers/launch_overhead.h"
#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/trace/reader.h"

namespace flopspy::tools {

struct TraceReport {
  std::string path;
  bool header_ok = false;
  trace::FileHeader header{};
  std::string host;
  trace::ReadSummary read;  // how reading went (status, where it stopped, why)
  analyzers::TraceSummary summary;
  nlohmann::json metadata = nlohmann::json::object();  // metadata blocks merged in file order
  analyzers::LaunchOverheadReport launch_overhead;     // empty() without launches or GPU work

  bool usable() const { return header_ok && read.records > 0; }
  // Wall time covered by the trace's events, 0 if none.
  uint64_t duration_ns() const;
};

// Reads a trace completely; `progress` (optional) gets bytes read so far and the file size.
TraceReport SummarizeTrace(const std::string& path,
                           const std::function<void(uint64_t, uint64_t)>& progress = nullptr);

// Plain-language names used by every output.
std::string EndReasonName(trace::EndReason reason);
std::string LossSourceName(trace::LossSource source);
std::string WarningCodeName(trace::WarningCode code);

}  // namespace flopspy::tools
