// The analysis sections of the terminal report: GPUs, top kernels, library calls, copies.
#include "report/text_sections.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <sstream>

#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/demangle.h"
#include "report/counter_check.h"
#include "report/format.h"
#include "report/text_table.h"

namespace flopspy::tools {
namespace {

using analyzers::KernelGroup;
using analyzers::LibraryGroup;

std::string Pct(std::optional<double> v) {
  return v ? fmt::format("{:.0f}%", *v) : "-";
}
std::string Rate(std::optional<double> v) {
  return v ? SiValue(*v) : "-";
}
std::string Number(double v, int precision = 3) {
  if (!std::isfinite(v)) return "-";
  return fmt::format("{:.{}g}", v, precision);
}

std::string SourceTag(trace::FigureSource s) {
  switch (s) {
    case trace::FigureSource::kAnalytic:
      return "anl";
    case trace::FigureSource::kCatalog:
      return "cat";
    case trace::FigureSource::kCounters:
      return "ctr";
    case trace::FigureSource::kUnknown:
      break;
  }
  return "?";
}

std::string RegimeTag(const std::optional<analyzers::Placement>& p) {
  if (!p) return "-";
  switch (p->regime) {
    case analyzers::Regime::kComputeBound:
      return "compute";
    case analyzers::Regime::kMemoryBound:
      return "memory";
    case analyzers::Regime::kOverheadBound:
      return "overhead";
    case analyzers::Regime::kUnknown:
      break;
  }
  return "?";
}

// A name that fits: the catalog's reading (functor and shape first, so that they survive
// truncation), then the function's base name.
std::string KernelLabel(const KernelGroup& g) {
  if (g.name.empty()) return "(unnamed kernel)";
  const analyzers::FunctionNameParts parts = analyzers::SplitFunctionName(g.name);
  std::string label;
  if (!g.functor.empty()) label = g.functor + " ";
  if (!g.shape_key.empty()) label += "[" + g.shape_key + "] ";
  if (!label.empty()) label += "· ";
  return label + (parts.base.empty() ? g.name : std::string(parts.base));
}

void PrintDevices(const TraceReport& t, std::ostream& out) {
  for (const auto& d : t.run.devices) {
    std::string name = fmt::format("GPU {}", d.device);
    if (const auto p = t.devices.find(d.device); p != t.devices.end()) {
      name += " " + p->second.name;
    }
    std::string roofs = "no roofs known for this GPU";
    if (const auto r = t.roofs.find(d.device); r != t.roofs.end()) {
      roofs = r->second.table_key.empty() ? "computed roofs" : "roofs of " + r->second.table_key;
    }
    const double active = d.last_ns > d.first_ns ? static_cast<double>(d.last_ns - d.first_ns) : 0;
    fmt::print(out, "  gpu       {} ({}): kernels {} and copies {} in an active span of {}\n", name,
               roofs, Duration(d.kernel_ns), Duration(d.copy_ns), Duration(active));
    const double total = d.kernel_ns_by_source[0] + d.kernel_ns_by_source[1] +
                         d.kernel_ns_by_source[2] + d.kernel_ns_by_source[3];
    if (total > 0) {
      fmt::print(
          out,
          "            kernel time with FLOPs known from: analytic {:.0f}%, catalog {:.0f}%, "
          "counters {:.0f}%, unknown {:.0f}%\n",
          100 * d.kernel_ns_by_source[1] / total, 100 * d.kernel_ns_by_source[2] / total,
          100 * d.kernel_ns_by_source[3] / total, 100 * d.kernel_ns_by_source[0] / total);
    }
    if (d.utilization && d.utilization->mfu) {
      const auto& u = *d.utilization;
      fmt::print(out, "            MFU {:.1f}% of {} {}FLOP/s ({})", 100 * *u.mfu,
                 analyzers::ComputePathName(u.roof_path), SiValue(u.nominal_peak),
                 analyzers::RoofSourceName(u.nominal_source));
      if (u.hfu) fmt::print(out, ", HFU {:.1f}% (counters)", 100 * *u.hfu);
      fmt::print(out, "\n");
    }
  }
}

// "cat" when FLOPs and bytes share their source, else "flops/bytes" ("?/cat": bytes from the
// catalog, FLOPs unknown).
std::string SourcesTag(const analyzers::WorkFigures& w) {
  if (w.flops_source == w.bytes_source) return SourceTag(w.flops_source);
  return SourceTag(w.flops_source) + "/" + SourceTag(w.bytes_source);
}

// FLOP per byte of a row: the placement's (timed launches) when there is one, else over every
// launch when both figures are known.
std::string Intensity(const KernelGroup& g) {
  if (g.placement && g.placement->intensity) return Number(*g.placement->intensity);
  const analyzers::WorkFigures& w = g.all;
  if (w.flops_source == trace::FigureSource::kUnknown ||
      w.bytes_source == trace::FigureSource::kUnknown || w.bytes <= 0) {
    return "-";
  }
  return Number(w.flops / w.bytes);
}

std::string Figure(double value, trace::FigureSource source) {
  return source == trace::FigureSource::kUnknown ? "-" : SiValue(value);
}

void PrintKernels(const TraceReport& t, std::ostream& out, size_t limit) {
  if (t.run.kernels.empty()) return;
  double total = 0;
  for (const auto& g : t.run.kernels) total += g.gpu_ns;
  fmt::print(out, "\n  Kernels by GPU time{}\n",
             t.run.gpu_timing ? "" : " (no GPU records: launch counts and CPU cost only)");
  TextTable table({{"GPU %"},
                   {"total"},
                   {"count"},
                   {"mean"},
                   {"launch"},
                   {"FLOPs"},
                   {"bytes"},
                   {"FLOP/B"},
                   {"FLOP/s"},
                   {"B/s"},
                   {"%roof"},
                   {"regime", TextTable::Align::kLeft},
                   {"src", TextTable::Align::kLeft},
                   {"kernel", TextTable::Align::kLeft}});
  table.WrapLastColumn();
  size_t shown = 0;
  for (const KernelGroup& g : t.run.kernels) {
    if (shown++ == limit) break;
    const auto& p = g.placement;
    const uint64_t count = g.executions ? g.executions : g.launches;
    table.AddRow({total > 0 ? fmt::format("{:.1f}", 100 * g.gpu_ns / total) : "-",
                  g.executions ? Duration(g.gpu_ns) : "-", Grouped(count),
                  g.executions ? Duration(g.gpu_ns / static_cast<double>(g.executions)) : "-",
                  g.launches ? Duration(g.launch_ns / static_cast<double>(g.launches)) : "-",
                  Figure(g.all.flops, g.all.flops_source), Figure(g.all.bytes, g.all.bytes_source),
                  Intensity(g), p ? Rate(p->achieved_flops) : "-",
                  p ? Rate(p->achieved_bandwidth) : "-", p ? Pct(p->pct_of_attainable) : "-",
                  RegimeTag(p), SourcesTag(g.all), KernelLabel(g)});
  }
  table.Print(out);
  if (t.run.kernels.size() > limit) {
    fmt::print(out, "  ... {} more kernel signatures (--json has all)\n",
               t.run.kernels.size() - limit);
  }
  fmt::print(out,
             "  FLOPs and bytes: every launch of the row; src: where they come from (anl "
             "analytic, cat catalog, ctr counters, ? unknown; FLOPs/bytes when they differ)\n");
}

// Kernels measured with GPU counters (FLOPSPY_COUNTERS=1) that the catalog also models: both
// figures per launch and the difference; "!" marks a catalog entry more than 10% off.
void PrintCounterCheck(const TraceReport& t, std::ostream& out, size_t limit) {
  TextTable table({{"samples"},
                   {"FLOPs ctr"},
                   {"FLOPs cat"},
                   {"diff"},
                   {"bytes ctr"},
                   {"bytes cat"},
                   {"diff"},
                   {"", TextTable::Align::kLeft},
                   {"kernel", TextTable::Align::kLeft}});
  size_t shown = 0, flagged = 0, disagree = 0;
  for (const KernelGroup& g : t.run.kernels) {
    if (g.counter_samples == 0) continue;
    const CounterCheck c = CheckCounters(g);
    flagged += c.catalog_off ? 1 : 0;
    disagree += c.samples_disagree ? 1 : 0;
    if (!c.catalog_flops && !c.catalog_bytes) continue;  // counters only: the kernel table has it
    if (shown++ == limit) continue;
    const auto value = [](bool valid, double v) { return valid ? SiValue(v) : "-"; };
    const auto model = [](const std::optional<double>& v) { return v ? SiValue(*v) : "-"; };
    const auto diff = [](const std::optional<double>& d) {
      return d ? fmt::format("{:+.0f}%", *d) : "-";
    };
    table.AddRow({Grouped(g.counter_samples),
                  value(analyzers::CounterFlopsValid(g), g.counter_flops), model(c.catalog_flops),
                  diff(c.flops_diff_pct), value(analyzers::CounterBytesValid(g), g.counter_bytes),
                  model(c.catalog_bytes), diff(c.bytes_diff_pct),
                  std::string(c.catalog_off ? "!" : "") + (c.samples_disagree ? "~" : ""),
                  KernelLabel(g)});
  }
  if (table.empty()) return;
  fmt::print(out, "\n  GPU counters against the kernel catalog, per launch\n");
  table.Print(out);
  if (shown > limit) fmt::print(out, "  ... {} more (--json has all)\n", shown - limit);
  if (flagged > 0) {
    fmt::print(out, "  ! {} catalog entr{} more than 10% from the counters\n", flagged,
               flagged == 1 ? "y is" : "ies are");
  }
  if (disagree > 0) {
    fmt::print(out, "  ~ the counter samples of {} kernel{} disagree by more than 1%\n", disagree,
               disagree == 1 ? "" : "s");
  }
}

std::string Shape(const LibraryGroup& g) {
  const auto& s = g.shape;
  std::string shape = fmt::format("{}x{}x{}", s.m, s.n, s.k);
  if (s.batch > 1) shape += fmt::format(" b{}", s.batch);
  return shape;
}

void PrintLibraries(const TraceReport& t, std::ostream& out, size_t limit) {
  if (t.run.libraries.empty()) return;
  fmt::print(out, "\n  cuBLAS / cuBLASLt calls by GPU time\n");
  TextTable table({{"calls"},
                   {"GPU"},
                   {"FLOPs"},
                   {"FLOP/s"},
                   {"FLOP/B"},
                   {"%roof"},
                   {"roof", TextTable::Align::kLeft},
                   {"types", TextTable::Align::kLeft},
                   {"m x n x k", TextTable::Align::kLeft},
                   {"routine", TextTable::Align::kLeft}});
  size_t shown = 0;
  std::vector<std::string> findings;
  for (const LibraryGroup& g : t.run.libraries) {
    if (shown++ == limit) break;
    const auto& p = g.placement;
    std::string types(analyzers::DataTypeName(g.shape.type_a));
    if (g.shape.type_d != g.shape.type_a && g.shape.type_d != 0xFF) {
      types += "->" + std::string(analyzers::DataTypeName(g.shape.type_d));
    }
    table.AddRow({Grouped(g.calls), g.gpu_ns > 0 ? Duration(g.gpu_ns) : "-", SiValue(g.flops),
                  p ? Rate(p->achieved_flops) : "-",
                  p && p->intensity ? Number(*p->intensity) : "-", p ? Pct(p->pct_of_peak) : "-",
                  p ? std::string(analyzers::ComputePathName(p->roof_path)) : "-", types, Shape(g),
                  g.routine});
    for (const auto& f : g.findings) {
      if (f.severity != analyzers::FindingSeverity::kInfo) {
        findings.push_back(g.routine + " " + Shape(g) + ": " + f.sentence);
      }
    }
  }
  table.Print(out);
  for (const auto& f : findings) fmt::print(out, "  - {}\n", f);
}

void PrintCopies(const TraceReport& t, std::ostream& out) {
  bool any_gpu = false;
  for (const auto& c : t.run.copies) any_gpu = any_gpu || c.from_gpu;
  TextTable table({{"count"},
                   {"bytes"},
                   {"time"},
                   {"B/s"},
                   {"op", TextTable::Align::kLeft},
                   {"direction", TextTable::Align::kLeft},
                   {"memory", TextTable::Align::kLeft}});
  for (const auto& c : t.run.copies) {
    if (c.from_gpu != any_gpu) continue;  // GPU records when there are any, else API calls
    const auto memory = [](trace::MemoryKind k) {
      switch (k) {
        case trace::MemoryKind::kPageable:
          return "pageable";
        case trace::MemoryKind::kPinned:
          return "pinned";
        case trace::MemoryKind::kDevice:
          return "device";
        case trace::MemoryKind::kManaged:
          return "managed";
        case trace::MemoryKind::kArray:
          return "array";
        case trace::MemoryKind::kUnknown:
          break;
      }
      return "?";
    };
    const auto direction = [](trace::CopyKind k) {
      switch (k) {
        case trace::CopyKind::kHostToDevice:
          return "host to device";
        case trace::CopyKind::kDeviceToHost:
          return "device to host";
        case trace::CopyKind::kDeviceToDevice:
          return "device to device";
        case trace::CopyKind::kHostToHost:
          return "host to host";
        case trace::CopyKind::kPeer:
          return "peer";
        case trace::CopyKind::kDefault:
          return "by pointer (default)";
        case trace::CopyKind::kUnknown:
          break;
      }
      return "?";
    };
    table.AddRow({Grouped(c.count), SiValue(c.bytes) + "B", Duration(c.ns),
                  c.ns > 0 ? SiValue(c.bytes / c.ns * 1e9) : "-", c.is_set ? "memset" : "memcpy",
                  direction(c.kind), fmt::format("{} -> {}", memory(c.src), memory(c.dst))});
  }
  if (table.empty()) return;
  fmt::print(out, "\n  Copies and sets ({})\n",
             any_gpu ? "GPU time" : "CPU time of the calls; no GPU records");
  table.Print(out);
}

void PrintAdvice(const TraceReport& t, std::ostream& out) {
  if (t.advice.empty()) return;
  fmt::print(out, "\n  Advice\n");
  int n = 0;
  for (const auto& a : t.advice) {
    std::string text = a.finding + " " + a.action;
    if (a.gain_ns) {
      text += " Estimated gain: " + Duration(*a.gain_ns) + " (" + a.gain_basis + ").";
    }
    fmt::print(out, "  {:>2}. {}\n", ++n, Wrap(text, 94, 6));
  }
}

void PrintRegions(const TraceReport& t, std::ostream& out) {
  if (t.regions.empty()) return;
  fmt::print(out, "\n  Marked regions\n");
  TextTable table(
      {{"count"}, {"total"}, {"mean"}, {"p50"}, {"p95"}, {"region", TextTable::Align::kLeft}});
  for (const auto& r : t.regions) {
    table.AddRow({Grouped(r.count), Duration(r.total_ns),
                  r.count ? Duration(r.total_ns / static_cast<double>(r.count)) : "-",
                  Duration(r.durations.Percentile(50)), Duration(r.durations.Percentile(95)),
                  r.name + (r.open ? fmt::format(" ({} never ended)", r.open) : "")});
  }
  table.Print(out);
}

void PrintCpuRoofline(const TraceReport& t, std::ostream& out) {
  if (!t.cpu_roofline) return;
  fmt::print(out, "\n  CPU roofline\n");
  std::istringstream lines(cpuroof::FormatCpuRooflineTable(*t.cpu_roofline));
  for (std::string line; std::getline(lines, line);) fmt::print(out, "  {}\n", line);
}

}  // namespace

void WriteAnalysisSections(const TraceReport& t, std::ostream& out) {
  if (!t.usable()) return;
  fmt::print(out, "  launches  {} kernel launches", Grouped(t.run.launches));
  if (t.run.launches > 0 && !t.run.gpu_timing) {
    fmt::print(out, ", no GPU times (GPU timing was off or CUPTI was unavailable)");
  } else if (t.run.unmatched_launches > 0) {
    fmt::print(out, ", {} without a GPU record", Grouped(t.run.unmatched_launches));
  }
  fmt::print(out, "\n");
  PrintDevices(t, out);
  PrintKernels(t, out, 15);
  PrintCounterCheck(t, out, 15);
  PrintLibraries(t, out, 10);
  PrintCopies(t, out);
  PrintRegions(t, out);
  PrintCpuRoofline(t, out);
  PrintAdvice(t, out);
}

}  // namespace flopspy::tools
