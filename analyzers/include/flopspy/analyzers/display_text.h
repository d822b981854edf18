// How a figure reads wherever it is shown: the one formatter of each, used by the analyzers'
// sentences (advice, GEMM diagnostics) and by every report output (tools/report/format.cpp and
// labels.cpp delegate here), so a figure reads the same in a table and in a sentence.
#pragma once

#include <string>

#include "flopspy/analyzers/compute_path.h"

namespace flopspy::analyzers {

// A percentage (53 = 53%): "53%", "3.2%", "0.43%", "<0.01%", "0%".
std::string PercentText(double pct);

// Nanoseconds: "850 ns", "12.3 us", "4.56 ms", "7.89 s"; "-" when not finite.
std::string DurationText(double ns);

// The roof of a compute path: "fp32-cuda", "tf32-tensor", "fp16-tensor-fp16acc"; "unknown".
std::string RoofLabel(ComputePath path);

}  // namespace flopspy::analyzers
