// The launch-overhead analyzer, streaming part: definitions, launches, API calls and GPU
// records folded into bounded state as they are read. launch_overhead_finish.cpp draws the
// conclusions.
#include "flopspy/analyzers/launch_overhead.h"

#include <algorithm>
#include <cstring>

#include "launch_overhead_state.h"

namespace flopspy::analyzers {

using trace::Api;
using trace::RecordType;

bool IsGraphLaunchApi(Api api) {
  switch (api) {
    case Api::kCuGraphLaunch:
    case Api::kCuGraphLaunchPtsz:
    case Api::kCudaGraphLaunch:
    case Api::kCudaGraphLaunchPtsz:
      return true;
    default:
      return false;
  }
}

bool IsSynchronizingApi(Api api) {
  switch (api) {
    case Api::kCuCtxSynchronize:
    case Api::kCuStreamSynchronize:
    case Api::kCuStreamSynchronizePtsz:
    case Api::kCuEventSynchronize:
    case Api::kCudaDeviceSynchronize:
    case Api::kCudaStreamSynchronize:
    case Api::kCudaStreamSynchronizePtsz:
    case Api::kCuMemcpy:  // the synchronous cuMemcpy* family
    case Api::kCudaMemcpy:
      return true;
    default:
      return false;
  }
}

bool IsCopyOrSetApi(Api api) {
  switch (api) {
    case Api::kCuMemcpy:
    case Api::kCuMemcpyAsync:
    case Api::kCuMemset:
    case Api::kCuMemsetAsync:
    case Api::kCudaMemcpy:
    case Api::kCudaMemcpyAsync:
    case Api::kCudaMemcpyAsyncPtsz:
    case Api::kCudaMemset:
    case Api::kCudaMemsetAsync:
      return true;
    default:
      return false;
  }
}

// --- State ------------------------------------------------------------------------------------

uint16_t LaunchOverheadAnalyzer::State::ThreadSlot(uint32_t thread_id) {
  if (thread_id == 0) return kUnknownThreadSlot;
  const auto it = thread_slots.find(thread_id);
  if (it != thread_slots.end()) return it->second;
  // Beyond 65,535 threads the rest share "unknown", which widens the sync rule to any thread.
  const uint16_t slot = thread_slots.size() < kUnknownThreadSlot
                            ? static_cast<uint16_t>(thread_slots.size())
                            : kUnknownThreadSlot;
  thread_slots.emplace(thread_id, slot);
  return slot;
}

void LaunchOverheadAnalyzer::State::SetSignatureSlot(uint32_t signature_id, uint32_t slot) {
  if (signature_id < kDenseSignatureIds) {
    if (signature_id >= signature_slot_dense.size()) {
      signature_slot_dense.resize(
          std::max<size_t>(signature_id + 1, signature_slot_dense.size() * 2), kNoSlot);
    }
    signature_slot_dense[signature_id] = slot;
  } else {
    signature_slot_sparse[signature_id] = slot;
  }
}

uint32_t LaunchOverheadAnalyzer::State::SignatureSlot(uint32_t signature_id) {
  if (signature_id < signature_slot_dense.size()) {
    if (const uint32_t slot = signature_slot_dense[signature_id]; slot != kNoSlot) return slot;
  } else if (signature_id >= kDenseSignatureIds) {
    const auto it = signature_slot_sparse.find(signature_id);
    if (it != signature_slot_sparse.end()) return it->second;
  }
  // An id without a definition (0, or a lost definition): one slot per id, no name.
  const uint32_t slot = static_cast<uint32_t>(signatures.size());
  signatures.emplace_back();
  SetSignatureSlot(signature_id, slot);
  return slot;
}

uint32_t LaunchOverheadAnalyzer::State::StreamSlot(int32_t device, uint32_t cupti_stream) {
  const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(device)) << 32) | cupti_stream;
  const auto it = stream_slot.find(key);
  if (it != stream_slot.end()) return it->second;
  const uint32_t slot = static_cast<uint32_t>(streams.size());
  streams.emplace_back();
  streams.back().device = device;
  streams.back().cupti_stream = cupti_stream;
  stream_slot.emplace(key, slot);
  return slot;
}

void LaunchOverheadAnalyzer::State::OnSignature(const trace::KernelSignatureDef& def) {
  const FunctionInfo* function = index.Function(def.function);
  // Signatures written without a name of their own take their function's mangled name.
  std::string_view name = index.SignatureName(def.id);
  if (name.empty() && function != nullptr) name = function->mangled;
  std::string key(name);
  key.push_back('\0');
  const size_t at = key.size();
  key.resize(at + sizeof(def.grid) + sizeof(def.block));
  std::memcpy(key.data() + at, def.grid, sizeof(def.grid));
  std::memcpy(key.data() + at + sizeof(def.grid), def.block, sizeof(def.block));
  auto [it, inserted] =
      slot_by_key.try_emplace(std::move(key), static_cast<uint32_t>(signatures.size()));
  if (inserted) {
    SignatureAgg agg;
    agg.mangled_name = std::string(name);
    if (function != nullptr) agg.demangled_name = function->demangled;
    std::copy(std::begin(def.grid), std::end(def.grid), agg.grid.begin());
    std::copy(std::begin(def.block), std::end(def.block), agg.block.begin());
    signatures.push_back(std::move(agg));
  } else if (signatures[it->second].demangled_name.empty() && function != nullptr) {
    signatures[it->second].demangled_name = function->demangled;
  }
  SetSignatureSlot(def.id, it->second);
}

void LaunchOverheadAnalyzer::State::OnGraphLaunch(uint64_t enter_ns, uint64_t exit_ns,
                                                  uint64_t correlation, uint16_t thread) {
  graph_launch_cost.Add(exit_ns >= enter_ns ? exit_ns - enter_ns : 0);
  // Sampled GPU timing: a replay between windows has no GPU records to wait for.
  if (correlation != 0 && index.Sampling().TimedAt(enter_ns)) {
    graph_submits.Insert(correlation, {exit_ns, thread});
  }
}

void LaunchOverheadAnalyzer::State::Join(const PendingSubmit& submit, StreamAgg& stream,
                                         GpuInterval& interval) {
  interval.SetSubmit(submit.enter_ns + submit.cost_ns, submit.thread_slot, submit.cost_ns,
                     submit.eager_kernel);
  if (stream.stream_def == 0) stream.stream_def = submit.stream_def;
  if (!submit.eager_kernel) return;
  if (interval.start_ns < submit.enter_ns) {
    ++clock_anomalies;
    return;
  }
  const uint64_t delay = interval.start_ns - submit.enter_ns;
  queue_delay.Add(delay);
  if (submit.sig_slot != kNoSlot) {
    SignatureAgg& sig = signatures[submit.sig_slot];
    ++sig.queued;
    sig.queue_ns += delay;
  }
}

void LaunchOverheadAnalyzer::State::OnLaunch(const trace::KernelLaunchRecord& l,
                                             uint32_t thread_id) {
  const uint16_t thread = ThreadSlot(thread_id);
  const uint64_t cost = l.duration_ns;
  const Api api = static_cast<Api>(l.api);
  if (IsGraphLaunchApi(api)) {
    OnGraphLaunch(l.enter_ns, l.enter_ns + cost, l.correlation, thread);
    return;
  }
  if ((l.h.flags & trace::kLaunchCaptured) != 0) {
    ++captured_launches;  // recorded into a CUDA graph: it submitted nothing
    return;
  }
  const uint32_t slot = SignatureSlot(l.signature);
  SignatureAgg& sig = signatures[slot];
  ++sig.launches;
  sig.launch_ns += cost;
  launch_cost.Add(cost);
  cpu_first_ns = std::min(cpu_first_ns, l.enter_ns);
  cpu_last_ns = std::max(cpu_last_ns, l.enter_ns + cost);
  if (l.result != 0) {
    ++sig.failed;
    ++failed_launches;
    return;
  }
  // Sampled GPU timing: a launch made between windows has no GPU record to wait for.
  if (!index.Sampling().TimedAt(l.enter_ns)) return;
  const PendingSubmit submit{l.enter_ns, static_cast<uint32_t>(cost), slot, l.stream, thread, true};
  if (const auto gpu = joins.OnLaunch(l.correlation, submit)) {
    StreamAgg& stream = streams[gpu->stream_slot];
    Join(submit, stream, stream.intervals[gpu->index]);
  }
}

void LaunchOverheadAnalyzer::State::OnApiCall(const trace::ApiCallRecord& a, uint8_t flags,
                                              uint32_t thread_id) {
  const Api api = static_cast<Api>(a.api);
  const uint16_t thread = ThreadSlot(thread_id);
  if (IsGraphLaunchApi(api)) {
    OnGraphLaunch(a.enter_ns, std::max(a.enter_ns, a.exit_ns), a.correlation, thread);
    return;
  }
  if ((flags & trace::kApiCallSynchronizing) != 0 || IsSynchronizingApi(api)) {
    const uint64_t exit = std::max(a.enter_ns, a.exit_ns);
    syncs.push_back({a.enter_ns, exit, thread});
    ++sync_calls;
    sync_ns += exit - a.enter_ns;
  }
  if (!IsCopyOrSetApi(api) || a.correlation == 0 || a.result != 0) return;
  const uint64_t cost = a.exit_ns > a.enter_ns ? a.exit_ns - a.enter_ns : 0;
  const PendingSubmit submit{
      a.enter_ns, static_cast<uint32_t>(std::min<uint64_t>(cost, UINT32_MAX)), kNoSlot, 0, thread,
      false};
  if (const auto gpu = joins.OnLaunch(a.correlation, submit)) {
    StreamAgg& stream = streams[gpu->stream_slot];
    // A copy's call may outlast 2^32 ns (a blocking copy of gigabytes): use its true exit.
    GpuInterval& interval = stream.intervals[gpu->index];
    interval.SetSubmit(std::max(a.enter_ns, a.exit_ns), thread, 0, false);
  }
}

void LaunchOverheadAnalyzer::State::OnGpu(const trace::GpuActivityRecord& g, uint8_t flags) {
  if (g.end_ns < g.start_ns || g.start_ns == 0) {
    ++bad_gpu_records;
    return;
  }
  GpuWorkKind kind;
  switch (static_cast<trace::GpuActivityKind>(g.kind)) {
    case trace::GpuActivityKind::kKernel:
      kind = GpuWorkKind::kKernel;
      break;
    case trace::GpuActivityKind::kMemcpy:
      kind = GpuWorkKind::kMemcpy;
      break;
    case trace::GpuActivityKind::kMemset:
      kind = GpuWorkKind::kMemset;
      break;
    default:
      ++bad_gpu_records;
      return;
  }
  const uint32_t stream_index = StreamSlot(g.device, g.stream);
  StreamAgg& stream = streams[stream_index];
  const bool graph = (flags & trace::kGpuFromGraph) != 0;
  const bool device_launched = (flags & trace::kGpuDeviceLaunched) != 0;
  uint8_t iflags = 0;
  if (graph) iflags |= GpuInterval::kGraphNode;
  if (device_launched) iflags |= GpuInterval::kDeviceLaunched;
  GpuInterval interval = GpuInterval::Make(g.start_ns, g.end_ns, kind, iflags);

  if (kind == GpuWorkKind::kKernel) {
    ++gpu_kernels;
    ++stream.kernels;
    SignatureAgg& sig = signatures[SignatureSlot(g.signature)];
    sig.gpu.Add(g.end_ns - g.start_ns);
    if (graph || device_launched) {
      ++sig.without_launch;
      ++(graph ? graph_kernels : device_kernels);
    }
  } else {
    ++(kind == GpuWorkKind::kMemcpy ? gpu_copies : gpu_sets);
    ++(kind == GpuWorkKind::kMemcpy ? stream.copies : stream.sets);
  }

  if (device_launched) {
    // Launched by another kernel: no CPU call submitted it.
  } else if (graph) {
    if (const GraphSubmit* submit = graph_submits.Find(g.correlation)) {
      interval.SetSubmit(submit->exit_ns, submit->thread_slot, 0, false);
    }
  } else {
    // Without its submit yet, the interval waits at the index it is about to take.
    const PendingGpu waiting{stream_index, static_cast<uint32_t>(stream.intervals.size())};
    if (const auto submit = joins.OnGpu(g.correlation, waiting)) Join(*submit, stream, interval);
  }
  stream.intervals.push_back(interval);
}

// --- Analyzer ---------------------------------------------------------------------------------

LaunchOverheadAnalyzer::LaunchOverheadAnalyzer(LaunchOverheadOptions options)
    : state_(std::make_unique<State>(options, nullptr)) {}
LaunchOverheadAnalyzer::LaunchOverheadAnalyzer(const TraceIndex& shared,
                                               LaunchOverheadOptions options)
    : shared_index_(&shared), state_(std::make_unique<State>(options, &shared)) {}
LaunchOverheadAnalyzer::~LaunchOverheadAnalyzer() = default;
LaunchOverheadAnalyzer::LaunchOverheadAnalyzer(LaunchOverheadAnalyzer&&) noexcept = default;
LaunchOverheadAnalyzer& LaunchOverheadAnalyzer::operator=(LaunchOverheadAnalyzer&&) noexcept =
    default;

void LaunchOverheadAnalyzer::Add(const trace::RecordView& r, const StringLookup& strings) {
  State& s = *state_;
  if (s.own_index) s.own_index->Add(r, strings);
  switch (r.type) {
    case RecordType::kKernelSignature:
      s.OnSignature(r.As<trace::KernelSignatureDef>());
      break;
    case RecordType::kKernelLaunch:
      s.OnLaunch(r.As<trace::KernelLaunchRecord>(), r.thread_id);
      break;
    case RecordType::kApiCall:
      s.OnApiCall(r.As<trace::ApiCallRecord>(), r.flags, r.thread_id);
      break;
    case RecordType::kGpuActivity:
      s.OnGpu(r.As<trace::GpuActivityRecord>(), r.flags);
      break;
    default:
      break;
  }
}

size_t LaunchOverheadAnalyzer::MemoryBytes() const {
  const State& s = *state_;
  size_t bytes =
      s.joins.MemoryBytes() + s.graph_submits.MemoryBytes() + s.syncs.capacity() * sizeof(SyncSpan);
  for (const StreamAgg& stream : s.streams) {
    bytes += stream.intervals.capacity() * sizeof(GpuInterval);
  }
  for (const SignatureAgg& sig : s.signatures)
    bytes += sizeof(SignatureAgg) + sig.gpu.MemoryBytes();
  return bytes;
}

LaunchOverheadReport LaunchOverheadAnalyzer::Finish() {
  LaunchOverheadReport report = state_->Finish();
  state_ = std::make_unique<State>(state_->options, shared_index_);
  return report;
}

}  // namespace flopspy::analyzers
