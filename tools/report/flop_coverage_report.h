// The FLOP coverage of the run summary as every output words it: the share of kernel time whose
// FLOPs are known, by source, and the largest kernels whose FLOPs are not, with what would know
// them (analyzers/flop_coverage.h computes it; docs/flopspy-report.md, "FLOP coverage").
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "flopspy/analyzers/flop_coverage.h"

namespace flopspy::tools {

// "FLOPs known for 65.0% of kernel time: analytic 50.0%, catalog 15.0%, counters 0.0%;
// unknown 35.0%"; "" without kernel time.
std::string FlopCoverageSentence(const analyzers::FlopCoverage& coverage);

// One listed kernel: "20.0% (20.0 ms) reduction _softmax · triton_red_fused__softmax_1: would be
// known from an inductor cache with kernel metadata ...".
std::string UnknownFlopsLine(const analyzers::UnknownFlopsKernel& kernel);

// The coverage line of a text summary, and the largest unknown rows under it; nothing without
// kernel time.
void PrintFlopCoverage(const analyzers::FlopCoverage& coverage, std::ostream& out);

// The summary's "flop_coverage" object: {kernel_ns, known, analytic, catalog, counters, unknown
// (shares of kernel_ns), unknown_rows, sentence}.
nlohmann::json FlopCoverageJson(const analyzers::FlopCoverage& coverage);

// The summary's "unknown_flops_kernels": [{name, label, op, category, device, unknown_ns, share,
// remedy, remedy_text}], largest first.
nlohmann::json UnknownFlopsKernelsJson(const analyzers::FlopCoverage& coverage);

}  // namespace flopspy::tools
