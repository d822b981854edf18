// The labels every output of flopspy-report shows (text, HTML, CSV, the Chrome export): kernel and
// library-call labels, figure sources, regimes and their colours, roofs, launch shapes, copy
// directions and memory kinds. Each is spelt here once; the schema's enum names (the JSON's
// words) are in trace/src/names.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "flopspy/trace/schema.h"

namespace flopspy::tools {

// "anl", "cat", "ctr", "?".
std::string SourceTag(trace::FigureSource source);
// "cat" when FLOPs and bytes share their source, else "flops/bytes" ("?/cat").
std::string SourcesTag(const analyzers::WorkFigures& figures);

// "compute", "memory", "overhead", "?"; "-" without a placement. Far below its roof (under
// RegimeThresholds::far_from_roof_fraction of it), "compute far", "memory far": bound by
// neither roof (latency, occupancy, small waves), whatever its intensity says.
std::string RegimeTag(const std::optional<analyzers::Placement>& placement);
// Why a placement has no regime, in words ("no FLOPs known", "no GPU time", ...); "" when it has
// one. By the JSON's name too ("no_flops"), for the outputs that read the model's JSON.
std::string UnplacedText(analyzers::UnplacedReason reason);
std::string UnplacedText(std::string_view reason_name);
// "FLOPs for 10 of 103 launches" when a placement's rates cover only the launches whose FLOPs
// are known; "" when they cover all.
std::string FlopsBasisText(const analyzers::Placement& placement);
std::string FlopsBasisText(uint64_t calls_with_flops, uint64_t calls);
// Both, for the line under a row: "FLOPs for 10 of 103 launches; regime ?: no FLOPs known".
std::string PlacementNote(const analyzers::Placement& placement);
// The regimes in the order the outputs list them, by their JSON names.
inline constexpr std::array<std::string_view, 4> kRegimeNames = {"compute_bound", "memory_bound",
                                                                 "overhead_bound", "unknown"};
// The colour of a regime by its JSON name (compute_bound, memory_bound, overhead_bound, unknown).
std::string_view RegimeColor(std::string_view regime);
// A regime, or any other key of the model, in words: "compute_bound" -> "compute bound"; "-"
// when empty.
std::string RegimeText(std::string_view regime);

// The roof of a compute path: "fp32-cuda", "tf32-tensor", "fp16-tensor-fp16acc".
std::string RoofPathLabel(analyzers::ComputePath path);
// The roofs a placement used: "roof fp32-cuda datasheet", with the DRAM roof's source when it
// differs ("roof tf32-tensor measured, dram datasheet"); "" without a compute roof.
std::string RoofText(const analyzers::Placement& placement);

// "<<<8x8, 128>>>": grid and block as a launch writes them, trailing ones dropped.
std::string LaunchShape(const std::array<uint32_t, 3>& grid, const std::array<uint32_t, 3>& block);

// A kernel's short name: the function's own name without namespace, template and parameters
// ("vectorized_elementwise_kernel", "sm90_xmma_gemm_..."); never empty or a bare bracket;
// "(unnamed kernel)" without a name.
std::string KernelShortName(std::string_view name);

// The catalog's reading first (functor and shape, so that they survive a cut), then the
// function's own name: "mul [n=1000] · vectorized_elementwise_kernel".
std::string KernelLabel(std::string_view name, std::string_view functor, std::string_view shape);
// A group's label shows its operation even when the catalog has no model of it ("gelu").
std::string KernelLabel(const analyzers::KernelGroup& group);

// A library row's shape: "64x128x32", "64x128x32 b4" when batched.
std::string LibraryDims(int64_t m, int64_t n, int64_t k, int64_t batch);
// The same, and for a grouped GEMM whose groups differ: "3 groups, 6 problems: 64x128x32 b2,
// 16x8x256, 100x10x10 b3" (at most kShownGroups groups, then "and 66 more"), "(first call;
// others differ)" when the row's calls had other groups; "3 groups, the first 64x128x32" when
// its groups are not in the trace.
inline constexpr size_t kShownGroups = 4;
std::string LibraryShapeText(const analyzers::LibraryGroup& group);

// A copy's direction in words: "host to device", "by pointer (default)", "?".
std::string_view CopyDirectionText(trace::CopyKind kind);
// A memory kind as the text report writes it: its schema name, "?" when unknown.
std::string_view MemoryText(trace::MemoryKind kind);

}  // namespace flopspy::tools
