// The three largest estimated gains of the advice, on the first screen of the text report, at
// the end of the run summary (docs/advice.md, "Ranking").
#pragma once

#include <ostream>
#include <vector>

#include "flopspy/analyzers/advice.h"

namespace flopspy::tools {

// "  est. gain 1. GEMM kernels far from their roof: 3.86 s (64% of kernel time; advice 1)";
// nothing when no finding has an estimate.
void PrintTopGains(const std::vector<analyzers::Advice>& advice, std::ostream& out);

}  // namespace flopspy::tools
