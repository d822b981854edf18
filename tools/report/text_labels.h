// Figures as the terminal report's tables write them, and the lines under a kernel row. The
// labels themselves (kernels, sources, regimes, roofs) are in labels.h, shared by every output.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "report/kernel_rollup.h"
#include "report/labels.h"

namespace flopspy::tools {

// 3.4 -> "3%", nullopt -> "-".
// 53 -> "53%", 3.24 -> "3.2%", 0.434 -> "0.43%", 0.001 -> "<0.01%", nullopt -> "-".
std::string PctText(std::optional<double> percent);
// The regime holding most of a rollup row's time and its share: "compute 93"; "-" untimed.
std::string RegimeShareText(const RollupRow& r);
// 2.15e12 -> "2.15 T", nullopt -> "-".
std::string RateText(std::optional<double> value);
// A figure with its source: "-" when the source is unknown.
std::string FigureText(double value, trace::FigureSource source);
// The lines under a kernel row: its label, its launch shape and its roof, which tell apart rows
// of one kernel with different grids and say what %roof is a share of. A label too long to
// share its line with them goes on a line of its own.
std::vector<std::string> KernelDetailLines(const analyzers::KernelGroup& group, size_t width);

}  // namespace flopspy::tools
