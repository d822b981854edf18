#include "report/text_libraries.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <vector>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "report/format.h"
#include "report/text_labels.h"
#include "report/text_table.h"

namespace flopspy::tools {
namespace {

using analyzers::LibraryGroup;

bool Applies(uint8_t type) {
  return type != analyzers::kNotApplicable;
}

// "R_16BF", or "R_16F x R_8I + R_32F -> R_32F" when the operands differ; then the compute
// type, the transposes and an epilogue other than the default.
std::string Types(const LibraryGroup& g) {
  const auto& s = g.shape;
  const auto name = [](uint8_t t) { return std::string(analyzers::DataTypeName(t)); };
  std::string types = name(s.type_a);
  if (Applies(s.type_b) && s.type_b != s.type_a) types += " x " + name(s.type_b);
  if (Applies(s.type_c) && s.type_c != s.type_a && s.type_c != s.type_d) {
    types += " + " + name(s.type_c);
  }
  if (Applies(s.type_d) && s.type_d != s.type_a) types += " -> " + name(s.type_d);
  if (Applies(s.compute_type)) {
    types += ", compute " + std::string(analyzers::ComputeTypeName(s.compute_type));
  }
  if (Applies(s.scale_type) && s.scale_type != s.type_d) types += ", scale " + name(s.scale_type);
  const auto op = [](uint8_t t) { return t == 0 ? 'N' : t == 1 ? 'T' : t == 2 ? 'C' : '?'; };
  if (Applies(s.trans_a) && Applies(s.trans_b)) {
    types += fmt::format(", {}{}", op(s.trans_a), op(s.trans_b));
  }
  if (s.epilogue > analyzers::lt_epilogue::kDefault) {
    types += ", epilogue " + std::string(analyzers::EpilogueName(s.epilogue));
  }
  return types;
}

// FLOP per byte: the placement's (calls with a GPU time), else over every call.
std::string Intensity(const LibraryGroup& g) {
  if (g.placement && g.placement->intensity) return Significant(*g.placement->intensity);
  if (g.source == trace::FigureSource::kUnknown || g.bytes <= 0) return "-";
  return Significant(g.flops / g.bytes);
}

}  // namespace

void PrintLibraryTable(const TraceReport& t, std::ostream& out, size_t limit) {
  // NCCL calls have a section of their own (communication_text.h): no roofline says them.
  std::vector<const LibraryGroup*> rows;
  for (const LibraryGroup& g : t.run.libraries) {
    if (!analyzers::IsCommRoutine(analyzers::BlasRoutineFromId(g.routine_id))) rows.push_back(&g);
  }
  if (rows.empty()) return;
  fmt::print(out, "\n  cuBLAS, cuBLASLt and cuDNN calls by GPU time\n");
  TextTable table({{"calls"},
                   {"GPU"},
                   {"mean"},
                   {"FLOPs"},
                   {"epilogue"},
                   {"bytes"},
                   {"FLOP/B"},
                   {"FLOP/s"},
                   {"%roof"},
                   {"regime", TextTable::Align::kLeft},
                   {"src", TextTable::Align::kLeft}});
  size_t shown = 0;
  for (const LibraryGroup* row : rows) {
    if (shown++ == limit) break;
    const LibraryGroup& g = *row;
    const auto& p = g.placement;
    const bool known = g.source != trace::FigureSource::kUnknown;
    const double executions = analyzers::CallExecutions(g);
    table.AddRow({GroupedCount(executions), g.gpu_ns > 0 ? Duration(g.gpu_ns) : "-",
                  g.gpu_ns > 0 && executions > 0 ? Duration(g.gpu_ns / executions) : "-",
                  FigureText(g.flops, g.source), FigureText(g.epilogue_flops, g.source),
                  FigureText(g.bytes, g.source), Intensity(g),
                  p && known ? RateText(p->achieved_flops) : "-",
                  p ? PctText(p->pct_of_attainable) : "-", RegimeTag(p), SourceTag(g.source)});
    std::string detail = g.routine + " " + LibraryShapeText(g) + " " + Types(g);
    if (g.captured_calls > 0) {
      detail += fmt::format("; {} captured into CUDA graphs, replayed {} times",
                            Counted(g.captured_calls, "call", "calls"),
                            GroupedCount(executions - static_cast<double>(g.calls)));
    }
    if (p) {
      if (const std::string roof = RoofText(*p); !roof.empty()) detail += "; " + roof;
      if (const std::string note = PlacementNote(*p); !note.empty()) detail += "; " + note;
    }
    table.AddDetailText(detail);
    for (const auto& f : g.findings) {
      if (f.severity != analyzers::FindingSeverity::kInfo) table.AddDetailText(f.sentence, "! ");
    }
  }
  table.Print(out);
  if (rows.size() > limit) fmt::print(out, "{}", MoreLine(rows.size() - limit, "shape", "shapes"));
  const bool any_captured = std::any_of(
      rows.begin(), rows.end(), [](const LibraryGroup* g) { return g->captured_calls > 0; });
  fmt::print(out, "{}",
             Paragraph(fmt::format("FLOPs: the main operation (analytic, from the call's "
                                   "arguments); epilogue: bias and activation FLOPs, counted "
                                   "apart; bytes: the least DRAM traffic the call needs; {}mean: "
                                   "GPU time per call; under each row: data types, compute type, "
                                   "transposes, the roof and the shape's diagnostics (!).",
                                   any_captured ? "calls: those made, and each graph replay of a "
                                                  "call captured into a CUDA graph; "
                                                : ""),
                       "  ", "  "));
}

}  // namespace flopspy::tools
