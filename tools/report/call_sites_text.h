// The "Call sites" section of the terminal report and the kernel table grouped under call sites
// (--by-call-site): docs/call-sites.md, docs/flopspy-report.md.
#pragma once

#include <ostream>

#include "report/trace_report.h"
#include "report/view_options.h"

namespace flopspy::tools {

// Per call site, the `rows` largest: GPU time, share, launches, FLOPs with their coverage,
// achieved FLOP/s, regime mix, launch-bound share and the top kernels; then where the sites come
// from (sampled, shared out, none) and the modules without symbols. Nothing without samples.
void PrintCallSites(const TraceReport& t, std::ostream& out, size_t rows);

// --by-call-site: each site, then its kernels, instead of the flat kernel table. Returns false
// (and prints nothing) when the trace has no call sites, so that the flat table stands.
bool PrintKernelsByCallSite(const TraceReport& t, std::ostream& out, const ViewOptions& view);

}  // namespace flopspy::tools
