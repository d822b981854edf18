#include "flopspy/analyzers/run_analysis.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/demangle.h"

namespace flopspy::analyzers {

using trace::FigureSource;
using trace::RecordType;

namespace {

bool Known(FigureSource s) {
  return s != FigureSource::kUnknown;
}

// When figures of several sources add up, the weakest source labels the sum.
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
                double bytes, FigureSource bytes_source) {
  if (Known(flops_source)) {
    w.flops += flops;
    w.special_ops += special;
    w.flops_source = Weakest(w.flops_source, flops_source);
    ++w.launches_with_flops;
  }
  if (Known(bytes_source)) {
    w.bytes += bytes;
    w.bytes_source = Weakest(w.bytes_source, bytes_source);
    ++w.launches_with_bytes;
  }
}

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

int SourceIndex(FigureSource s) {
  return static_cast<int>(s) & 3;
}

// cuBLAS and CUTLASS name their TF32 tensor-core kernels so ("sm90_xmma_gemm_f32f32_tf32f32_...",
// "cutlass_80_tensorop_s1688tf32gemm_..."); their FP32 CUDA-core kernels never carry "tf32".
bool KernelNameSaysTf32(std::string_view name) {
  for (size_t i = 0; i + 4 <= name.size(); ++i) {
    if ((name[i] == 't' || name[i] == 'T') && (name[i + 1] == 'f' || name[i + 1] == 'F') &&
        name.substr(i + 2, 2) == "32") {
      return true;
    }
  }
  return false;
}

void AddKernelTime(LibraryGroup& lib, uint32_t kernel_group, double ns) {
  for (auto& [group, time] : lib.kernel_time) {
    if (group == kernel_group) {
      time += ns;
      return;
    }
  }
  lib.kernel_time.emplace_back(kernel_group, ns);
}

}  // namespace

LibraryShapeKey LibraryShapeKeyOf(const trace::LibraryCallRecord& c) {
  LibraryShapeKey key;
  key.routine = c.routine;
  key.name = c.name;
  key.m = c.m, key.n = c.n, key.k = c.k, key.batch = c.batch;
  key.types = {c.type_a, c.type_b, c.type_c, c.type_d, c.compute_type, c.scale_type};
  key.ops = {c.trans_a, c.trans_b, c.side, c.uplo, c.diag};
  key.epilogue = c.epilogue;
  key.flags = c.flags & kLibShapeFlags;
  return key;
}

std::string_view PathBasisName(PathBasis basis) {
  return basis == PathBasis::kKernelName ? "kernel_name" : "call_types";
}

const RunAnalyzer::FunctionFacts* RunAnalyzer::FactsFor(uint32_t signature) const {
  const auto sig = signatures_.find(signature);
  if (sig == signatures_.end()) return nullptr;
  if (const auto f = functions_.find(sig->second.function); f != functions_.end())
    return &f->second;
  if (const auto n = named_signatures_.find(signature); n != named_signatures_.end()) {
    return &n->second;
  }
  return nullptr;
}

std::optional<Placement> PlaceKernelGroup(const KernelGroup& g, const DeviceRoofs& roofs,
                                          const RegimeThresholds& thresholds) {
  if (g.executions == 0) return std::nullopt;
  WorkSample work;
  if (Known(g.timed.flops_source)) work.flops = g.timed.flops;
  if (Known(g.timed.bytes_source)) work.bytes = g.timed.bytes;
  work.path = g.path;
  work.gpu_time_ns = g.gpu_ns;
  work.calls = g.executions;
  // A kernel launched inside a cuBLAS call is fed by the call, not by a launch of its own.
  if (g.launches > 0 && !g.inside_library) work.mean_launch_ns = SteadyLaunchNs(g);
  return PlaceOnRoofline(roofs, work, thresholds);
}

std::optional<Placement> PlaceLibraryGroup(const LibraryGroup& g, const DeviceRoofs& roofs,
                                           const RegimeThresholds& thresholds) {
  if (g.gpu_ns <= 0 || g.calls == 0) return std::nullopt;
  WorkSample work;
  if (Known(g.source)) {
    work.flops = g.timed_flops;
    work.bytes = g.timed_bytes;
  }
  work.path = g.path;
  work.gpu_time_ns = g.gpu_ns;
  work.calls = g.calls;
  work.mean_launch_ns = g.cpu_ns / static_cast<double>(g.calls);
  return PlaceOnRoofline(roofs, work, thresholds);
}

void MergeFigures(WorkFigures& into, const WorkFigures& from) {
  into.flops += from.flops;
  into.special_ops += from.special_ops;
  into.bytes += from.bytes;
  if (from.launches_with_flops > 0)
    into.flops_source = Weakest(into.flops_source, from.flops_source);
  if (from.launches_with_bytes > 0)
    into.bytes_source = Weakest(into.bytes_source, from.bytes_source);
  into.launches_with_flops += from.launches_with_flops;
  into.launches_with_bytes += from.launches_with_bytes;
}

namespace {
constexpr uint32_t kFlopBits =
    trace::kMetricsFp32 | trace::kMetricsFp64 | trace::kMetricsFp16 | trace::kMetricsTensor;
}  // namespace

bool CounterFlopsValid(const KernelGroup& g) {
  return g.counter_flops_samples > 0;
}

bool CounterBytesValid(const KernelGroup& g) {
  return g.counter_bytes_samples > 0;
}

namespace {

double Spread(double min, double max, double mean) {
  if (max <= min) return 0;
  return mean != 0 ? (max - min) / std::fabs(mean) : 1.0;
}

// One sample, or a group's samples: `samples` of them, `flops_count` with FLOPs of mean `flops`,
// `bytes_count` with DRAM bytes of mean `bytes`, and the extremes of each.
struct CounterPart {
  uint32_t samples = 0, flops_count = 0, bytes_count = 0;
  double flops = 0, bytes = 0;
  uint32_t valid = 0;
  double flops_min = 0, flops_max = 0, bytes_min = 0, bytes_max = 0;
};

// Folds `m` values of mean `mean` and extremes [lo, hi] into a running mean of `n` values.
void AddMean(double& into, double& into_min, double& into_max, uint32_t& n, uint32_t m, double mean,
             double lo, double hi) {
  if (m == 0) return;
  into_min = n == 0 ? lo : std::min(into_min, lo);
  into_max = n == 0 ? hi : std::max(into_max, hi);
  into = (into * n + mean * m) / (n + m);
  n += m;
}

// Adds samples to a group's counter figures, each figure over the samples that have it.
void AddCounterSamples(KernelGroup& g, const CounterPart& p) {
  if (p.samples == 0) return;
  AddMean(g.counter_flops, g.counter_flops_min, g.counter_flops_max, g.counter_flops_samples,
          p.flops_count, p.flops, p.flops_min, p.flops_max);
  AddMean(g.counter_bytes, g.counter_bytes_min, g.counter_bytes_max, g.counter_bytes_samples,
          p.bytes_count, p.bytes, p.bytes_min, p.bytes_max);
  g.counter_samples += p.samples;
  g.counter_valid |= p.valid;
}

// The roof a counter-measured kernel is placed against: its dominant precision. The tensor
// paths are not told apart by the record; FP16 with FP32 accumulate is the datasheet's usual
// tensor figure.
ComputePath CounterPath(const trace::KernelMetricsRecord& m) {
  const std::pair<double, ComputePath> parts[] = {{m.flops_fp64, ComputePath::kFp64},
                                                  {m.flops_fp32, ComputePath::kFp32},
                                                  {m.flops_fp16, ComputePath::kFp16},
                                                  {m.tensor_ops, ComputePath::kFp16Tensor}};
  double most = 0;
  ComputePath path = ComputePath::kUnknown;
  for (const auto& [flops, p] : parts) {
    if (flops > most) most = flops, path = p;
  }
  return path;
}

}  // namespace

double SteadyLaunchNs(const KernelGroup& g) {
  if (g.launches > g.first_launches) {
    return (g.launch_ns - g.first_launch_ns) / static_cast<double>(g.launches - g.first_launches);
  }
  return g.launches > 0 ? g.launch_ns / static_cast<double>(g.launches) : 0;
}

double CounterFlopsSpread(const KernelGroup& g) {
  return Spread(g.counter_flops_min, g.counter_flops_max, g.counter_flops);
}

double CounterBytesSpread(const KernelGroup& g) {
  // Samples a few KB apart (a compute kernel's DRAM traffic, which other work on the GPU can
  // double) do not disagree: the same floor as the sampler's (gpu_roofline/counter_sampling.h).
  constexpr double kFloorBytes = 1 << 20;
  if (g.counter_bytes_max - g.counter_bytes_min < kFloorBytes) return 0;
  return Spread(g.counter_bytes_min, g.counter_bytes_max, g.counter_bytes);
}

void MergeKernelGroup(KernelGroup& into, const KernelGroup& from) {
  AddCounterSamples(
      into, {from.counter_samples, from.counter_flops_samples, from.counter_bytes_samples,
             from.counter_flops, from.counter_bytes, from.counter_valid, from.counter_flops_min,
             from.counter_flops_max, from.counter_bytes_min, from.counter_bytes_max});
  into.launches += from.launches;
  into.executions += from.executions;
  into.gpu_ns += from.gpu_ns;
  into.gpu_durations.Merge(from.gpu_durations);
  into.launch_ns += from.launch_ns;
  into.first_launch_ns += from.first_launch_ns;
  into.first_launches += from.first_launches;
  into.launch_errors += from.launch_errors;
  into.inside_library = into.inside_library || from.inside_library;
  MergeFigures(into.all, from.all);
  MergeFigures(into.timed, from.timed);
}

void MergeLibraryGroup(LibraryGroup& into, const LibraryGroup& from) {
  into.calls += from.calls;
  into.failed_calls += from.failed_calls;
  into.cpu_ns += from.cpu_ns;
  into.flops += from.flops;
  into.epilogue_flops += from.epilogue_flops;
  into.bytes += from.bytes;
  into.kernels += from.kernels;
  into.gpu_ns += from.gpu_ns;
  into.timed_flops += from.timed_flops;
  into.timed_bytes += from.timed_bytes;
  if (!into.groups_known) {
    into.groups_known = from.groups_known;
    into.groups = from.groups;
    into.groups_cut = from.groups_cut;
  } else if (from.groups_known &&
             !SameGroups(into.groups, into.groups_cut, from.groups, from.groups_cut)) {
    into.groups_vary = true;
  }
  into.groups_vary = into.groups_vary || from.groups_vary;
  // One trace's kernels showed the calls ran on TF32: so did the others' (same types).
  if (from.path_basis == PathBasis::kKernelName) {
    into.path = from.path;
    into.path_basis = from.path_basis;
  }
}

uint32_t RunAnalyzer::GroupFor(uint32_t signature, const std::string& shape_key) {
  const auto key = std::make_pair(signature, shape_key);
  if (const auto it = group_index_.find(key); it != group_index_.end()) return it->second;
  KernelGroup g;
  g.signature = signature;
  g.shape_key = shape_key;
  if (const auto s = signatures_.find(signature); s != signatures_.end()) {
    std::copy(std::begin(s->second.grid), std::end(s->second.grid), g.grid.begin());
    std::copy(std::begin(s->second.block), std::end(s->second.block), g.block.begin());
  }
  if (const FunctionFacts* f = FactsFor(signature)) {
    g.name = f->demangled;
    const KernelClass& c = f->kernel_class;
    g.family = std::string(KernelFamilyName(c.family));
    g.functor = c.functor;
    g.confidence = c.confidence;
    g.reason = c.reason;
    g.path = c.path;
  }
  const auto index = static_cast<uint32_t>(kernels_.size());
  kernels_.push_back(std::move(g));
  group_index_.emplace(key, index);
  return index;
}

void RunAnalyzer::Add(const trace::RecordView& r, const StringLookup& strings) {
  if (buffered_ && r.type != RecordType::kLaunchParams) FinishBufferedLaunch();
  AddLibraryGroups(r);
  switch (r.type) {
    case RecordType::kFunction: {
      const auto def = r.As<trace::FunctionDef>();
      FunctionFacts facts;
      const std::string_view demangled = strings(def.demangled_name);
      const std::string_view mangled = strings(def.mangled_name);
      facts.demangled = std::string(!demangled.empty() ? demangled : mangled);
      facts.layout = ParamLayout::FromFunctionDef(def);
      facts.kernel_class = ClassifyKernel(facts.demangled);
      functions_[def.id] = std::move(facts);
      break;
    }
    case RecordType::kKernelSignature: {
      const auto def = r.As<trace::KernelSignatureDef>();
      signatures_[def.id] = def;
      // A signature known only by its name (a graph kernel seen by CUPTI) still gets a name.
      if (def.function == 0 && def.name != 0) {
        FunctionFacts facts;
        facts.demangled = Demangle(strings(def.name));
        facts.kernel_class = ClassifyKernel(facts.demangled);
        named_signatures_[def.id] = std::move(facts);
      }
      break;
    }
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
    default:
      break;
  }
}

void RunAnalyzer::AddKernelMetrics(const trace::KernelMetricsRecord& m, uint32_t thread) {
  // The record follows its launch on the launching thread; the launch's group carries the
  // catalog's shape key, which the signature alone does not.
  std::optional<uint32_t> group;
  if (const auto last = last_launch_.find(thread);
      last != last_launch_.end() && last->second.first == m.correlation) {
    group = last->second.second;
  } else if (const auto pending = pending_.find(m.correlation); pending != pending_.end()) {
    group = pending->second.group;
  }
  if (group) {
    // The launch is known, so GPU records still waiting for it are a replay's duplicates.
    run_.replayed_gpu_records += early_gpu_.erase(m.correlation);
  } else {
    group = GroupFor(m.signature, "");
  }
  measured_.insert(m.correlation);
  // Each launch of a sample carries the sample so far: keep the fullest, a whole sample first
  // (the later of equals).
  const auto fullness = [](const trace::KernelMetricsRecord& r) {
    const bool whole = (r.valid & trace::kMetricsPartialSample) == 0;
    return std::pair(whole, std::popcount(r.valid & ~uint32_t{trace::kMetricsPartialSample}));
  };
  auto [it, fresh] = counter_samples_.try_emplace({*group, m.samples}, m);
  if (!fresh && fullness(m) >= fullness(it->second)) it->second = m;
}

void RunAnalyzer::FoldCounterSamples() {
  for (const auto& [key, m] : counter_samples_) {
    KernelGroup& g = kernels_[key.first];
    const double flops = m.flops_fp32 + m.flops_fp64 + m.flops_fp16 + m.tensor_ops;
    const double bytes = m.dram_read_bytes + m.dram_write_bytes;
    // Part of a sample may lack a pass group that measures FLOPs (a tensor path, the hfma
    // counter): its FLOPs are not a kernel's FLOPs. Its DRAM bytes are, once their group is in.
    const bool partial = (m.valid & trace::kMetricsPartialSample) != 0;
    const bool has_flops = (m.valid & kFlopBits) != 0 && !partial;
    const bool has_bytes = (m.valid & trace::kMetricsDram) != 0;
    if (g.path == ComputePath::kUnknown && !partial) g.path = CounterPath(m);
    const uint32_t valid =
        partial ? m.valid & ~kFlopBits & ~uint32_t{trace::kMetricsPartialSample} : m.valid;
    AddCounterSamples(g, {1, has_flops ? 1u : 0u, has_bytes ? 1u : 0u, flops, bytes, valid, flops,
                          flops, bytes, bytes});
  }
  counter_samples_.clear();
}

void RunAnalyzer::ApplyCounterFigures() {
  FoldCounterSamples();
  for (KernelGroup& g : kernels_) {
    if (g.counter_samples == 0) continue;
    const bool flops =
        CounterFlopsValid(g) && !Known(g.timed.flops_source) && !Known(g.all.flops_source);
    const bool bytes =
        CounterBytesValid(g) && !Known(g.timed.bytes_source) && !Known(g.all.bytes_source);
    // The measured values stand for every launch of the signature (docs/gpu-counters.md).
    const uint64_t launches = std::max(g.launches, g.executions);
    if (flops) {
      if (g.executions > 0) {
        g.timed.flops = g.counter_flops * static_cast<double>(g.executions);
        g.timed.flops_source = FigureSource::kCounters;
        g.timed.launches_with_flops = g.executions;
      }
      g.all.flops = g.counter_flops * static_cast<double>(launches);
      g.all.flops_source = FigureSource::kCounters;
      g.all.launches_with_flops = launches;
      if (g.device >= 0) {
        // Coverage: this kernel time now has FLOPs from counters instead of none.
        auto& by_source = devices_[g.device].kernel_ns_by_source;
        const double moved = std::min(g.gpu_ns, by_source[SourceIndex(FigureSource::kUnknown)]);
        by_source[SourceIndex(FigureSource::kUnknown)] -= moved;
        by_source[SourceIndex(FigureSource::kCounters)] += moved;
      }
    }
    if (bytes) {
      if (g.executions > 0) {
        g.timed.bytes = g.counter_bytes * static_cast<double>(g.executions);
        g.timed.bytes_source = FigureSource::kCounters;
        g.timed.launches_with_bytes = g.executions;
      }
      g.all.bytes = g.counter_bytes * static_cast<double>(launches);
      g.all.bytes_source = FigureSource::kCounters;
      g.all.launches_with_bytes = launches;
    }
  }
}

void RunAnalyzer::FinishBufferedLaunch() {
  if (!buffered_) return;
  BufferedLaunch b = std::move(*buffered_);
  buffered_.reset();
  AddLaunch(std::move(b));
}

void RunAnalyzer::AddLaunch(BufferedLaunch b) {
  const trace::KernelLaunchRecord& l = b.record;
  ++run_.launches;
  KernelEstimate estimate;
  if (const FunctionFacts* f = FactsFor(l.signature)) {
    const trace::KernelSignatureDef& sig = signatures_.at(l.signature);
    LaunchFacts facts;
    facts.params = b.params;
    facts.layout = f->layout;
    facts.grid = {sig.grid[0], sig.grid[1], sig.grid[2]};
    facts.block = {sig.block[0], sig.block[1], sig.block[2]};
    estimate = EstimateKernel(f->kernel_class, facts);
  }
  const uint32_t group = GroupFor(l.signature, estimate.shape_key);
  last_launch_[b.thread] = {l.correlation, group};
  KernelGroup& g = kernels_[group];
  ++g.launches;
  g.launch_ns += l.duration_ns;
  if (const auto sig = signatures_.find(l.signature);
      sig != signatures_.end() && sig->second.function != 0 &&
      launched_functions_.insert(sig->second.function).second) {
    g.first_launch_ns += l.duration_ns;
    ++g.first_launches;
  }
  if (estimate.confidence != Confidence::kNone) {
    g.confidence = estimate.confidence;
    g.reason = estimate.reason;
  }
  if (estimate.path != ComputePath::kUnknown) g.path = estimate.path;
  const bool inside_library = (l.h.flags & trace::kLaunchInsideLibrary) != 0;
  g.inside_library = g.inside_library || inside_library;
  AddFigures(g.all, estimate.flops, estimate.special_ops, estimate.source, estimate.bytes,
             estimate.bytes_source);
  if (l.result != 0) {
    ++g.launch_errors;  // a failed launch runs nothing on the GPU
    return;
  }
  Pending p;
  p.group = group;
  p.flops = estimate.flops;
  p.special = estimate.special_ops;
  p.bytes = estimate.bytes;
  p.flops_source = estimate.source;
  p.bytes_source = estimate.bytes_source;
  p.thread = b.thread;
  p.inside_library = inside_library;
  if (inside_library) library_launches_[b.thread].push_back(l.correlation);
  if (const auto early = early_gpu_.find(l.correlation); early != early_gpu_.end()) {
    ApplyGpu(p, early->second);
    early_gpu_.erase(early);
    if (!inside_library) return;  // nothing left to join
  }
  Remember(l.correlation, p);
}

void RunAnalyzer::Remember(uint64_t correlation, Pending pending) {
  if (pending_.emplace(correlation, pending).second) pending_order_.push_back(correlation);
  // Bounded: the oldest launches still without a GPU record are given up on.
  while (pending_.size() > max_pending_ && !pending_order_.empty()) {
    const uint64_t oldest = pending_order_.front();
    pending_order_.pop_front();
    if (const auto it = pending_.find(oldest); it != pending_.end()) {
      if (!it->second.gpu_seen) ++run_.unmatched_launches;
      pending_.erase(it);
    }
  }
  if (pending_order_.size() > 4 * max_pending_ + 1024) {
    // Compact the order queue: drop ids already resolved.
    std::deque<uint64_t> alive;
    for (uint64_t id : pending_order_) {
      if (pending_.contains(id)) alive.push_back(id);
    }
    pending_order_.swap(alive);
  }
}

void RunAnalyzer::ApplyGpu(Pending& p, const trace::GpuActivityRecord& gpu) {
  KernelGroup& g = kernels_[p.group];
  const uint64_t duration = gpu.end_ns > gpu.start_ns ? gpu.end_ns - gpu.start_ns : 0;
  const auto ns = static_cast<double>(duration);
  ++g.executions;
  g.gpu_ns += ns;
  g.gpu_durations.Add(duration);
  if (g.device < 0) g.device = gpu.device;
  AddFigures(g.timed, p.flops, p.special, p.flops_source, p.bytes, p.bytes_source);
  DeviceActivity& d = devices_[gpu.device];
  d.kernel_ns_by_source[SourceIndex(p.flops_source)] += ns;
  if (p.flops_source == FigureSource::kCatalog) d.catalog_flops += p.flops;
  if (p.library >= 0) {
    LibraryGroup& lib = libraries_[p.library];
    lib.gpu_ns += ns;
    lib.timed_flops += p.flops;
    lib.timed_bytes += p.bytes;
    AddKernelTime(lib, p.group, ns);
    if (lib.device < 0) lib.device = gpu.device;
  }
  p.gpu_seen = true;
  p.gpu_ns = ns;
}

void RunAnalyzer::AddGpu(const trace::GpuActivityRecord& gpu) {
  run_.gpu_timing = true;
  DeviceActivity& d = devices_[gpu.device];
  d.device = gpu.device;
  d.first_ns = std::min(d.first_ns, gpu.start_ns);
  d.last_ns = std::max(d.last_ns, gpu.end_ns);
  const double ns = gpu.end_ns > gpu.start_ns ? static_cast<double>(gpu.end_ns - gpu.start_ns) : 0;
  const auto kind = static_cast<trace::GpuActivityKind>(gpu.kind);
  if (kind != trace::GpuActivityKind::kKernel) {
    d.copy_ns += ns;
    const bool is_set = kind == trace::GpuActivityKind::kMemset;
    const auto key = std::make_tuple(true, gpu.copy_kind, gpu.src_kind, gpu.dst_kind, is_set);
    auto it = copy_index_.find(key);
    if (it == copy_index_.end()) {
      CopyGroup c;
      c.from_gpu = true;
      c.kind = static_cast<trace::CopyKind>(gpu.copy_kind);
      c.src = static_cast<trace::MemoryKind>(gpu.src_kind);
      c.dst = static_cast<trace::MemoryKind>(gpu.dst_kind);
      c.is_set = is_set;
      c.device = gpu.device;
      it = copy_index_.emplace(key, static_cast<uint32_t>(copies_.size())).first;
      copies_.push_back(c);
    }
    CopyGroup& c = copies_[it->second];
    ++c.count;
    c.bytes += static_cast<double>(gpu.bytes);
    c.ns += ns;
    return;
  }
  ++run_.gpu_kernel_records;
  d.kernel_ns += ns;
  ++d.kernels;
  const auto it = gpu.correlation != 0 ? pending_.find(gpu.correlation) : pending_.end();
  if (it != pending_.end()) {
    if (it->second.gpu_seen && measured_.contains(gpu.correlation)) {
      ++run_.replayed_gpu_records;  // a counter-measured launch replayed: one execution counts
      return;
    }
    ApplyGpu(it->second, gpu);
    // A launch made inside a cuBLAS call waits for the call's record to share its figures.
    if (!(it->second.inside_library && it->second.library < 0)) pending_.erase(it);
    return;
  }
  if (gpu.correlation != 0 && measured_.contains(gpu.correlation)) {
    ++run_.replayed_gpu_records;
    return;
  }
  if (const auto call =
          gpu.correlation != 0 ? library_calls_.find(gpu.correlation) : library_calls_.end();
      call != library_calls_.end()) {
    JoinLibraryGpu(call->second, gpu);
    return;
  }
  const bool launched_by_cpu =
      gpu.correlation != 0 && !(gpu.h.flags & (trace::kGpuFromGraph | trace::kGpuDeviceLaunched));
  if (launched_by_cpu && early_gpu_.size() < max_pending_) {
    early_gpu_.emplace(gpu.correlation, gpu);  // its launch record comes later in the file
    return;
  }
  // Graph nodes and device launches have no launch record: GPU time, name, no figures.
  Pending p;
  p.group = GroupFor(gpu.signature, "");
  ApplyGpu(p, gpu);
}

bool SameGroups(std::span<const trace::LibraryGroupShape> a, const trace::LibraryGroupsCut& a_cut,
                std::span<const trace::LibraryGroupShape> b, const trace::LibraryGroupsCut& b_cut) {
  const auto same = [](const trace::LibraryGroupShape& x, const trace::LibraryGroupShape& y) {
    return x.m == y.m && x.n == y.n && x.k == y.k && x.count == y.count && x.lda == y.lda &&
           x.ldb == y.ldb && x.ldc == y.ldc && x.trans_a == y.trans_a && x.trans_b == y.trans_b &&
           x.beta == y.beta;
  };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), same) && a_cut.groups == b_cut.groups &&
         a_cut.problems == b_cut.problems && a_cut.mnk == b_cut.mnk && a_cut.mk == b_cut.mk &&
         a_cut.kn == b_cut.kn && a_cut.mn == b_cut.mn && a_cut.mn_reads_c == b_cut.mn_reads_c;
}

void RunAnalyzer::NoteDamaged(const std::string& message) {
  if (run_.damaged_records++ < kMaxDamagedMessages) run_.damaged_messages.push_back(message);
}

// Every record passes through the collector: it pairs a grouped call's LibraryGroups records with
// the call (the record just before them) and refuses damaged ones; the row of the call gets the
// groups when they came whole.
void RunAnalyzer::AddLibraryGroups(const trace::RecordView& r) {
  switch (groups_collector_.Add(r)) {
    case trace::LibraryGroupsCollector::Step::kNone:
      return;
    case trace::LibraryGroupsCollector::Step::kDamaged:
      NoteDamaged(groups_collector_.error());
      return;
    case trace::LibraryGroupsCollector::Step::kComplete:
      break;
  }
  if (last_library_ >= libraries_.size()) return;
  LibraryGroup& g = libraries_[last_library_];
  if (!g.groups_known) {
    g.groups.assign(groups_collector_.groups().begin(), groups_collector_.groups().end());
    g.groups_cut = groups_collector_.cut();
    g.groups_known = true;
  } else if (!SameGroups(g.groups, g.groups_cut, groups_collector_.groups(),
                         groups_collector_.cut())) {
    g.groups_vary = true;
  }
}

void RunAnalyzer::AddLibraryCall(const trace::LibraryCallRecord& c, uint32_t thread,
                                 const StringLookup& strings) {
  auto it = library_index_.find(LibraryShapeKeyOf(c));
  if (it == library_index_.end()) {
    LibraryGroup g;
    g.routine = std::string(strings(c.name));
    if (g.routine.empty()) g.routine = std::string(BlasRoutineName(BlasRoutineFromId(c.routine)));
    g.routine_id = c.routine;
    g.shape = c;
    g.path = BlasComputePath(c);
    it = library_index_.emplace(LibraryShapeKeyOf(c), static_cast<uint32_t>(libraries_.size()))
             .first;
    libraries_.push_back(std::move(g));
  }
  const uint32_t index = it->second;
  last_library_ = index;
  LibraryGroup& g = libraries_[index];
  ++g.calls;
  if (c.status != 0) ++g.failed_calls;
  g.cpu_ns += c.exit_ns > c.enter_ns ? static_cast<double>(c.exit_ns - c.enter_ns) : 0;
  g.flops += c.flops;
  g.epilogue_flops += c.epilogue_flops;
  g.bytes += c.bytes;
  g.source = static_cast<FigureSource>(c.source);

  // The kernels this call launched: its figures are split evenly between them.
  std::vector<uint64_t> launched;
  launched.swap(library_launches_[thread]);
  g.kernels += launched.size();
  // A call recorded as plain FP32 whose kernel is a TF32 tensor-core kernel ran on TF32.
  if (g.path == ComputePath::kFp32) {
    for (uint64_t correlation : launched) {
      const auto p = pending_.find(correlation);
      if (p != pending_.end() && KernelNameSaysTf32(kernels_[p->second.group].name)) {
        g.path = ComputePath::kTf32Tensor;
        g.path_basis = PathBasis::kKernelName;
        break;
      }
    }
  }
  // The call's types (or its kernel's name) say which roof its kernels run against; a catalog
  // reading of a library kernel's name never overrides them.
  for (uint64_t correlation : launched) {
    if (const auto p = pending_.find(correlation); p != pending_.end()) {
      kernels_[p->second.group].path = g.path;
    }
  }
  const double share = launched.empty() ? 0 : 1.0 / static_cast<double>(launched.size());
  double longest = -1;
  for (uint64_t correlation : launched) {
    const auto p = pending_.find(correlation);
    if (p == pending_.end()) continue;
    Pending& pending = p->second;
    pending.library = index;
    // The call's data and compute types say which roof its kernels run against.
    if (kernels_[pending.group].path == ComputePath::kUnknown)
      kernels_[pending.group].path = g.path;
    // The call's share stands for the launch in every figure of its kernel row: the row over
    // all launches (added when the launch came, without it) as well as the timed one.
    FigureSource new_flops = FigureSource::kUnknown, new_bytes = FigureSource::kUnknown;
    if (!Known(pending.flops_source)) {
      pending.flops = c.flops * share;
      pending.flops_source = new_flops = static_cast<FigureSource>(c.source);
    }
    if (!Known(pending.bytes_source)) {
      pending.bytes = c.bytes * share;
      pending.bytes_source = new_bytes = static_cast<FigureSource>(c.source);
    }
    AddFigures(kernels_[pending.group].all, pending.flops, 0, new_flops, pending.bytes, new_bytes);
    const KernelGroup& kernel = kernels_[pending.group];
    if (pending.gpu_ns > longest || longest < 0) {
      longest = pending.gpu_ns;
      g.main_grid = kernel.grid;
      g.main_block = kernel.block;
    }
    if (pending.gpu_seen) {
      // The GPU record came before this call's record: account for it now.
      KernelGroup& kg = kernels_[pending.group];
      AddFigures(kg.timed, pending.flops, 0, pending.flops_source, pending.bytes,
                 pending.bytes_source);
      g.gpu_ns += pending.gpu_ns;
      g.timed_flops += pending.flops;
      g.timed_bytes += pending.bytes;
      AddKernelTime(g, pending.group, pending.gpu_ns);
      if (g.device < 0) g.device = kg.device;
      DeviceActivity& d = devices_[kg.device];
      d.kernel_ns_by_source[SourceIndex(pending.flops_source)] += pending.gpu_ns;
      d.kernel_ns_by_source[SourceIndex(FigureSource::kUnknown)] -= pending.gpu_ns;
      pending_.erase(p);
    }
  }
  if (c.correlation == 0) return;
  // Kernels whose GPU records carry the call's correlation (see library_calls_): joined with its
  // launches in order, those that came before this record first.
  while (library_calls_.size() >= max_pending_ && !library_call_order_.empty()) {
    library_calls_.erase(library_call_order_.front());
    library_call_order_.pop_front();
  }
  if (!library_calls_.contains(c.correlation)) library_call_order_.push_back(c.correlation);
  LibraryCallLaunches& call = library_calls_[c.correlation];
  call.library = index;
  for (uint64_t correlation : launched) {
    if (const auto p = pending_.find(correlation); p != pending_.end() && !p->second.gpu_seen) {
      call.waiting.push_back(correlation);
    }
  }
  const auto [first, last] = early_gpu_.equal_range(c.correlation);
  std::vector<trace::GpuActivityRecord> early;
  for (auto e = first; e != last; ++e) early.push_back(e->second);
  early_gpu_.erase(c.correlation);
  std::sort(early.begin(), early.end(),
            [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  for (const auto& gpu : early) JoinLibraryGpu(call, gpu);
}

void RunAnalyzer::JoinLibraryGpu(LibraryCallLaunches& call, const trace::GpuActivityRecord& gpu) {
  // Launches whose GPU record came (by their own correlation) are done with.
  std::erase_if(call.waiting, [&](uint64_t correlation) {
    const auto p = pending_.find(correlation);
    return p == pending_.end() || p->second.gpu_seen;
  });
  // The first launch of the same kernel signature, else the first: a call that also launches
  // through the driver (cuBLASLt) has launches whose records carry their own correlation.
  auto pick = std::find_if(call.waiting.begin(), call.waiting.end(), [&](uint64_t correlation) {
    return kernels_[pending_.at(correlation).group].signature == gpu.signature;
  });
  if (pick == call.waiting.end() && !call.waiting.empty()) pick = call.waiting.begin();
  if (pick != call.waiting.end()) {
    const auto p = pending_.find(*pick);
    call.waiting.erase(pick);
    ApplyGpu(p->second, gpu);
    pending_.erase(p);
    return;
  }
  // More kernels than launches seen (a launch flopspy did not record): the call's time still.
  Pending p;
  p.group = GroupFor(gpu.signature, "");
  p.library = call.library;
  ApplyGpu(p, gpu);
}

void RunAnalyzer::AddApiCall(const trace::ApiCallRecord& a) {
  const auto api = static_cast<trace::Api>(a.api);
  const bool is_set = IsSetApi(api);
  if (!IsCopyApi(api) && !is_set) return;
  const uint8_t kind = static_cast<uint8_t>(a.detail & 0xFF);
  const auto key = std::make_tuple(false, kind, static_cast<uint8_t>((a.detail >> 8) & 0xFF),
                                   static_cast<uint8_t>((a.detail >> 16) & 0xFF), is_set);
  auto it = copy_index_.find(key);
  if (it == copy_index_.end()) {
    CopyGroup c;
    c.kind = static_cast<trace::CopyKind>(kind);
    c.src = static_cast<trace::MemoryKind>((a.detail >> 8) & 0xFF);
    c.dst = static_cast<trace::MemoryKind>((a.detail >> 16) & 0xFF);
    c.is_set = is_set;
    c.device = a.device;
    it = copy_index_.emplace(key, static_cast<uint32_t>(copies_.size())).first;
    copies_.push_back(c);
  }
  CopyGroup& c = copies_[it->second];
  ++c.count;
  c.bytes += static_cast<double>(a.bytes);
  c.ns += a.exit_ns > a.enter_ns ? static_cast<double>(a.exit_ns - a.enter_ns) : 0;
}

RunAnalysis RunAnalyzer::Finish(const std::map<int32_t, DeviceRoofs>& roofs,
                                const RegimeThresholds& thresholds) {
  FinishBufferedLaunch();
  if (const std::string missing = groups_collector_.Finish(); !missing.empty()) {
    NoteDamaged(missing);
  }
  // GPU records whose launch never came, and launches whose GPU record never came.
  for (const auto& [correlation, gpu] : early_gpu_) {
    ++run_.unmatched_gpu_records;
    Pending p;
    p.group = GroupFor(gpu.signature, "");
    ApplyGpu(p, gpu);
  }
  early_gpu_.clear();
  for (const auto& [correlation, pending] : pending_) {
    if (!pending.gpu_seen) ++run_.unmatched_launches;
  }
  pending_.clear();
  ApplyCounterFigures();

  const auto roofs_for = [&](int32_t device) -> const DeviceRoofs* {
    if (const auto it = roofs.find(device); it != roofs.end()) return &it->second;
    // Without a device id (no GPU records) a single-GPU run still has one set of roofs.
    if (device < 0 && roofs.size() == 1) return &roofs.begin()->second;
    return nullptr;
  };

  for (KernelGroup& g : kernels_) {
    if (const DeviceRoofs* r = roofs_for(g.device))
      g.placement = PlaceKernelGroup(g, *r, thresholds);
  }
  for (LibraryGroup& g : libraries_) {
    const DeviceRoofs* r = roofs_for(g.device);
    if (IsGemmLike(BlasRoutineFromId(g.routine_id))) {
      GemmLaunchFacts facts;
      if (g.main_grid[0] != 0) facts.grid = g.main_grid;
      if (g.main_block[0] != 0) facts.block = g.main_block;
      if (r != nullptr) facts.sm_count = r->sm_count;
      if (g.gpu_ns > 0 && g.calls > 0) facts.gpu_time_ns = g.gpu_ns / static_cast<double>(g.calls);
      g.findings = DiagnoseGemm(g.shape, facts);
    }
    if (r != nullptr) g.placement = PlaceLibraryGroup(g, *r, thresholds);
  }

  // Per device: analytic (model) FLOPs by path, for MFU against the path that carries most.
  std::map<int32_t, std::map<ComputePath, double>> analytic_by_path;
  for (const LibraryGroup& g : libraries_) {
    if (Known(g.source)) analytic_by_path[g.device][g.path] += g.timed_flops;
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

  // Kernels by GPU time; the library groups' kernel indices follow them.
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
  std::sort(libraries_.begin(), libraries_.end(), [](const LibraryGroup& a, const LibraryGroup& b) {
    if (a.gpu_ns != b.gpu_ns) return a.gpu_ns > b.gpu_ns;
    return a.cpu_ns > b.cpu_ns;
  });
  std::sort(copies_.begin(), copies_.end(),
            [](const CopyGroup& a, const CopyGroup& b) { return a.ns > b.ns; });
  run_.kernels = std::move(kernels_);
  run_.libraries = std::move(libraries_);
  run_.copies = std::move(copies_);
  for (auto& [device, d] : devices_) run_.devices.push_back(d);
  return std::move(run_);
}

}  // namespace flopspy::analyzers
