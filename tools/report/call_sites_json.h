// The "call_sites" member of a trace's JSON, and "by_call_site" with --by-call-site
// (docs/report-json.md); CSV makes call_sites.csv and its companions of them.
#pragma once

#include <nlohmann/json.hpp>

#include "report/trace_report.h"

namespace flopspy::tools {

// Adds "call_sites" to `trace` when the trace has stack samples.
void AddCallSitesJson(const TraceReport& t, nlohmann::json& trace);

// --by-call-site: one row per (site, kernel), sites by GPU time then their kernels; empty when
// the trace has no call sites.
nlohmann::json ByCallSiteJson(const TraceReport& t);

}  // namespace flopspy::tools
