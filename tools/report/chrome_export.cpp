#include "report/chrome_export.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "flopspy/analyzers/correlator.h"
#include "flopspy/analyzers/trace_index.h"
#include "flopspy/trace/reader.h"

namespace flopspy::tools {
namespace {

using trace::RecordType;

// GPU tracks live in synthetic processes numbered after every real pid could be.
constexpr int64_t kGpuPidBase = int64_t{1} << 32;

// A JSON string literal, quotes included; bytes that are not UTF-8 become U+FFFD.
std::string Quoted(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A number for the args, or null when it is unknown.
std::string NumberOrNull(std::optional<double> value) {
  return value && std::isfinite(*value) ? fmt::format("{}", *value) : "null";
}

// The figures the analysis gave a kernel signature, as slice args: per execution, with their
// sources and the group's place on its roofline.
std::string KernelFigures(const analyzers::KernelGroup* g) {
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
  return fmt::format(
      R"(,"flops":{},"bytes":{},"flops_source":"{}","bytes_source":"{}","intensity":{},)"
      R"("achieved_flops_per_s":{},"pct_of_roof":{},"regime":"{}")",
      NumberOrNull(flops), NumberOrNull(bytes), flops_source, bytes_source, NumberOrNull(intensity),
      NumberOrNull(achieved), NumberOrNull(pct), regime);
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

// One end of a launch-to-kernel flow arrow.
struct FlowEnd {
  int64_t pid = 0;
  uint64_t tid = 0;
  double ts_us = 0;
};

// Launches and GPU records waiting for their partner, as the analyses bound them.
constexpr size_t kMaxPendingFlows = size_t{1} << 20;

class TraceExporter {
 public:
  TraceExporter(Writer& w, ChromeExportResult& result, int index, uint64_t base_realtime_ns)
      : w_(w), result_(result), index_(index), base_realtime_ns_(base_realtime_ns) {}

  void Export(const ChromeTraceInput& input) {
    const std::string& path = input.path;
    if (input.analysis != nullptr) {
      // Kernels are sorted by GPU time: a signature with several shapes shows its longest.
      for (const analyzers::KernelGroup& g : input.analysis->kernels)
        figures_.try_emplace(g.signature, &g);
    }
    trace::TraceReader reader = trace::TraceReader::OpenFile(path);
    if (!reader.header_ok()) {
      result_.problems.push_back(path + ": " + reader.header_status().message);
      return;
    }
    header_ = reader.header();
    pid_ = header_.pid;
    host_ = std::string(reader.host());
    w_.Event(fmt::format(
        R"("ph":"M","name":"process_name","pid":{},"args":{{"name":{}}})", pid_,
        Quoted(fmt::format("{} pid {}{}", host_, pid_,
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
  }

 private:
  double Us(uint64_t monotonic_ns) const {
    const double since_start =
        static_cast<double>(monotonic_ns) - static_cast<double>(header_.start_monotonic_ns);
    const double offset =
        static_cast<double>(header_.start_realtime_ns) - static_cast<double>(base_realtime_ns_);
    return (since_start + offset) / 1000.0;
  }

  int64_t GpuPid(int32_t device) {
    const int64_t pid = kGpuPidBase + int64_t{index_} * 256 + (device & 0xFF);
    if (gpu_named_.emplace(pid, true).second) {
      w_.Event(fmt::format(R"("ph":"M","name":"process_name","pid":{},"args":{{"name":{}}})", pid,
                           Quoted(fmt::format("GPU {} of {} pid {}", device, host_, pid_))));
      w_.Event(
          fmt::format(R"("ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}})",
                      pid, 100000 + index_ * 256 + device));
    }
    return pid;
  }

  // Flow ids are unique across every trace of the export.
  uint64_t FlowId(uint64_t correlation) const {
    return (static_cast<uint64_t>(index_) << 48) | (correlation & ((uint64_t{1} << 48) - 1));
  }

  // Both ends known, in whichever order the trace held them: one flow arrow.
  void Flow(uint64_t correlation, const FlowEnd& launch, const FlowEnd& gpu) {
    const uint64_t id = FlowId(correlation);
    w_.Event(fmt::format(
        R"("ph":"s","cat":"flow","name":"launch","id":{},"pid":{},"tid":{},"ts":{},"bp":"e")", id,
        launch.pid, launch.tid, Ts(launch.ts_us)));
    w_.Event(fmt::format(
        R"("ph":"f","cat":"flow","name":"launch","id":{},"pid":{},"tid":{},"ts":{},"bp":"e")", id,
        gpu.pid, gpu.tid, Ts(gpu.ts_us)));
    ++result_.flows;
  }

  void OnSubmit(uint64_t correlation, const FlowEnd& launch) {
    if (const auto gpu = flows_.OnLaunch(correlation, launch)) Flow(correlation, launch, *gpu);
  }

  void Visit(const trace::RecordView& r, const trace::TraceReader& reader) {
    switch (r.type) {
      case RecordType::kThread: {
        const auto def = r.As<trace::ThreadDef>();
        w_.Event(fmt::format(
            R"("ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}})", pid_,
            def.thread_id, Quoted(def.name ? reader.String(def.name) : "thread")));
        break;
      }
      case RecordType::kApiCall: {
        const auto a = r.As<trace::ApiCallRecord>();
        const double ts = Us(a.enter_ns);
        const double dur = Us(a.exit_ns) - ts;
        w_.Event(fmt::format(
            R"("ph":"X","cat":"cuda_api","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"result":{},"correlation":{},"bytes":{}}})",
            trace::ApiName(static_cast<trace::Api>(a.api)), pid_, r.thread_id, Ts(ts),
            Ts(std::max(dur, 0.0)), a.result, a.correlation, a.bytes));
        OnSubmit(a.correlation, {pid_, r.thread_id, ts});
        break;
      }
      case RecordType::kKernelLaunch: {
        const auto l = r.As<trace::KernelLaunchRecord>();
        const double ts = Us(l.enter_ns);
        const std::string_view kernel = definitions_.KernelName(l.signature);
        std::string shape;
        if (const trace::KernelSignatureDef* s = definitions_.Signature(l.signature)) {
          shape = fmt::format(R"(,"grid":"{}x{}x{}","block":"{}x{}x{}","dynamic_smem":{})",
                              s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1],
                              s->block[2], s->dynamic_smem);
        }
        w_.Event(fmt::format(
            R"("ph":"X","cat":"launch","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"kernel":{},"result":{},"correlation":{}{}}})",
            trace::ApiName(static_cast<trace::Api>(l.api)), pid_, r.thread_id, Ts(ts),
            Ts(l.duration_ns / 1000.0), Quoted(kernel), l.result, l.correlation, shape));
        OnSubmit(l.correlation, {pid_, r.thread_id, ts});
        break;
      }
      case RecordType::kLibraryCall: {
        const auto c = r.As<trace::LibraryCallRecord>();
        const double ts = Us(c.enter_ns);
        w_.Event(fmt::format(
            R"("ph":"X","cat":"library","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"m":{},"n":{},"k":{},"batch":{},"flops":{},"bytes":{},"source":"{}","status":{}}})",
            Quoted(c.name ? reader.String(c.name) : "library call"), pid_, r.thread_id, Ts(ts),
            Ts(std::max(Us(c.exit_ns) - ts, 0.0)), c.m, c.n, c.k, c.batch, c.flops, c.bytes,
            trace::FigureSourceName(static_cast<trace::FigureSource>(c.source)), c.status));
        break;
      }
      case RecordType::kRegion: {
        const auto g = r.As<trace::RegionRecord>();
        w_.Event(fmt::format(R"("ph":"{}","cat":"region","name":{},"pid":{},"tid":{},"ts":{})",
                             g.edge == static_cast<uint8_t>(trace::RegionEdge::kBegin) ? "B" : "E",
                             Quoted(reader.String(g.name)), pid_, r.thread_id, Ts(Us(g.time_ns))));
        break;
      }
      case RecordType::kGpuActivity:
        ExportGpu(r.As<trace::GpuActivityRecord>());
        break;
      case RecordType::kCpuSample: {
        const auto s = r.As<trace::CpuSampleRecord>();
        if (s.scope != static_cast<uint8_t>(trace::CpuSampleScope::kInterval)) break;
        const double seconds = static_cast<double>(s.end_ns - s.begin_ns) / 1e9;
        if (seconds <= 0) break;
        const double flops = s.flops_dp + s.flops_sp + s.flops_hp + s.flops_any;
        const double bytes = s.bytes_read + s.bytes_write + s.bytes_any;
        w_.Event(fmt::format(
            R"("ph":"C","name":"cpu roofline","pid":{},"ts":{},"args":{{"GFLOP/s":{:.6g},"GB/s":{:.6g}}})",
            pid_, Ts(Us(s.begin_ns)), flops / seconds / 1e9, bytes / seconds / 1e9));
        break;
      }
      case RecordType::kWarning: {
        const auto wr = r.As<trace::WarningRecord>();
        w_.Event(fmt::format(
            R"("ph":"i","s":"p","cat":"flopspy","name":"warning","pid":{},"tid":0,"ts":{},"args":{{"message":{}}})",
            pid_, Ts(Us(wr.time_ns)), Quoted(reader.String(wr.message))));
        break;
      }
      default:
        break;
    }
  }

  void ExportGpu(const trace::GpuActivityRecord& g) {
    const int64_t pid = GpuPid(g.device);
    // Slices on one track must nest; work that overlaps the previous slice of its stream without
    // nesting (rare: concurrent graph nodes) goes to a side track of that stream.
    uint64_t tid = g.stream;
    const uint64_t main_end = track_end_[{pid, tid}];
    if (g.start_ns < main_end && g.end_ns > main_end) tid += uint64_t{1} << 20;
    uint64_t& end = track_end_[{pid, tid}];
    end = std::max(end, g.end_ns);
    if (named_tracks_.insert({pid, tid}).second) {
      w_.Event(fmt::format(
          R"("ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"stream {}{}"}})", pid,
          tid, g.stream, tid != g.stream ? " (overlapping)" : ""));
    }
    const double ts = Us(g.start_ns);
    const double dur = std::max(Us(g.end_ns) - ts, 0.0);
    std::string name;
    std::string cat;
    std::string args =
        fmt::format(R"("correlation":{},"bytes":{},"graph_id":{},"graph_node_id":{})",
                    g.correlation, g.bytes, g.graph_id, g.graph_node_id);
    switch (static_cast<trace::GpuActivityKind>(g.kind)) {
      case trace::GpuActivityKind::kKernel: {
        name = definitions_.KernelName(g.signature);
        cat = "kernel";
        // A kernel's bytes are its figure's (DRAM bytes per execution), not a copy's size.
        args = fmt::format(R"("correlation":{},"graph_id":{},"graph_node_id":{})", g.correlation,
                           g.graph_id, g.graph_node_id);
        const auto figures = figures_.find(g.signature);
        args += KernelFigures(figures != figures_.end() ? figures->second : nullptr);
        break;
      }
      case trace::GpuActivityKind::kMemcpy:
        name = fmt::format("memcpy {} bytes", g.bytes);
        cat = "memcpy";
        break;
      case trace::GpuActivityKind::kMemset:
        name = fmt::format("memset {} bytes", g.bytes);
        cat = "memset";
        break;
    }
    w_.Event(fmt::format(
        R"("ph":"X","cat":"{}","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}})", cat,
        Quoted(name), pid, tid, Ts(ts), Ts(dur), args));
    // Graph nodes and device launches carry no correlation of their own launch.
    const FlowEnd here{pid, tid, ts};
    if (const auto launch = flows_.OnGpu(g.correlation, here)) Flow(g.correlation, *launch, here);
  }

  struct PairHash {
    size_t operator()(const std::pair<int64_t, uint64_t>& p) const {
      return std::hash<int64_t>()(p.first) ^ (std::hash<uint64_t>()(p.second) * 31);
    }
  };

  Writer& w_;
  ChromeExportResult& result_;
  int index_;
  uint64_t base_realtime_ns_;
  trace::FileHeader header_{};
  int64_t pid_ = 0;
  std::string host_;
  analyzers::TraceIndex definitions_;
  std::unordered_map<uint32_t, const analyzers::KernelGroup*> figures_;  // by signature
  analyzers::Correlator<FlowEnd, FlowEnd> flows_{kMaxPendingFlows};
  std::unordered_map<std::pair<int64_t, uint64_t>, uint64_t, PairHash> track_end_;
  std::unordered_map<int64_t, bool> gpu_named_;
  std::unordered_set<std::pair<int64_t, uint64_t>, PairHash> named_tracks_;
};

}  // namespace

ChromeExportResult ExportChromeTrace(std::span<const ChromeTraceInput> traces, std::ostream& out) {
  ChromeExportResult result;
  // One time base for all traces: the earliest start on the wall clock.
  uint64_t base = UINT64_MAX;
  for (const ChromeTraceInput& input : traces) {
    trace::TraceReader reader = trace::TraceReader::OpenFile(input.path);
    if (reader.header_ok()) base = std::min(base, reader.header().start_realtime_ns);
  }
  if (base == UINT64_MAX) base = 0;
  Writer writer(out);
  int index = 0;
  for (const ChromeTraceInput& input : traces) {
    TraceExporter(writer, result, index++, base).Export(input);
  }
  writer.Finish(fmt::format(R"({{"producer":"flopspy-report {}","base_realtime_ns":{}}})",
                            FLOPSPY_VERSION, base));
  result.events = writer.count();
  return result;
}

}  // namespace flopspy::tools
