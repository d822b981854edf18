// What every output of the "Call sites" section shares (docs/call-sites.md): the sites' kernel
// rows kept valid across --sort and --filter, the coverage figures, and the words for a site.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flopspy/analyzers/call_sites.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "report/trace_report.h"

namespace flopspy::tools {

// A kernel row's identity in its trace (the analysis groups by signature and catalog shape):
// CallSiteKernel::group indexes TraceAnalysis::kernels, which ApplyViewOptions reorders and
// filters, so the model takes the keys before and maps the rows to the new indices after.
using KernelRowKey = std::pair<uint32_t, std::string>;
std::vector<KernelRowKey> KernelRowKeys(const analyzers::TraceAnalysis& run);
// Points each site's kernels at `run`'s rows again; a kernel --filter dropped leaves its site.
void RemapCallSiteKernels(analyzers::CallSiteReport& sites, const std::vector<KernelRowKey>& before,
                          const analyzers::TraceAnalysis& run);

// Shares of the trace's kernel time: with a stack sample of their own, shared out from their
// signature's samples, and with no call site at all (the rest).
struct CallSiteCoverage {
  double sampled = 0;
  double estimated = 0;
  double none = 0;
};
CallSiteCoverage CoverageOf(const analyzers::CallSiteReport& report);

// FLOPSPY_STACK_SAMPLE as the trace's configuration recorded it (metadata config.stack_sample);
// nullopt when it did not.
std::optional<uint32_t> StackSampleEvery(const TraceReport& t);

// A site's label, with what kind of site it is when that is not a user frame of its own:
// "model.py:88 (Block.forward)", "libfoo.so+0x1a2b (no user frame)".
std::string CallSiteText(const analyzers::CallSite& site);

// "compute 62% / memory 30% / overhead 8%": the regimes holding the site's time, largest first,
// "?" for time whose regime is unknown; "-" without time.
std::string RegimeMixText(const std::array<double, 4>& regime_ns, double gpu_ns);

// --frames-from REGEX: "" when it is a valid ECMAScript regex (or empty), else the one-line
// usage error saying why.
std::string FramesFromError(const std::string& regex);

// CallSiteOptions::top_kernels under --by-call-site: every kernel of a site.
inline constexpr size_t kAllCallSiteKernels = 100000;

// Kernels listed under each site in the "Call sites" section (--by-call-site lists them all).
inline constexpr size_t kCallSiteSectionKernels = 5;
// Sites the text shows without --top.
inline constexpr size_t kCallSiteRows = 10;

}  // namespace flopspy::tools
