// The launch-overhead section of flopspy-report: text (fits 100 columns) and the
// "launch_overhead" JSON object (docs/launch-overhead.md, "JSON").
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "flopspy/analyzers/launch_overhead.h"

namespace flopspy::tools {

struct LaunchOverheadTextOptions {
  bool color = false;
  size_t top_signatures = 10;
  size_t top_streams = 8;
};

// One sentence: the verdict and the numbers behind it ("overhead bound: the GPU waited ...").
std::string LaunchOverheadVerdictSentence(const analyzers::LaunchOverheadReport& r);

// A kernel's name as the text table shows it: demangled, its function's own name without
// namespaces, template arguments or parameters, cut to `width` columns.
std::string ShortKernelName(const analyzers::SignatureOverhead& s, size_t width);

void WriteLaunchOverheadText(const analyzers::LaunchOverheadReport& r,
                             const LaunchOverheadTextOptions& options, std::ostream& out);

// `max_signatures` bounds the array (a trace can hold 100,000 signatures); signatures_total
// says how many there were.
nlohmann::json LaunchOverheadJson(const analyzers::LaunchOverheadReport& r,
                                  size_t max_signatures = 100);

}  // namespace flopspy::tools
