#include "report/launch_overhead_section.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/display_text.h"
#include "flopspy/platform/terminal_text.h"
#include "report/format.h"
#include "report/text_style.h"
#include "report/text_table.h"

namespace flopspy::tools {
namespace {

using analyzers::GapKind;
using analyzers::LaunchOverheadReport;
using analyzers::OverheadRule;
using analyzers::OverheadVerdict;
using analyzers::SignatureOverhead;

std::string PctOneDecimal(double fraction) {
  return fmt::format("{:.1f}%", 100.0 * fraction);
}

// "1024x2" for grid (1024, 2, 1): trailing ones dropped.
std::string Dims(const std::array<uint32_t, 3>& d) {
  if (d[2] != 1) return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
  if (d[1] != 1) return fmt::format("{}x{}", d[0], d[1]);
  return fmt::format("{}", d[0]);
}

std::string Cut(const std::string& raw, size_t width) {
  std::string s = platform::EscapeControls(raw);  // kernel names come from the trace
  if (s.size() <= width) return s;
  if (width <= 3) return s.substr(0, width);
  return s.substr(0, width - 3) + "...";
}

std::string StreamName(const analyzers::StreamOverhead& s) {
  if (s.stream_flags & trace::kStreamLegacyDefault) return "legacy default";
  if (s.stream_flags & trace::kStreamPerThreadDefault) return "per-thread default";
  if (s.stream_def == 0) return "-";
  return fmt::format("{:#x}", s.handle);
}

// Prints `text` in lines of at most `width` columns, breaking at spaces: the first line after
// `first`, the rest after `rest`.
void Wrap(std::ostream& out, std::string_view raw, std::string_view first, std::string_view rest,
          size_t width = 100) {
  const std::string visible = platform::EscapeControls(raw);  // notes may name kernels
  const std::string_view text = visible;
  size_t start = 0;
  bool first_line = true;
  while (start < text.size()) {
    const std::string_view prefix = first_line ? first : rest;
    const size_t room = width > prefix.size() + 20 ? width - prefix.size() : 20;
    size_t end = std::min(text.size(), start + room);
    if (end < text.size()) {
      const size_t space = text.rfind(' ', end);
      if (space != std::string_view::npos && space > start) end = space;
    }
    fmt::print(out, "{}{}\n", prefix, text.substr(start, end - start));
    first_line = false;
    start = end;
    while (start < text.size() && text[start] == ' ') ++start;
  }
}

nlohmann::json Stats(const analyzers::DurationStats& s) {
  if (s.count == 0) return nullptr;
  return {{"count", s.count},   {"total_ns", s.total_ns}, {"mean_ns", s.mean_ns},
          {"p50_ns", s.p50_ns}, {"p95_ns", s.p95_ns},     {"max_ns", s.max_ns}};
}

nlohmann::json Gaps(const analyzers::GapBreakdown& g) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t k = 0; k < analyzers::kGapKindCount; ++k) {
    const auto kind = static_cast<GapKind>(k);
    j[std::string(analyzers::GapKindName(kind))] = {{"count", g[kind].count}, {"ns", g[kind].ns}};
  }
  j["other"]["unattributed_count"] = g.unattributed.count;
  j["other"]["unattributed_ns"] = g.unattributed.ns;
  return j;
}

}  // namespace

std::string LaunchOverheadVerdictSentence(const LaunchOverheadReport& r) {
  const analyzers::OverheadJudgement& j = r.judgement;
  const std::string window = Duration(static_cast<double>(j.window_ns));
  std::string s;
  switch (j.rule) {
    case OverheadRule::kNoGpuTimes:
      return "cannot tell: the trace has no GPU times (no CUPTI activity records), so idle time "
             "cannot be measured";
    case OverheadRule::kNoWindow:
      return "cannot tell: the GPU work in the trace has no duration";
    case OverheadRule::kSampledGpuTimes:
      return "not judged: GPU times were sampled in windows, so the GPU's idle time between "
             "them is unknown (run with GPU timing on for the verdict)";
    case OverheadRule::kUnattributed:
      return fmt::format(
          "cannot tell: for {} of the {} GPU window the GPU idled before work whose launch is "
          "not in the trace",
          PctOneDecimal(j.unattributed_fraction), window);
    case OverheadRule::kStarved:
      s = fmt::format(
          "overhead bound: the GPU waited for kernel launches {} of its {} window and was busy {}",
          PctOneDecimal(j.starved_fraction), window, PctOneDecimal(j.busy_fraction));
      break;
    case OverheadRule::kStarvedAndLaunchBound:
      s = fmt::format(
          "overhead bound: the GPU waited for kernel launches {} of its {} window and spent {} "
          "more running kernels shorter than their launch",
          PctOneDecimal(j.starved_fraction), window, PctOneDecimal(j.launch_bound_fraction));
      break;
    case OverheadRule::kPartlyStarved:
      s = fmt::format(
          "partly overhead bound: the GPU waited for kernel launches {} of its {} window and was "
          "busy {}",
          PctOneDecimal(j.starved_fraction), window, PctOneDecimal(j.busy_fraction));
      break;
    case OverheadRule::kFed:
      s = fmt::format(
          "not overhead bound: the GPU was busy {} of its {} window and waited for kernel "
          "launches {}",
          PctOneDecimal(j.busy_fraction), window, PctOneDecimal(j.starved_fraction));
      break;
  }
  if (j.synchronized_fraction >= 0.10) {
    s += fmt::format("; it idled {} while the CPU was blocked in synchronising calls",
                     PctOneDecimal(j.synchronized_fraction));
  }
  return s;
}

std::string ShortKernelName(const SignatureOverhead& s, size_t width) {
  std::string name = s.demangled_name;
  if (name.empty()) name = analyzers::Demangle(s.mangled_name);
  if (name.empty()) return Cut("(unnamed kernel)", width);
  return Cut(analyzers::ShortenKernelName(name, width), width);
}

void WriteLaunchOverheadText(const LaunchOverheadReport& r,
                             const LaunchOverheadTextOptions& options, std::ostream& out) {
  if (r.empty()) return;
  const auto bold = [&](const std::string& s) { return TextStyle{options.color}.Bold(s); };
  fmt::print(out, "\n  {}\n", bold("Launch overhead"));
  Wrap(out, LaunchOverheadVerdictSentence(r), "  verdict   ", kLabelPad);

  // CPU side.
  if (r.kernel_launches > 0) {
    std::string rate = r.launches_per_second
                           ? fmt::format(", {}/s", GroupedCount(*r.launches_per_second + 0.5))
                           : "";
    Wrap(out,
         fmt::format("{}{}; cost mean {}, p50 {}, p95 {}",
                     Counted(r.kernel_launches, "kernel launch", "kernel launches"), rate,
                     Duration(r.launch_cost.mean_ns), Duration(r.launch_cost.p50_ns),
                     Duration(r.launch_cost.p95_ns)),
         "  launches  ", kLabelPad);
  }
  if (r.graph_launches > 0) {
    fmt::print(out, "{}{}; cost mean {}\n",
               r.kernel_launches > 0 ? std::string(kLabelPad) : "  launches  ",
               Counted(r.graph_launches, "graph launch", "graph launches"),
               Duration(r.graph_launch_cost.mean_ns));
  }
  if (r.queue_delay.count > 0) {
    fmt::print(out, "  queue     launch call to GPU start: mean {}, p50 {}, p95 {}\n",
               Duration(r.queue_delay.mean_ns), Duration(r.queue_delay.p50_ns),
               Duration(r.queue_delay.p95_ns));
  }
  if (r.sync_calls > 0) {
    fmt::print(out, "  syncs     {} held the CPU {}\n",
               Counted(r.sync_calls, "synchronising call", "synchronising calls"),
               Duration(static_cast<double>(r.sync_ns)));
  }

  // Graphs estimate.
  if (r.graphs.available) {
    const auto& g = r.graphs;
    fmt::print(out,
               "  graphs    estimate: at {} per kernel node instead of {} per launch, CUDA graphs\n"
               "{}would remove {} of starved idle time ({} of the GPU window)\n",
               Duration(g.node_cost_ns), Duration(g.mean_launch_ns), kLabelPad,
               Duration(g.saved_ns), PctOneDecimal(g.saved_fraction));
  }

  // Devices.
  if (!r.devices.empty()) {
    fmt::print(out, "  devices   {:<5} {:>9} {:>6} {:>8} {:>9} {:>12} {:>9} {:>8} {:>9}\n", "GPU",
               "window", "busy", "starved", "gaps", "synchronised", "gaps", "other", "gaps");
    for (const auto& d : r.devices) {
      const auto share = [&](GapKind k) {
        return PctOneDecimal(d.window_ns ? static_cast<double>(d.gaps[k].ns) /
                                               static_cast<double>(d.window_ns)
                                         : 0.0);
      };
      fmt::print(out, "{}{:<5} {:>9} {:>6} {:>8} {:>9} {:>12} {:>9} {:>8} {:>9}\n", kLabelPad,
                 d.device, Duration(static_cast<double>(d.window_ns)),
                 PctOneDecimal(d.busy_fraction), share(GapKind::kStarved),
                 Grouped(d.gaps[GapKind::kStarved].count), share(GapKind::kSynchronized),
                 Grouped(d.gaps[GapKind::kSynchronized].count), share(GapKind::kOther),
                 Grouped(d.gaps[GapKind::kOther].count));
    }
  }

  // Streams.
  if (!r.streams.empty()) {
    fmt::print(out, "  streams   {:<6} {:>6}  {:<20} {:>6} {:>10} {:>8}\n", "GPU", "stream",
               "handle", "busy", "kernels", "copies");
    const size_t n = std::min(options.top_streams, r.streams.size());
    for (size_t i = 0; i < n; ++i) {
      const auto& s = r.streams[i];
      fmt::print(out, "{}{:<6} {:>6}  {:<20} {:>6} {:>10} {:>8}\n", kLabelPad, s.device,
                 s.cupti_stream, Cut(StreamName(s), 20), PctOneDecimal(s.busy_fraction),
                 Grouped(s.kernels), Grouped(s.copies + s.sets));
    }
    if (r.streams.size() > n) {
      fmt::print(out, "{}... {} more streams\n", kLabelPad, Grouped(r.streams.size() - n));
    }
  }

  // Kernel signatures.
  uint64_t bound = 0, bound_launches = 0, bound_gpu_ns = 0;
  for (const SignatureOverhead& s : r.signatures) {
    if (!s.launch_bound) continue;
    ++bound;
    bound_launches += s.launches;
    bound_gpu_ns += s.gpu.total_ns;
  }
  if (bound > 0) {
    fmt::print(out, "  bound     {} of {} launch-bound: {}, {} of GPU time\n", Grouped(bound),
               Counted(r.signatures.size(), "signature", "signatures"),
               Counted(bound_launches, "launch", "launches"),
               Duration(static_cast<double>(bound_gpu_ns)));
  }
  if (!r.signatures.empty()) {
    const size_t n = std::min(options.top_signatures, r.signatures.size());
    fmt::print(out, "  kernels   top {} of {} by launch excess, then GPU time; * launch-bound\n",
               Grouped(n), Grouped(r.signatures.size()));
    // The name last, shortened by the one shortener; a long one goes on its own line.
    TextTable table({{"grid/block", TextTable::Align::kLeft},
                     {"calls"},
                     {"gpu tot"},
                     {"mean"},
                     {"p50"},
                     {"p95"},
                     {"launch"},
                     {"", TextTable::Align::kLeft},
                     {"kernel", TextTable::Align::kLeft}},
                    100, 4);
    table.WrapLastColumn();
    for (size_t i = 0; i < n; ++i) {
      const SignatureOverhead& s = r.signatures[i];
      const bool gpu = s.gpu.count > 0;
      const auto dur = [&](double ns) { return gpu ? Duration(ns) : std::string("-"); };
      table.AddRow({Cut(Dims(s.grid) + "/" + Dims(s.block), 13),
                    Grouped(std::max(s.launches, s.gpu.count)),
                    dur(static_cast<double>(s.gpu.total_ns)), dur(s.gpu.mean_ns), dur(s.gpu.p50_ns),
                    dur(s.gpu.p95_ns), s.mean_launch_ns ? Duration(*s.mean_launch_ns) : "-",
                    s.launch_bound ? "*" : "", ShortKernelName(s, 92)});
    }
    table.Print(out);
  }
  for (const std::string& note : r.notes) {
    Wrap(out, note, "  note      ", kLabelPad);
  }
}

nlohmann::json LaunchOverheadJson(const LaunchOverheadReport& r, size_t max_signatures) {
  nlohmann::json j;
  const auto& v = r.judgement;
  j["verdict"] = {{"verdict", std::string(analyzers::OverheadVerdictName(v.verdict))},
                  {"rule", std::string(analyzers::OverheadRuleName(v.rule))},
                  {"sentence", LaunchOverheadVerdictSentence(r)},
                  {"window_ns", v.window_ns},
                  {"busy_ns", v.busy_ns},
                  {"starved_ns", v.starved_ns},
                  {"synchronised_ns", v.synchronized_ns},
                  {"other_ns", v.other_ns},
                  {"unattributed_ns", v.unattributed_ns},
                  {"launch_bound_gpu_ns", v.launch_bound_gpu_ns},
                  {"busy_fraction", v.busy_fraction},
                  {"starved_fraction", v.starved_fraction},
                  {"synchronised_fraction", v.synchronized_fraction},
                  {"other_fraction", v.other_fraction},
                  {"unattributed_fraction", v.unattributed_fraction},
                  {"launch_bound_fraction", v.launch_bound_fraction}};
  j["launches"] = {
      {"kernel_launches", r.kernel_launches},
      {"failed_launches", r.failed_launches},
      {"graph_launches", r.graph_launches},
      {"captured_launches", r.captured_launches},
      {"launches_per_second",
       r.launches_per_second ? nlohmann::json(*r.launches_per_second) : nlohmann::json(nullptr)},
      {"cpu_first_ns", r.cpu_first_ns},
      {"cpu_last_ns", r.cpu_last_ns},
      {"launch_cost", Stats(r.launch_cost)},
      {"graph_launch_cost", Stats(r.graph_launch_cost)},
      {"queue_delay", Stats(r.queue_delay)},
      {"sync_calls", r.sync_calls},
      {"sync_ns", r.sync_ns}};
  j["gpu"] = {{"gpu_times", r.gpu_times},
              {"kernels", r.gpu_kernels},
              {"copies", r.gpu_copies},
              {"sets", r.gpu_sets},
              {"graph_kernels", r.graph_kernels},
              {"device_kernels", r.device_kernels},
              {"unmatched_launches", r.unmatched_launches},
              {"unmatched_gpu_records", r.unmatched_gpu},
              {"clock_anomalies", r.clock_anomalies},
              {"bad_gpu_records", r.bad_gpu_records}};
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : r.devices) {
    devices.push_back({{"device", d.device},
                       {"first_start_ns", d.first_start_ns},
                       {"window_ns", d.window_ns},
                       {"busy_ns", d.busy_ns},
                       {"busy_fraction", d.busy_fraction},
                       {"intervals", d.intervals},
                       {"gaps", Gaps(d.gaps)},
                       {"graphs_saved_ns", d.graphs_saved_ns}});
  }
  j["devices"] = devices;
  nlohmann::json streams = nlohmann::json::array();
  for (const auto& s : r.streams) {
    streams.push_back({{"device", s.device},
                       {"cupti_stream", s.cupti_stream},
                       {"stream_def", s.stream_def},
                       {"handle", s.handle},
                       {"stream_flags", s.stream_flags},
                       {"kernels", s.kernels},
                       {"copies", s.copies},
                       {"sets", s.sets},
                       {"busy_ns", s.busy_ns},
                       {"busy_fraction", s.busy_fraction}});
  }
  j["streams"] = streams;
  nlohmann::json sigs = nlohmann::json::array();
  for (size_t i = 0; i < r.signatures.size() && i < max_signatures; ++i) {
    const SignatureOverhead& s = r.signatures[i];
    sigs.push_back(
        {{"name",
          s.demangled_name.empty() ? analyzers::Demangle(s.mangled_name) : s.demangled_name},
         {"mangled_name", s.mangled_name},
         {"grid", s.grid},
         {"block", s.block},
         {"launches", s.launches},
         {"failed_launches", s.failed_launches},
         {"launch_ns", s.launch_ns},
         {"mean_launch_ns",
          s.mean_launch_ns ? nlohmann::json(*s.mean_launch_ns) : nlohmann::json(nullptr)},
         {"gpu", Stats(s.gpu)},
         {"without_launch", s.without_launch},
         {"queued", s.queued},
         {"mean_queue_delay_ns", s.queued ? nlohmann::json(s.mean_queue_delay_ns) : nullptr},
         {"launch_bound", s.launch_bound},
         {"overhead_reason", std::string(analyzers::OverheadReasonName(s.overhead_reason))},
         {"launch_excess_ns", s.launch_excess_ns}});
  }
  j["signatures"] = sigs;
  j["signatures_total"] = r.signatures.size();
  if (r.graphs.available) {
    const auto& g = r.graphs;
    j["graphs_estimate"] = {{"estimate", true},
                            {"node_cost_ns", g.node_cost_ns},
                            {"mean_launch_ns", g.mean_launch_ns},
                            {"eager_launches", g.eager_launches},
                            {"gaps_shrunk", g.gaps_shrunk},
                            {"saved_ns", g.saved_ns},
                            {"saved_fraction", g.saved_fraction}};
  } else {
    j["graphs_estimate"] = nullptr;
  }
  j["notes"] = r.notes;
  return j;
}

}  // namespace flopspy::tools
