// The call-site analysis with native frames symbolised by libdw (symbols/), as flopspy-report
// runs it (docs/call-sites.md).
#pragma once

#include "flopspy/analyzers/call_sites.h"

namespace flopspy::tools {

// AnalyzeCallSites with one Symbolizer for the call (options.resolve_native, when set, is used
// instead) and the NVTX ranges (backward kernels tied to forward lines); fills
// modules_without_symbols. Throws std::regex_error for a bad frames_from.
analyzers::CallSiteReport AnalyzeCallSitesWithSymbols(const analyzers::CallSiteLog& log,
                                                      const analyzers::TraceAnalysis& run,
                                                      analyzers::CallSiteOptions options,
                                                      const analyzers::RangeLog* ranges = nullptr);

}  // namespace flopspy::tools
