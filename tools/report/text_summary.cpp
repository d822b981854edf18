#include "report/text_summary.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/flop_coverage_report.h"
#include "report/format.h"
#include "report/text_labels.h"

namespace flopspy::tools {
namespace {

// "1.5 G", and "0" rather than "0 ".
std::string Si(double v) {
  std::string s = SiValue(v);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string Flops(const FlopsBySource& f) {
  return fmt::format("{}FLOP with a known figure: analytic {}, catalog {}, counters {}",
                     SiValue(f.known()), Si(f.flops[1]), Si(f.flops[2]), Si(f.flops[3]));
}

std::string Percent(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}

// Shares of a peak: two significant digits below 1%, so that a small share does not read as zero.
std::string Share(double fraction) {
  const double pct = 100 * fraction;
  return pct > 0 && pct < 1 ? fmt::format("{:.2g}%", pct) : fmt::format("{:.1f}%", pct);
}

// The counted (analytic) FLOPs over the active span against the nominal roof, with their
// coverage, and HFU from counters. MFU needs the model's FLOPs: the Steps section has it
// (docs/gpu-peaks.md, "Which figure is which").
std::string Utilization(const analyzers::DeviceActivity& a) {
  const std::optional<analyzers::Utilization>& u = a.utilization;
  if (!u) return "utilisation unknown: no roofs for this GPU, or no active span";
  const std::string roof = RoofPathLabel(u->roof_path);
  std::string text;
  if (u->mfu) {
    text =
        fmt::format("counted FLOPs (analytic) achieved {} of {} {}FLOP/s ({})", Share(*u->mfu),
                    roof, SiValue(u->nominal_peak), analyzers::RoofSourceName(u->nominal_source));
    if (u->mfu_measured) {
      text += fmt::format(", {} of its measured {}FLOP/s", Share(*u->mfu_measured),
                          SiValue(u->measured_peak));
    }
    text += fmt::format(", over the {} of kernel time they cover",
                        Percent(analyzers::AnalyticCoverage(a)));
  } else {
    text = "no analytic (cuBLAS) FLOPs to set against the peak";
  }
  if (u->hfu) {
    text += fmt::format("; HFU {} (counters)", Share(*u->hfu));
    if (u->hfu_measured) text += fmt::format(", {} of measured", Share(*u->hfu_measured));
  } else {
    text += "; HFU unknown (no counter FLOPs)";
  }
  return text;
}

}  // namespace

std::string RoofsDescription(const analyzers::DeviceRoofs& r) {
  bool datasheet = false, computed = false;
  std::string measured;
  for (int p = 1; p < analyzers::kComputePathCount; ++p) {
    const analyzers::Roof& roof = r.flops[p];
    datasheet = datasheet || roof.nominal_source == analyzers::RoofSource::kDatasheet;
    computed = computed || roof.nominal_source == analyzers::RoofSource::kComputed;
    if (roof.measured > 0) {
      measured +=
          (measured.empty() ? "" : ", ") + RoofPathLabel(static_cast<analyzers::ComputePath>(p));
    }
  }
  for (size_t l = 0; l < analyzers::kMemoryLevelCount; ++l) {
    if (r.bandwidth[l].measured > 0) {
      measured += (measured.empty() ? "" : ", ") +
                  std::string(analyzers::MemoryLevelName(static_cast<analyzers::MemoryLevel>(l)));
    }
  }
  std::string text;
  if (datasheet) {
    text = r.table_key.empty() ? "datasheet roofs" : "datasheet roofs of " + r.table_key;
    if (computed) text += " (some computed)";
  } else if (computed) {
    text = "computed roofs (SMs x clock x operations per clock)";
  } else {
    text = "no nominal roofs";
  }
  text += measured.empty() ? "; none measured" : "; measured: " + measured;
  return text;
}

// Sampled GPU timing: what was timed, and what the estimates stand on.
std::string SamplingSentence(const analyzers::GpuSamplingFigures& g) {
  const uint64_t eager = g.launches_in_windows + g.launches_outside_windows;
  return fmt::format(
      "GPU times only in {} windows of {} every {}: {} of {} timed; {} of {} launches; kernel "
      "GPU time {} measured, {} estimated for every launch (each kernel row: the mean of its "
      "timed executions times its launches); busy time, steps and the launch-overhead verdict "
      "need every kernel's GPU time and are not given",
      g.windows, Duration(static_cast<double>(g.window_ns)),
      Duration(static_cast<double>(g.period_ns)), Duration(static_cast<double>(g.timed_ns)),
      Duration(static_cast<double>(g.span_ns)), Grouped(g.launches_in_windows), Grouped(eager),
      Duration(g.measured_gpu_ns), Duration(g.estimated_gpu_ns));
}

void PrintRunSummary(const TraceReport& t, const TraceTotals& s, std::ostream& out) {
  fmt::print(out, "\n  Run summary\n");
  fmt::print(out, "  wall      {} from the first event to the last\n",
             Duration(static_cast<double>(s.wall_ns)));
  std::string launches =
      s.launches > 0 ? Counted(s.launches, "kernel launch", "kernel launches") : "none";
  if (s.launches > 0 && !t.run.gpu_timing) {
    launches += "; no GPU times (GPU timing was off or CUPTI was unavailable)";
  } else if (t.run.unmatched_launches > 0) {
    launches += fmt::format("; {} without a GPU record", Grouped(t.run.unmatched_launches));
  }
  fmt::print(out, "{}", Paragraph(launches, "  launches  ", kLabelPad));
  if (const analyzers::GpuSamplingFigures& g = t.run.sampling; g.sampled) {
    fmt::print(out, "{}", Paragraph(SamplingSentence(g), "  sampled   ", kLabelPad));
  }
  if (t.run.kernels.empty() && s.devices.empty()) return;  // no GPU work at all
  if (!t.run.gpu_timing) {
    fmt::print(out, "{}", Paragraph(s.regime.sentence, "  regime    ", kLabelPad));
    return;
  }
  fmt::print(out, "{}", Paragraph(Flops(s.flops), "  FLOPs     ", kLabelPad));
  PrintFlopCoverage(s.coverage, out);
  if (s.devices.size() > 1) {
    std::string pooled = fmt::format("{} busy over the GPUs' pooled {} window",
                                     s.busy_fraction ? Percent(*s.busy_fraction) : "-",
                                     Duration(static_cast<double>(s.gpu_window_ns)));
    if (s.achieved_flops_per_s) {
      pooled += fmt::format("; {}FLOP/s achieved over it", SiValue(*s.achieved_flops_per_s));
    }
    fmt::print(out, "{}", Paragraph(pooled, "  GPUs      ", kLabelPad));
  }
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const DeviceTotals& d = s.devices[i];
    const analyzers::DeviceActivity& a = t.run.devices[i];
    std::string name = "unnamed GPU";
    if (const auto p = t.devices.find(d.device); p != t.devices.end() && !p->second.name.empty()) {
      name = p->second.name;
    }
    const auto roofs = t.roofs.find(d.device);
    const std::string label = fmt::format("  {:<10}", fmt::format("GPU {}", d.device));
    fmt::print(out, "{}",
               Paragraph(name + ": " +
                             (roofs != t.roofs.end() ? RoofsDescription(roofs->second)
                                                     : std::string("no roofs known for this GPU")),
                         label, kLabelPad));
    if (t.run.sampling.sampled) {
      // Busy time and rates over the span need every kernel's GPU time.
      fmt::print(
          out, "{}",
          Paragraph(fmt::format("inside the sampled windows: kernels {}, {}", Duration(d.kernel_ns),
                                d.copy_ns > 0 ? "copies " + Duration(d.copy_ns) : "no copies"),
                    kLabelPad, kLabelPad));
      continue;
    }
    std::string busy = d.busy_fraction ? "busy " + Percent(*d.busy_fraction) + " of" : "over";
    busy += fmt::format(" its {} active span: kernels {}, {}", Duration(d.active_ns),
                        Duration(d.kernel_ns),
                        d.copy_ns > 0 ? "copies " + Duration(d.copy_ns) : "no copies");
    fmt::print(out, "{}", Paragraph(busy, kLabelPad, kLabelPad));
    if (s.devices.size() > 1) {
      fmt::print(out, "{}", Paragraph("FLOPs " + Flops(d.flops), kLabelPad, kLabelPad));
    }
    if (d.achieved_flops_per_s) {
      fmt::print(out, "{}achieved {}FLOP/s over the active span\n", kLabelPad,
                 SiValue(*d.achieved_flops_per_s));
    }
    // One GPU's coverage is the trace's, printed above.
    if (s.devices.size() > 1 && d.coverage.kernel_ns > 0) {
      fmt::print(out, "{}", Paragraph(FlopCoverageSentence(d.coverage), kLabelPad, kLabelPad));
    }
    fmt::print(out, "{}", Paragraph(Utilization(a), kLabelPad, kLabelPad));
  }
  fmt::print(out, "{}", Paragraph(s.regime.sentence, "  regime    ", kLabelPad));
}

}  // namespace flopspy::tools
