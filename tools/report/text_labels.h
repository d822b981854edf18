// Short labels the terminal report's tables share: figures, sources, regimes, roofs, launch
// shapes and kernel names.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/run_analysis.h"

namespace flopspy::tools {

// 3.4 -> "3%", nullopt -> "-".
// 53 -> "53%", 3.24 -> "3.2%", 0.434 -> "0.43%", 0.001 -> "<0.01%", nullopt -> "-".
std::string PctText(std::optional<double> percent);
// 2.15e12 -> "2.15 T", nullopt -> "-".
std::string RateText(std::optional<double> value);
// A figure with its source: "-" when the source is unknown.
std::string FigureText(double value, trace::FigureSource source);
// "anl", "cat", "ctr", "?".
std::string SourceTag(trace::FigureSource source);
// "cat" when FLOPs and bytes share their source, else "flops/bytes" ("?/cat").
std::string SourcesTag(const analyzers::WorkFigures& figures);
// "compute", "memory", "overhead", "?"; "-" without a placement.
std::string RegimeTag(const std::optional<analyzers::Placement>& placement);
// The roof of a compute path: "fp32-cuda", "tf32-tensor", "fp16-tensor-fp16acc".
std::string RoofPathLabel(analyzers::ComputePath path);
// The roofs a placement used: "roof fp32-cuda datasheet", with the DRAM roof's source when it
// differs ("roof tf32-tensor measured, dram datasheet"); "" without a compute roof.
std::string RoofText(const analyzers::Placement& placement);
// "<<<8x8, 128>>>": grid and block as a launch writes them, trailing ones dropped.
std::string LaunchShape(const std::array<uint32_t, 3>& grid, const std::array<uint32_t, 3>& block);
// The catalog's reading first (functor and shape, so that they survive a cut), then the
// function's own name: "mul [n=1000] · vectorized_elementwise_kernel".
std::string KernelLabel(const analyzers::KernelGroup& group);

// A library row's shape: "64x128x32", "64x128x32 b4" when batched. A grouped GEMM whose groups
// differ: "3 groups, 6 problems: 64x128x32 b2, 16x8x256, 100x10x10 b3" (at most kShownGroups
// groups, then "and 66 more"), "(first call; others differ)" when the row's calls had other
// groups; "3 groups, the first 64x128x32" when its groups are not in the trace.
inline constexpr size_t kShownGroups = 4;
std::string LibraryShapeText(const analyzers::LibraryGroup& group);

// The lines under a kernel row: its label, its launch shape and its roof, which tell apart rows
// of one kernel with different grids and say what %roof is a share of. A label too long to
// share its line with them goes on a line of its own.
std::vector<std::string> KernelDetailLines(const analyzers::KernelGroup& group, size_t width);

}  // namespace flopspy::tools
