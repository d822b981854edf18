// How a figure reads wherever it is shown: the one formatter of each, used by the analyzers'
// sentences (advice, GEMM diagnostics) and by every report output (tools/report/format.cpp and
// labels.cpp delegate here), so a figure reads the same in a table and in a sentence.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "flopspy/analyzers/compute_path.h"

namespace flopspy::analyzers {

// A percentage (53 = 53%): "53%", "3.2%", "0.43%", "<0.01%", "0%".
std::string PercentText(double pct);
// A share (0.434) as a whole percentage: "43%"; "-" when not finite. For sentences and columns
// where a share is read at a glance (kernel-time splits, coverage).
std::string WholePercentText(double fraction);

// Nanoseconds: "850 ns", "12.3 us", "4.56 ms", "7.89 s"; "-" when not finite.
std::string DurationText(double ns);

// The roof of a compute path: "fp32-cuda", "tf32-tensor", "fp16-tensor-fp16acc"; "unknown".
std::string RoofLabel(ComputePath path);

// A kernel name (or label) cut to about `max_chars` for a table cell, keeping what tells rows
// apart: namespaces go first, then the middle is elided so that the head and the tile sizes
// ("128x64", "256x128x64") or the tail stay: "sm90_xmma_gemm_bf16bf16...tilesize128x256x64".
// The one shortener of every output; the full name goes beside it (tooltip, JSON).
std::string ShortenKernelName(std::string_view name, size_t max_chars = 64);

}  // namespace flopspy::analyzers
