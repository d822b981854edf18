#include "report/chrome_export.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "flopspy/analyzers/correlator.h"
#include "flopspy/analyzers/trace_index.h"
#include "flopspy/trace/reader.h"
#include "report/chrome_counters.h"
#include "report/chrome_ids.h"

namespace flopspy::tools {
namespace {

using trace::RecordType;

// A JSON string literal, quotes included; bytes that are not UTF-8 become U+FFFD.
std::string Quoted(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A number for the args, or null when it is unknown: FLOPs and bytes as they are, derived rates
// and ratios to six significant digits (`digits`).
std::string NumberOrNullText(std::optional<double> value, bool digits = true) {
  if (!value || !std::isfinite(*value)) return "null";
  return digits ? fmt::format("{:.6g}", *value) : fmt::format("{}", *value);
}

// The figures the analysis gave a kernel signature: the slice args, per execution, with their
// sources and the group's place on its roofline; and the FLOPs of one execution (< 0: unknown)
// for the FLOP/s counter.
struct KernelFigures {
  std::string args;
  double flops = -1;
};

KernelFigures FiguresOf(const analyzers::KernelGroup* g) {
  std::optional<double> flops, bytes, intensity, achieved, pct;
  std::string_view flops_source = "unknown", bytes_source = "unknown", regime = "unknown";
  if (g != nullptr) {
    const analyzers::WorkFigures& w = g->timed;
    flops_source = trace::FigureSourceName(w.flops_source);
    bytes_source = trace::FigureSourceName(w.bytes_source);
    if (w.flops_source != trace::FigureSource::kUnknown && w.launches_with_flops > 0)
      flops = w.flops / static_cast<double>(w.launches_with_flops);
    if (w.bytes_source != trace::FigureSource::kUnknown && w.launches_with_bytes > 0)
      bytes = w.bytes / static_cast<double>(w.launches_with_bytes);
    if (g->placement) {
      intensity = g->placement->intensity;
      achieved = g->placement->achieved_flops;
      pct = g->placement->pct_of_attainable;
      regime = analyzers::RegimeName(g->placement->regime);
    }
  }
  return {fmt::format(
              R"(,"flops":{},"bytes":{},"flops_source":"{}","bytes_source":"{}","intensity":{},)"
              R"("achieved_flops_per_s":{},"pct_of_roof":{},"regime":"{}")",
              NumberOrNullText(flops, false), NumberOrNullText(bytes, false), flops_source,
              bytes_source, NumberOrNullText(intensity), NumberOrNullText(achieved),
              NumberOrNullText(pct), regime),
          flops && std::isfinite(*flops) ? *flops : -1};
}

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) { out_ << "{\"traceEvents\":[\n"; }

  void Event(const std::string& body) {
    out_ << (first_ ? "" : ",\n") << '{' << body << '}';
    first_ = false;
    ++count_;
  }
  void Finish(const std::string& metadata) {
    out_ << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":" << metadata << "}\n";
  }
  uint64_t count() const { return count_; }

 private:
  std::ostream& out_;
  bool first_ = true;
  uint64_t count_ = 0;
};

std::string Ts(double us) {
  return fmt::format("{:.3f}", std::isfinite(us) ? us : 0.0);
}

// One end of a flow arrow: the slice it binds to, and whether that slice was written.
struct FlowEnd {
  int64_t pid = 0;
  int64_t tid = 0;
  double ts_us = 0;
  bool shown = false;
  bool kernel_launch = false;
};

// Launches and GPU records waiting for their partner, as the analyses bound them.
constexpr size_t kMaxPendingFlows = size_t{1} << 20;
// Marker regions open at once on one thread; deeper ones are counted, not drawn.
constexpr size_t kMaxRegionDepth = 256;
// A stream's side track (work that overlaps the stream's previous slice without nesting).
constexpr uint64_t kSideTrack = uint64_t{1} << 32;
constexpr int64_t kSideTrackTidOffset = int64_t{1} << 30;
// The steps track's key among the process's threads (no thread id reaches 2^32).
constexpr uint64_t kStepsTrack = uint64_t{1} << 33;

class TraceExporter {
 public:
  TraceExporter(Writer& w, ChromeExportResult& result, ChromePids& pids, int index,
                uint64_t base_realtime_ns, const ChromeExportOptions& options)
      : w_(w),
        result_(result),
        pids_(pids),
        index_(index),
        base_realtime_ns_(base_realtime_ns),
        window_(options.window) {}

  // ',"call_site":"model.py:88 (Block.forward)"' per launch correlation whose kernel time went
  // to a site (the largest share where it was shared out: CallSiteReport::site_of_activity).
  void AddCallSiteArgs(const analyzers::CallSiteReport& sites) {
    const auto& acts = analysis_->activities;
    for (size_t i = 0; i < acts.size() && i < sites.site_of_activity.size(); ++i) {
      const int32_t s = sites.site_of_activity[i];
      if (s < 0 || static_cast<size_t>(s) >= sites.sites.size() || acts[i].correlation == 0) {
        continue;
      }
      call_site_args_.try_emplace(
          acts[i].correlation,
          R"(,"call_site":)" + Quoted(sites.sites[static_cast<size_t>(s)].label));
    }
  }
  std::string CallSiteArg(uint64_t correlation) const {
    const auto it = call_site_args_.find(correlation);
    return it != call_site_args_.end() ? it->second : std::string();
  }

  void Export(const ChromeTraceInput& input) {
    const std::string& path = input.path;
    analysis_ = input.analysis;
    if (analysis_ != nullptr) {
      // Kernels are sorted by GPU time: a signature with several shapes shows its longest.
      for (const analyzers::KernelGroup& g : analysis_->kernels) {
        if (!figures_.contains(g.signature)) figures_.emplace(g.signature, FiguresOf(&g));
      }
      if (input.call_sites != nullptr) AddCallSiteArgs(*input.call_sites);
    }
    trace::TraceReader reader = trace::TraceReader::OpenFile(path);
    if (!reader.header_ok()) {
      result_.problems.push_back(path + ": " + reader.header_status().message);
      return;
    }
    header_ = reader.header();
    pid_ = pids_.Process(header_.pid);
    host_ = std::string(reader.host());
    w_.Event(fmt::format(
        R"("ph":"M","name":"process_name","pid":{},"args":{{"name":{}}})", pid_,
        Quoted(fmt::format("{} pid {}{}", host_, header_.pid,
                           header_.rank >= 0 ? fmt::format(" rank {}", header_.rank) : ""))));
    w_.Event(
        fmt::format(R"("ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}})",
                    pid_, index_));
    const trace::StringLookup strings = [&reader](uint32_t id) { return reader.String(id); };
    const auto summary = reader.ForEachRecord([&](const trace::RecordView& r) {
      definitions_.Add(r, strings);
      Visit(r, reader);
    });
    if (summary.status != trace::ReadStatus::kOk) {
      result_.problems.push_back(path + ": " + summary.message);
    }
    FinishRegions(reader);
    WriteCounters();
    if (input.steps != nullptr) WriteSteps(*input.steps);
  }

 private:
  double Us(uint64_t monotonic_ns) const {
    const double since_start =
        static_cast<double>(monotonic_ns) - static_cast<double>(header_.start_monotonic_ns);
    const double offset =
        static_cast<double>(header_.start_realtime_ns) - static_cast<double>(base_realtime_ns_);
    return (since_start + offset) / 1000.0;
  }

  // Whether a slice (or, with dur 0, an instant) at `ts` (microseconds) is in the window.
  bool Shown(double ts_us, double dur_us = 0) const {
    return !window_ || window_->Meets(ts_us * 1000.0, (ts_us + dur_us) * 1000.0);
  }

  int64_t CpuTid(uint32_t thread_id) { return cpu_tids_.Get(thread_id, thread_id); }

  int64_t GpuPid(int32_t device) {
    const int64_t pid = pids_.Gpu(index_, device);
    if (gpu_named_.insert(pid).second) {
      w_.Event(fmt::format(R"("ph":"M","name":"process_name","pid":{},"args":{{"name":{}}})", pid,
                           Quoted(fmt::format("GPU {} of {} pid {}", device, host_, header_.pid))));
      w_.Event(
          fmt::format(R"("ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}})",
                      pid, 100000 + int64_t{index_} * 256 + (device & 0xFF)));
    }
    return pid;
  }

  // Flow ids are unique across every trace of the export.
  uint64_t FlowId(uint64_t correlation) const {
    return (static_cast<uint64_t>(index_) << 48) | (correlation & ((uint64_t{1} << 48) - 1));
  }

  // Both ends known, in whichever order the trace held them: one flow arrow, when both of its
  // slices were written.
  void Flow(uint64_t correlation, const FlowEnd& launch, const FlowEnd& gpu) {
    if (!launch.shown || !gpu.shown) return;
    const uint64_t id = FlowId(correlation);
    w_.Event(
        fmt::format(R"("ph":"s","cat":"flow","name":"launch","id":{},"pid":{},"tid":{},"ts":{})",
                    id, launch.pid, launch.tid, Ts(launch.ts_us)));
    w_.Event(fmt::format(
        R"("ph":"f","cat":"flow","name":"launch","id":{},"pid":{},"tid":{},"ts":{},"bp":"e")", id,
        gpu.pid, gpu.tid, Ts(gpu.ts_us)));
    ++result_.flows;
    if (launch.kernel_launch) ++result_.kernel_flows;
  }

  void OnSubmit(uint64_t correlation, const FlowEnd& launch) {
    if (const auto gpu = flows_.OnLaunch(correlation, launch)) Flow(correlation, launch, *gpu);
  }

  // Marker regions become complete slices when they end, so a window cuts none in half.
  void RegionEdge(const trace::RegionRecord& g, uint32_t thread, const trace::TraceReader& reader) {
    auto& open = regions_[thread];
    const double ts = Us(g.time_ns);
    if (g.edge == static_cast<uint8_t>(trace::RegionEdge::kBegin)) {
      if (open.stack.size() < kMaxRegionDepth) {
        open.stack.push_back({g.name, ts});
      } else {
        ++open.deeper;
      }
      return;
    }
    if (open.deeper > 0) {
      --open.deeper;
      return;
    }
    if (open.stack.empty()) return;  // an end without its begin (the trace was cut before it)
    const OpenRegion begin = open.stack.back();
    open.stack.pop_back();
    const double dur = std::max(ts - begin.ts_us, 0.0);
    if (!Shown(begin.ts_us, dur)) return;
    w_.Event(fmt::format(R"("ph":"X","cat":"region","name":{},"pid":{},"tid":{},"ts":{},"dur":{})",
                         Quoted(reader.String(begin.name)), pid_, CpuTid(thread), Ts(begin.ts_us),
                         Ts(dur)));
  }

  // NVTX push/pop ranges nest per thread and domain: complete slices on the thread, like
  // regions; start/end ranges may end on another thread: async slices paired by their id.
  void NvtxEdge(const trace::RangeRecord& g, uint32_t thread, const trace::TraceReader& reader) {
    const double ts = Us(g.time_ns);
    const std::string domain = g.domain ? std::string(reader.String(g.domain)) : "";
    const std::string cat = domain.empty() ? "nvtx" : "nvtx," + domain;
    switch (static_cast<trace::RangeEdge>(g.edge)) {
      case trace::RangeEdge::kPush: {
        auto& stack = nvtx_[{thread, g.domain}];
        if (stack.size() < kMaxRegionDepth) stack.push_back({g.name, ts});
        return;
      }
      case trace::RangeEdge::kPop: {
        auto& stack = nvtx_[{thread, g.domain}];
        if (stack.empty()) return;
        const OpenRegion begin = stack.back();
        stack.pop_back();
        const double dur = std::max(ts - begin.ts_us, 0.0);
        if (!Shown(begin.ts_us, dur)) return;
        w_.Event(fmt::format(R"("ph":"X","cat":{},"name":{},"pid":{},"tid":{},"ts":{},"dur":{})",
                             Quoted(cat), Quoted(reader.String(begin.name)), pid_, CpuTid(thread),
                             Ts(begin.ts_us), Ts(dur)));
        return;
      }
      case trace::RangeEdge::kStart:
      case trace::RangeEdge::kEnd: {
        if (!Shown(ts)) return;
        const bool start = g.edge == static_cast<uint8_t>(trace::RangeEdge::kStart);
        w_.Event(fmt::format(R"("ph":"{}","cat":{},"name":{},"id":{},"pid":{},"tid":{},"ts":{})",
                             start ? "b" : "e", Quoted(cat),
                             Quoted(start ? reader.String(g.name) : std::string_view("range")),
                             g.range_id, pid_, CpuTid(thread), Ts(ts)));
        return;
      }
      case trace::RangeEdge::kMark:
        if (!Shown(ts)) return;
        w_.Event(fmt::format(R"("ph":"i","s":"t","cat":{},"name":{},"pid":{},"tid":{},"ts":{})",
                             Quoted(cat), Quoted(reader.String(g.name)), pid_, CpuTid(thread),
                             Ts(ts)));
        return;
    }
  }

  // The steps found, one slice each on a "steps" track of the process.
  void WriteSteps(const analyzers::StepReport& steps) {
    if (steps.empty()) return;
    const int64_t tid = cpu_tids_.Get(kStepsTrack, kMaxChromeId);
    w_.Event(fmt::format(
        R"("ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}})", pid_, tid,
        Quoted(fmt::format("steps ({})", analyzers::StepSourceName(steps.source)))));
    for (const analyzers::Step& step : steps.steps) {
      const double ts = Us(step.begin_ns);
      const double dur = std::max(Us(step.end_ns) - ts, 0.0);
      if (!Shown(ts, dur)) continue;
      w_.Event(fmt::format(
          R"("ph":"X","cat":"step","name":"step {}{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"kernels":{},"busy_ns":{:.0f},"counted_flops":{:.6g}}})",
          step.number, step.warmup ? " (warm-up)" : "", pid_, tid, Ts(ts), Ts(dur), step.kernels,
          step.busy_ns, step.flops));
    }
  }

  // Regions still open at the end of the trace stay open-ended, as the program left them.
  void FinishRegions(const trace::TraceReader& reader) {
    for (const auto& [thread, open] : regions_) {
      for (const OpenRegion& begin : open.stack) {
        if (window_ && begin.ts_us * 1000.0 > window_->end_ns) continue;
        w_.Event(fmt::format(R"("ph":"B","cat":"region","name":{},"pid":{},"tid":{},"ts":{})",
                             Quoted(reader.String(begin.name)), pid_, CpuTid(thread),
                             Ts(begin.ts_us)));
      }
    }
  }

  void Visit(const trace::RecordView& r, const trace::TraceReader& reader) {
    switch (r.type) {
      case RecordType::kThread: {
        const auto def = r.As<trace::ThreadDef>();
        w_.Event(fmt::format(
            R"("ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}})", pid_,
            CpuTid(def.thread_id), Quoted(def.name ? reader.String(def.name) : "thread")));
        break;
      }
      case RecordType::kApiCall: {
        const auto a = r.As<trace::ApiCallRecord>();
        const double ts = Us(a.enter_ns);
        const double dur = std::max(Us(a.exit_ns) - ts, 0.0);
        const int64_t tid = CpuTid(r.thread_id);
        const bool shown = Shown(ts, dur);
        if (shown) {
          w_.Event(fmt::format(
              R"("ph":"X","cat":"cuda_api","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"result":{},"correlation":{},"bytes":{}}})",
              trace::ApiName(static_cast<trace::Api>(a.api)), pid_, tid, Ts(ts), Ts(dur), a.result,
              a.correlation, a.bytes));
        }
        OnSubmit(a.correlation, {pid_, tid, ts, shown, false});
        break;
      }
      case RecordType::kKernelLaunch: {
        const auto l = r.As<trace::KernelLaunchRecord>();
        const double ts = Us(l.enter_ns);
        const double dur = l.duration_ns / 1000.0;
        const int64_t tid = CpuTid(r.thread_id);
        const bool shown = Shown(ts, dur);
        if (shown) {
          const std::string_view kernel = definitions_.KernelName(l.signature);
          std::string shape;
          if (const trace::KernelSignatureDef* s = definitions_.Signature(l.signature)) {
            shape = fmt::format(R"(,"grid":"{}x{}x{}","block":"{}x{}x{}","dynamic_smem":{})",
                                s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1],
                                s->block[2], s->dynamic_smem);
          }
          w_.Event(fmt::format(
              R"("ph":"X","cat":"launch","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"kernel":{},"result":{},"correlation":{}{}}})",
              trace::ApiName(static_cast<trace::Api>(l.api)), pid_, tid, Ts(ts), Ts(dur),
              Quoted(kernel), l.result, l.correlation, shape + CallSiteArg(l.correlation)));
          ++result_.kernel_launches;
        }
        OnSubmit(l.correlation, {pid_, tid, ts, shown, true});
        break;
      }
      case RecordType::kLibraryCall: {
        const auto c = r.As<trace::LibraryCallRecord>();
        const double ts = Us(c.enter_ns);
        const double dur = std::max(Us(c.exit_ns) - ts, 0.0);
        if (!Shown(ts, dur)) break;
        w_.Event(fmt::format(
            R"("ph":"X","cat":"library","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"m":{},"n":{},"k":{},"batch":{},"flops":{},"bytes":{},"source":"{}","status":{}}})",
            Quoted(c.name ? reader.String(c.name) : "library call"), pid_, CpuTid(r.thread_id),
            Ts(ts), Ts(dur), c.m, c.n, c.k, c.batch, c.flops, c.bytes,
            trace::FigureSourceName(static_cast<trace::FigureSource>(c.source)), c.status));
        break;
      }
      case RecordType::kRange:
        NvtxEdge(r.As<trace::RangeRecord>(), r.thread_id, reader);
        break;
      case RecordType::kRegion:
        RegionEdge(r.As<trace::RegionRecord>(), r.thread_id, reader);
        break;
      case RecordType::kGpuActivity:
        ExportGpu(r.As<trace::GpuActivityRecord>());
        break;
      case RecordType::kCpuSample: {
        const auto s = r.As<trace::CpuSampleRecord>();
        if (s.scope != static_cast<uint8_t>(trace::CpuSampleScope::kInterval)) break;
        const double seconds = static_cast<double>(s.end_ns - s.begin_ns) / 1e9;
        if (seconds <= 0 || !Shown(Us(s.begin_ns))) break;
        const double flops = s.flops_dp + s.flops_sp + s.flops_hp + s.flops_any;
        const double bytes = s.bytes_read + s.bytes_write + s.bytes_any;
        w_.Event(fmt::format(
            R"("ph":"C","name":"cpu roofline","pid":{},"ts":{},"args":{{"GFLOP/s":{:.6g},"GB/s":{:.6g}}})",
            pid_, Ts(Us(s.begin_ns)), flops / seconds / 1e9, bytes / seconds / 1e9));
        break;
      }
      case RecordType::kWarning: {
        const auto wr = r.As<trace::WarningRecord>();
        if (!Shown(Us(wr.time_ns))) break;
        w_.Event(fmt::format(
            R"("ph":"i","s":"p","cat":"flopspy","name":"warning","pid":{},"tid":0,"ts":{},"args":{{"message":{}}})",
            pid_, Ts(Us(wr.time_ns)), Quoted(reader.String(wr.message))));
        break;
      }
      default:
        break;
    }
  }

  // The GPU's counters, over the active span the analysis measured; none without it.
  GpuCounters* CountersOf(int32_t device) {
    if (const auto it = counters_.find(device); it != counters_.end()) return &it->second;
    if (analysis_ == nullptr) return nullptr;
    for (const analyzers::DeviceActivity& d : analysis_->devices) {
      if (d.device != device || d.first_ns > d.last_ns) continue;
      return &counters_.try_emplace(device, d.first_ns, d.last_ns).first->second;
    }
    return nullptr;
  }

  // Slices on one track must nest; work that overlaps the previous slice of its stream without
  // nesting (rare: concurrent graph nodes) goes to a side track of that stream.
  int64_t GpuTid(int64_t pid, uint32_t stream, uint64_t start_ns, uint64_t end_ns) {
    ChromeTids& tids = gpu_tids_[pid];
    uint64_t key = stream;
    const uint64_t main_end = track_end_[{pid, key}];
    if (start_ns < main_end && end_ns > main_end) key |= kSideTrack;
    uint64_t& end = track_end_[{pid, key}];
    end = std::max(end, end_ns);
    const bool side = key != stream;
    const int64_t tid = tids.Get(key, int64_t{stream} + (side ? kSideTrackTidOffset : 0));
    if (named_tracks_.insert({pid, key}).second) {
      w_.Event(fmt::format(
          R"("ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"stream {}{}"}})", pid,
          tid, stream, side ? " (overlapping)" : ""));
    }
    return tid;
  }

  void ExportGpu(const trace::GpuActivityRecord& g) {
    const int64_t pid = GpuPid(g.device);
    const int64_t tid = GpuTid(pid, g.stream, g.start_ns, g.end_ns);
    const double ts = Us(g.start_ns);
    const double dur = std::max(Us(g.end_ns) - ts, 0.0);
    const bool shown = Shown(ts, dur);
    const bool kernel = g.kind == static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    const KernelFigures* figures = nullptr;
    if (kernel) {
      static const KernelFigures kUnknown = FiguresOf(nullptr);
      const auto it = figures_.find(g.signature);
      figures = it != figures_.end() ? &it->second : &kUnknown;
    }
    if (GpuCounters* counters = CountersOf(g.device))
      counters->Add(g.start_ns, g.end_ns, kernel ? figures->flops : -1);
    if (shown) {
      // Graph ids only where the work is a graph's node.
      const std::string graph =
          g.graph_id != 0
              ? fmt::format(R"(,"graph_id":{},"graph_node_id":{})", g.graph_id, g.graph_node_id)
              : std::string();
      std::string name, cat, args;
      switch (static_cast<trace::GpuActivityKind>(g.kind)) {
        case trace::GpuActivityKind::kKernel:
          name = definitions_.KernelName(g.signature);
          cat = "kernel";
          // A kernel's bytes are its figure's (DRAM bytes per execution), not a copy's size.
          args = fmt::format(R"("correlation":{}{}{}{})", g.correlation, graph, figures->args,
                             CallSiteArg(g.correlation));
          break;
        case trace::GpuActivityKind::kMemcpy:
          name = fmt::format("memcpy {} bytes", g.bytes);
          cat = "memcpy";
          args = fmt::format(R"("correlation":{},"bytes":{}{})", g.correlation, g.bytes, graph);
          break;
        case trace::GpuActivityKind::kMemset:
          name = fmt::format("memset {} bytes", g.bytes);
          cat = "memset";
          args = fmt::format(R"("correlation":{},"bytes":{}{})", g.correlation, g.bytes, graph);
          break;
        default:
          return;
      }
      w_.Event(fmt::format(
          R"("ph":"X","cat":"{}","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}})", cat,
          Quoted(name), pid, tid, Ts(ts), Ts(dur), args));
    }
    // Graph nodes and device launches carry no correlation of their own launch.
    const FlowEnd here{pid, tid, ts, shown, false};
    if (const auto launch = flows_.OnGpu(g.correlation, here)) Flow(g.correlation, *launch, here);
  }

  // One counter event per bucket whose value differs from the one before, then 0 where the
  // GPU's active span ends. The FLOP/s track only where some kernel's FLOPs are known: a flat
  // zero would read as "no FLOPs" when they are unknown.
  void WriteCounters() {
    for (auto& entry : counters_) {
      // Named, not bound: lambdas may not capture structured bindings before clang 16.
      const int32_t device = entry.first;
      GpuCounters& counters = entry.second;
      counters.Finish();
      const int64_t pid = GpuPid(device);
      bool any_flops = false;
      for (size_t i = 0; i < counters.buckets(); ++i) any_flops |= counters.FlopsPerSecond(i) > 0;
      const auto track = [&](std::string_view name, std::string_view key, auto value) {
        std::optional<double> last;
        const double width = static_cast<double>(counters.bucket_ns()) / 1000.0;
        const double first = Us(counters.start_ns());
        for (size_t i = 0; i <= counters.buckets(); ++i) {
          const double ts = first + width * static_cast<double>(i);
          const double v = i < counters.buckets() ? value(i) : 0.0;
          if (!Shown(ts, i < counters.buckets() ? width : 0) || (last && *last == v)) continue;
          // A bucket that began before the window shows from the window's start.
          const double at = window_ ? std::max(ts, window_->start_ns / 1000.0) : ts;
          w_.Event(fmt::format(R"("ph":"C","name":"{}","pid":{},"ts":{},"args":{{"{}":{:.4g}}})",
                               name, pid, Ts(at), key, v));
          last = v;
        }
      };
      track("GPU busy", "%", [&](size_t i) { return 100.0 * counters.BusyFraction(i); });
      if (any_flops) {
        track("achieved", "FLOP/s (known FLOPs)",
              [&](size_t i) { return counters.FlopsPerSecond(i); });
      }
    }
  }

  struct PairHash {
    size_t operator()(const std::pair<int64_t, uint64_t>& p) const {
      return std::hash<int64_t>()(p.first) ^ (std::hash<uint64_t>()(p.second) * 31);
    }
  };
  struct OpenRegion {
    uint32_t name = 0;
    double ts_us = 0;
  };
  struct OpenRegions {
    std::vector<OpenRegion> stack;
    uint64_t deeper = 0;  // begins past kMaxRegionDepth, whose ends are skipped
  };

  Writer& w_;
  ChromeExportResult& result_;
  ChromePids& pids_;
  int index_;
  uint64_t base_realtime_ns_;
  std::optional<TimeWindow> window_;
  const analyzers::TraceAnalysis* analysis_ = nullptr;
  std::unordered_map<uint64_t, std::string> call_site_args_;  // by correlation
  trace::FileHeader header_{};
  int64_t pid_ = 0;
  std::string host_;
  analyzers::TraceIndex definitions_;
  std::unordered_map<uint32_t, KernelFigures> figures_;  // by signature
  analyzers::Correlator<FlowEnd, FlowEnd> flows_{kMaxPendingFlows};
  ChromeTids cpu_tids_;
  std::map<int64_t, ChromeTids> gpu_tids_;  // by GPU pid
  std::unordered_map<std::pair<int64_t, uint64_t>, uint64_t, PairHash> track_end_;
  std::unordered_set<int64_t> gpu_named_;
  std::unordered_set<std::pair<int64_t, uint64_t>, PairHash> named_tracks_;
  std::map<int32_t, GpuCounters> counters_;                                // by device
  std::unordered_map<uint32_t, OpenRegions> regions_;                      // by thread
  std::map<std::pair<uint32_t, uint32_t>, std::vector<OpenRegion>> nvtx_;  // (thread, domain)
};

}  // namespace

ChromeExportResult ExportChromeTrace(std::span<const ChromeTraceInput> traces,
                                     const ChromeExportOptions& options, std::ostream& out) {
  ChromeExportResult result;
  // One time base for all traces: the earliest start on the wall clock. Every pid the traces
  // hold is kept away from the ids made up for GPUs.
  uint64_t base = UINT64_MAX;
  std::set<int64_t> real_pids;
  for (const ChromeTraceInput& input : traces) {
    trace::TraceReader reader = trace::TraceReader::OpenFile(input.path);
    if (!reader.header_ok()) continue;
    base = std::min(base, reader.header().start_realtime_ns);
    real_pids.insert(reader.header().pid);
  }
  if (base == UINT64_MAX) base = 0;
  ChromePids pids(std::move(real_pids));
  Writer writer(out);
  int index = 0;
  for (const ChromeTraceInput& input : traces) {
    TraceExporter(writer, result, pids, index++, base, options).Export(input);
  }
  writer.Finish(fmt::format(R"({{"producer":"flopspy-report {}","base_realtime_ns":{}}})",
                            FLOPSPY_VERSION, base));
  result.events = writer.count();
  return result;
}

}  // namespace flopspy::tools
