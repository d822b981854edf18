// TraceAnalyzer: records in, kernel groups by signature and shape, copies by direction, and the
// finishing pass (unmatched records, counter figures, placement, device utilisation, order). The
// joins, the library calls and the counter samples live beside it (trace_analysis_state.h).
#include "flopspy/analyzers/trace_analysis.h"

#include <algorithm>

#include "flopspy/analyzers/blas_routine.h"
#include "group_placement.h"
#include "trace_analysis_state.h"

namespace flopspy::analyzers {

using trace::FigureSource;
using trace::RecordType;

FigureSource Weakest(FigureSource a, FigureSource b) {
  if (!Known(a)) return b;
  if (!Known(b)) return a;
  const auto rank = [](FigureSource s) {
    switch (s) {
      case FigureSource::kAnalytic:
        return 3;
      case FigureSource::kCounters:
        return 2;
      case FigureSource::kCatalog:
        return 1;
      case FigureSource::kUnknown:
        return 0;
    }
    return 0;
  };
  return rank(a) <= rank(b) ? a : b;
}

void AddFigures(WorkFigures& w, double flops, double special, FigureSource flops_source,
                double bytes, FigureSource bytes_source, double gpu_ns) {
  if (Known(flops_source)) {
    w.flops += flops;
    w.special_ops += special;
    w.flops_source = Weakest(w.flops_source, flops_source);
    ++w.launches_with_flops;
    w.flops_ns += gpu_ns;
  }
  if (Known(bytes_source)) {
    w.bytes += bytes;
    w.bytes_source = Weakest(w.bytes_source, bytes_source);
    ++w.launches_with_bytes;
    w.bytes_ns += gpu_ns;
  }
}

namespace {

bool IsCopyApi(trace::Api api) {
  switch (api) {
    case trace::Api::kCuMemcpy:
    case trace::Api::kCuMemcpyAsync:
    case trace::Api::kCudaMemcpy:
    case trace::Api::kCudaMemcpyAsync:
    case trace::Api::kCudaMemcpyAsyncPtsz:
      return true;
    default:
      return false;
  }
}

bool IsSetApi(trace::Api api) {
  return api == trace::Api::kCuMemset || api == trace::Api::kCuMemsetAsync ||
         api == trace::Api::kCudaMemset || api == trace::Api::kCudaMemsetAsync;
}

}  // namespace

double SteadyLaunchNs(const KernelGroup& g) {
  if (g.launches > g.first_launches) {
    return (g.launch_ns - g.first_launch_ns) / static_cast<double>(g.launches - g.first_launches);
  }
  return g.launches > 0 ? g.launch_ns / static_cast<double>(g.launches) : 0;
}

TraceAnalyzer::TraceAnalyzer(size_t max_pending)
    : state_(std::make_unique<State>(nullptr, max_pending)) {}
TraceAnalyzer::TraceAnalyzer(const TraceIndex& shared, size_t max_pending)
    : state_(std::make_unique<State>(&shared, max_pending)) {}
TraceAnalyzer::~TraceAnalyzer() = default;
TraceAnalyzer::TraceAnalyzer(TraceAnalyzer&&) noexcept = default;
TraceAnalyzer& TraceAnalyzer::operator=(TraceAnalyzer&&) noexcept = default;

void TraceAnalyzer::UseExternalFigures(const ExternalKernelFigures* figures) {
  state_->external_ = figures;
}

void TraceAnalyzer::Add(const trace::RecordView& record, const StringLookup& strings) {
  state_->Add(record, strings);
}

TraceAnalysis TraceAnalyzer::Finish(const std::map<int32_t, DeviceRoofs>& roofs,
                                    const RegimeThresholds& thresholds) {
  return state_->Finish(roofs, thresholds);
}

uint32_t TraceAnalyzer::State::GroupFor(uint32_t signature, const std::string& shape_key) {
  const auto key = std::make_pair(signature, shape_key);
  if (const auto it = group_index_.find(key); it != group_index_.end()) return it->second;
  KernelGroup g;
  g.signature = signature;
  g.shape_key = shape_key;
  if (const trace::KernelSignatureDef* s = index_.Signature(signature)) {
    std::copy(std::begin(s->grid), std::end(s->grid), g.grid.begin());
    std::copy(std::begin(s->block), std::end(s->block), g.block.begin());
  }
  if (const FunctionInfo* f = index_.FunctionOf(signature)) {
    g.name = f->name;
    const KernelClass& c = f->kernel_class;
    g.family = std::string(KernelFamilyName(c.family));
    g.functor = c.functor;
    g.op = c.op;
    g.category = std::string(KernelCategoryName(c.category));
    g.confidence = c.confidence;
    g.reason = c.reason;
    g.path = c.path;
  }
  const auto index = static_cast<uint32_t>(kernels_.size());
  kernels_.push_back(std::move(g));
  group_index_.emplace(key, index);
  return index;
}

void TraceAnalyzer::State::Add(const trace::RecordView& r, const trace::StringLookup& strings) {
  if (own_index_) own_index_->Add(r, strings);
  if (buffered_ && r.type != RecordType::kLaunchParams) FinishBufferedLaunch();
  AddLibraryGroups(r);
  switch (r.type) {
    case RecordType::kKernelLaunch: {
      BufferedLaunch b;
      b.record = r.As<trace::KernelLaunchRecord>();
      const size_t inline_bytes = std::min<size_t>(b.record.param_bytes, trace::kInlineParamBytes);
      b.params.assign(b.record.params, b.record.params + inline_bytes);
      b.thread = r.thread_id;
      buffered_ = std::move(b);
      break;
    }
    case RecordType::kLaunchParams: {
      if (!buffered_) break;
      const auto more = r.As<trace::LaunchParamsRecord>();
      const size_t wanted = buffered_->record.param_bytes;
      const size_t room = wanted > buffered_->params.size() ? wanted - buffered_->params.size() : 0;
      const size_t n = std::min<size_t>({room, more.length, trace::kExtraParamBytes});
      buffered_->params.insert(buffered_->params.end(), more.bytes, more.bytes + n);
      break;
    }
    case RecordType::kGpuActivity:
      AddGpu(r.As<trace::GpuActivityRecord>());
      break;
    case RecordType::kLibraryCall:
      AddLibraryCall(r.As<trace::LibraryCallRecord>(), r.thread_id, strings);
      break;
    case RecordType::kApiCall:
      AddApiCall(r.As<trace::ApiCallRecord>());
      break;
    case RecordType::kKernelMetrics:
      AddKernelMetrics(r.As<trace::KernelMetricsRecord>(), r.thread_id);
      break;
    case RecordType::kGraphNode:
      AddGraphNode(r.As<trace::GraphNodeRecord>());
      break;
    case RecordType::kGraphEvent:
      AddGraphEvent(r.As<trace::GraphEventRecord>());
      break;
    default:
      break;
  }
}

void TraceAnalyzer::State::FinishBufferedLaunch() {
  if (!buffered_) return;
  BufferedLaunch b = std::move(*buffered_);
  buffered_.reset();
  AddLaunch(std::move(b));
}

void TraceAnalyzer::State::AddLaunch(BufferedLaunch b) {
  const trace::KernelLaunchRecord& l = b.record;
  KernelEstimate estimate;
  if (const FunctionInfo* f = index_.FunctionOf(l.signature)) {
    const trace::KernelSignatureDef& sig = *index_.Signature(l.signature);
    LaunchFacts facts;
    facts.params = b.params;
    facts.layout = f->layout;
    facts.grid = {sig.grid[0], sig.grid[1], sig.grid[2]};
    facts.block = {sig.block[0], sig.block[1], sig.block[2]};
    estimate = EstimateKernel(f->kernel_class, facts);
    if (external_ != nullptr) ApplyExternalFigures(*external_, f->mangled, estimate);
  }
  const uint32_t group = GroupFor(l.signature, estimate.shape_key);
  const bool inside_library = (l.h.flags & trace::kLaunchInsideLibrary) != 0;
  KernelGroup& g = kernels_[group];
  if (estimate.confidence != Confidence::kNone) {
    g.confidence = estimate.confidence;
    g.reason = estimate.reason;
  }
  if (estimate.path != ComputePath::kUnknown) g.path = estimate.path;
  Pending p;
  p.group = group;
  p.flops = estimate.flops;
  p.special = estimate.special_ops;
  p.bytes = estimate.bytes;
  p.flops_source = estimate.source;
  p.bytes_source = estimate.bytes_source;
  p.launch_ns = l.enter_ns;
  p.launch_cost_ns = l.duration_ns;
  p.thread = b.thread;
  p.correlation = l.correlation;
  g.inside_library = g.inside_library || inside_library;
  if ((l.h.flags & trace::kLaunchCaptured) != 0) {
    // Recorded into a CUDA graph: it ran nothing now; its figures count at each replay.
    p.captured = true;
    if (l.result == 0) AddCapturedLaunch(p, b.thread, inside_library);
    return;
  }
  ++run_.launches;
  eager_launch_ns_ += l.duration_ns;
  ++eager_launches_;
  last_launch_[b.thread] = {l.correlation, group};
  ++g.launches;
  g.launch_ns += l.duration_ns;
  if (const trace::KernelSignatureDef* sig = index_.Signature(l.signature);
      sig != nullptr && sig->function != 0 && launched_functions_.insert(sig->function).second) {
    g.first_launch_ns += l.duration_ns;
    ++g.first_launches;
  }
  AddFigures(g.all, estimate.flops, estimate.special_ops, estimate.source, estimate.bytes,
             estimate.bytes_source);
  if (l.result != 0) {
    ++g.launch_errors;  // a failed launch runs nothing on the GPU
    return;
  }
  last_launch_ns_ = std::max(last_launch_ns_, l.enter_ns);
  if (const GpuSamplingWindows& sampling = index_.Sampling(); sampling.sampled()) {
    if (!sampling.TimedAt(l.enter_ns)) {
      ++run_.sampling.launches_outside_windows;  // CUPTI was not collecting: no record is owed
      return;
    }
    ++run_.sampling.launches_in_windows;
  }
  JoinHooks hooks{*this};
  join_.OnLaunch(l.correlation, p, b.thread, inside_library, hooks);
}

void TraceAnalyzer::State::NoteActivity(Pending* p, const trace::GpuActivityRecord& gpu) {
  if (run_.activities.size() >= kMaxTimedActivities) {
    ++run_.activities_dropped;
    return;
  }
  TimedActivity a;
  a.start_ns = gpu.start_ns;
  a.end_ns = std::max(gpu.end_ns, gpu.start_ns);
  a.device = gpu.device;
  a.correlation = gpu.correlation;
  a.from_graph = (gpu.h.flags & trace::kGpuFromGraph) != 0;
  a.graph_id = a.from_graph ? gpu.graph_id : 0;
  if (p == nullptr) {
    a.is_copy = true;
    a.bytes = static_cast<double>(gpu.bytes);
  } else {
    a.launch_ns = p->launch_ns;
    a.launch_cost_ns = p->launch_cost_ns;
    a.thread = p->thread;
    a.group = p->group;
    // The launch's correlation, which its stack sample carries: a kernel launched inside a
    // library call comes back with the call's (or the library's own runtime's) correlation.
    if (p->correlation != 0) a.correlation = p->correlation;
    a.flops_known = Known(p->flops_source);
    a.flops = a.flops_known ? p->flops : 0;
    p->activity = static_cast<int64_t>(run_.activities.size());
  }
  run_.activities.push_back(a);
}

void TraceAnalyzer::State::AddApiCall(const trace::ApiCallRecord& a) {
  const auto api = static_cast<trace::Api>(a.api);
  if (api == trace::Api::kCuGraphLaunch || api == trace::Api::kCuGraphLaunchPtsz ||
      api == trace::Api::kCudaGraphLaunch || api == trace::Api::kCudaGraphLaunchPtsz) {
    AddGraphLaunch(a);
    return;
  }
  const bool is_set = IsSetApi(api);
  if (!IsCopyApi(api) && !is_set) return;
  CopyGroup row;
  row.kind = static_cast<trace::CopyKind>(a.detail & 0xFF);
  row.src = static_cast<trace::MemoryKind>((a.detail >> 8) & 0xFF);
  row.dst = static_cast<trace::MemoryKind>((a.detail >> 16) & 0xFF);
  row.is_set = is_set;
  row.device = a.device;
  CountCopy(row, static_cast<double>(a.bytes),
            a.exit_ns > a.enter_ns ? static_cast<double>(a.exit_ns - a.enter_ns) : 0);
}

void TraceAnalyzer::State::CountCopy(const CopyGroup& row_key, double bytes, double ns) {
  const auto key = std::make_tuple(row_key.from_gpu, static_cast<uint8_t>(row_key.kind),
                                   static_cast<uint8_t>(row_key.src),
                                   static_cast<uint8_t>(row_key.dst), row_key.is_set);
  auto it = copy_index_.find(key);
  if (it == copy_index_.end()) {
    it = copy_index_.emplace(key, static_cast<uint32_t>(copies_.size())).first;
    copies_.push_back(row_key);
  }
  CopyGroup& c = copies_[it->second];
  ++c.count;
  c.bytes += bytes;
  c.ns += ns;
}

TraceAnalysis TraceAnalyzer::State::Finish(const std::map<int32_t, DeviceRoofs>& roofs,
                                           const RegimeThresholds& thresholds) {
  FinishBufferedLaunch();
  if (const std::string missing = groups_collector_.Finish(); !missing.empty()) {
    NoteDamaged(missing);
  }
  ResolveUnmatched();
  FinishGraphs();
  FinishSampling();
  ApplyCounterFigures();
  const RoofsLookup roofs_for = RoofsOfDevice(roofs);
  PlaceGroups(kernels_, libraries_, roofs_for, thresholds);
  FinishDevices(roofs);
  SortTables();
  run_.kernels = std::move(kernels_);
  run_.libraries = std::move(libraries_);
  run_.copies = std::move(copies_);
  for (auto& [device, d] : devices_) run_.devices.push_back(d);
  return std::move(run_);
}

// GPU records whose launch never came, and launches whose GPU record never came.
void TraceAnalyzer::State::ResolveUnmatched() {
  JoinHooks hooks{*this};
  run_.unmatched_gpu_records += join_.FinishGpu(hooks);
  run_.unmatched_launches += join_.UntimedLaunches();
}

// Sampled GPU timing: each kernel row's GPU time for every launch, from its timed executions.
void TraceAnalyzer::State::FinishSampling() {
  const GpuSamplingWindows& windows = index_.Sampling();
  if (!windows.sampled()) return;
  GpuSamplingFigures& s = run_.sampling;
  s.sampled = true;
  s.window_ns = windows.window_ns();
  s.period_ns = windows.period_ns();
  s.windows = static_cast<uint32_t>(windows.windows().size());
  s.timed_ns = windows.TimedNs(last_launch_ns_);
  const uint64_t first = windows.windows().empty() ? 0 : windows.windows().front().first;
  s.span_ns = last_launch_ns_ > first ? last_launch_ns_ - first : 0;
  for (KernelGroup& g : kernels_) {
    s.measured_gpu_ns += g.gpu_ns;
    if (g.executions == 0) continue;
    g.estimated_gpu_ns =
        g.gpu_ns / static_cast<double>(g.executions) *
        static_cast<double>(std::max(g.launches + g.graph_executions, g.executions));
    s.estimated_gpu_ns += g.estimated_gpu_ns;
  }
}

// Per device: analytic (model) FLOPs by path, for MFU against the path that carries most.
void TraceAnalyzer::State::FinishDevices(const std::map<int32_t, DeviceRoofs>& roofs) {
  const RoofsLookup roofs_for = RoofsOfDevice(roofs);
  std::map<int32_t, std::map<ComputePath, double>> analytic_by_path;
  for (const LibraryGroup& g : libraries_) {
    // A collective's reductions are not model FLOPs: MFU leaves them out.
    if (Known(g.source) && !IsCommRoutine(BlasRoutineFromId(g.routine_id))) {
      analytic_by_path[g.device][g.path] += g.timed_flops;
    }
  }
  for (auto& [device, d] : devices_) {
    d.device = device;
    for (const auto& [path, flops] : analytic_by_path[device]) d.analytic_flops += flops;
    for (const KernelGroup& g : kernels_) {
      if (g.device == device && g.counter_samples > 0) {
        d.counter_flops += g.counter_flops * static_cast<double>(g.executions);
      }
    }
    const DeviceRoofs* r = roofs_for(device);
    if (r == nullptr || d.last_ns <= d.first_ns) continue;
    ComputePath path = ComputePath::kFp32;
    double most = -1;
    for (const auto& [p, flops] : analytic_by_path[device]) {
      if (flops > most) most = flops, path = p;
    }
    const double wall = static_cast<double>(d.last_ns - d.first_ns) / 1e9;
    std::optional<double> hardware;
    if (d.counter_flops > 0) hardware = d.counter_flops;
    std::optional<double> model;
    if (d.analytic_flops > 0) model = d.analytic_flops;
    d.utilization = ComputeUtilization(*r, path, hardware, model, wall);
    d.utilization_path = path;
  }
}

// Kernels by GPU time; the library groups' kernel indices follow them.
void TraceAnalyzer::State::SortTables() {
  std::vector<uint32_t> order(kernels_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (kernels_[a].gpu_ns != kernels_[b].gpu_ns) return kernels_[a].gpu_ns > kernels_[b].gpu_ns;
    return kernels_[a].launches > kernels_[b].launches;
  });
  std::vector<uint32_t> new_index(kernels_.size());
  std::vector<KernelGroup> sorted;
  sorted.reserve(kernels_.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    sorted.push_back(std::move(kernels_[order[i]]));
  }
  kernels_.swap(sorted);
  for (LibraryGroup& g : libraries_) {
    for (auto& [group, ns] : g.kernel_time) group = new_index[group];
  }
  for (TimedActivity& a : run_.activities) {
    if (!a.is_copy) a.group = new_index[a.group];
  }
  for (GraphUnit& unit : run_.graphs) {
    for (uint32_t& group : unit.kernel_groups) group = new_index[group];
  }
  std::sort(libraries_.begin(), libraries_.end(), [](const LibraryGroup& a, const LibraryGroup& b) {
    if (a.gpu_ns != b.gpu_ns) return a.gpu_ns > b.gpu_ns;
    return a.cpu_ns > b.cpu_ns;
  });
  std::sort(copies_.begin(), copies_.end(),
            [](const CopyGroup& a, const CopyGroup& b) { return a.ns > b.ns; });
}
}  // namespace flopspy::analyzers
