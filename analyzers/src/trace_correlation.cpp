// TraceAnalyzer's joins, by correlation id: a launch and its kernel's GPU record in either
// order, and a cuBLAS call's own correlation, which CUPTI gives to the kernels the call launched
// through a runtime linked into the library. Bounded by max_pending_ on each side.
#include <algorithm>

#include "trace_analysis_state.h"

namespace flopspy::analyzers {

using trace::FigureSource;

void AddKernelTime(LibraryGroup& lib, uint32_t kernel_group, double ns) {
  for (auto& [group, time] : lib.kernel_time) {
    if (group == kernel_group) {
      time += ns;
      return;
    }
  }
  lib.kernel_time.emplace_back(kernel_group, ns);
}

void TraceAnalyzer::State::Remember(uint64_t correlation, Pending pending) {
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

void TraceAnalyzer::State::ApplyGpu(Pending& p, const trace::GpuActivityRecord& gpu) {
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

void TraceAnalyzer::State::AddGpu(const trace::GpuActivityRecord& gpu) {
  run_.gpu_timing = true;
  DeviceActivity& d = devices_[gpu.device];
  d.device = gpu.device;
  d.first_ns = std::min(d.first_ns, gpu.start_ns);
  d.last_ns = std::max(d.last_ns, gpu.end_ns);
  const double ns = gpu.end_ns > gpu.start_ns ? static_cast<double>(gpu.end_ns - gpu.start_ns) : 0;
  if (static_cast<trace::GpuActivityKind>(gpu.kind) != trace::GpuActivityKind::kKernel) {
    AddCopy(gpu);
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

void TraceAnalyzer::State::AddCopy(const trace::GpuActivityRecord& gpu) {
  DeviceActivity& d = devices_[gpu.device];
  const double ns = gpu.end_ns > gpu.start_ns ? static_cast<double>(gpu.end_ns - gpu.start_ns) : 0;
  const auto kind = static_cast<trace::GpuActivityKind>(gpu.kind);
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
}

// A library call's own correlation (see library_calls_): its launches still waiting for a GPU
// record, and the GPU records that came before the call's record, joined in start order.
void TraceAnalyzer::State::RememberLibraryCall(uint64_t correlation, uint32_t library,
                                               const std::vector<uint64_t>& launched) {
  // Kernels whose GPU records carry the call's correlation (see library_calls_): joined with its
  // launches in order, those that came before this record first.
  while (library_calls_.size() >= max_pending_ && !library_call_order_.empty()) {
    library_calls_.erase(library_call_order_.front());
    library_call_order_.pop_front();
  }
  if (!library_calls_.contains(correlation)) library_call_order_.push_back(correlation);
  LibraryCallLaunches& call = library_calls_[correlation];
  call.library = library;
  for (uint64_t launch : launched) {
    if (const auto p = pending_.find(launch); p != pending_.end() && !p->second.gpu_seen) {
      call.waiting.push_back(launch);
    }
  }
  const auto [first, last] = early_gpu_.equal_range(correlation);
  std::vector<trace::GpuActivityRecord> early;
  for (auto e = first; e != last; ++e) early.push_back(e->second);
  early_gpu_.erase(correlation);
  std::sort(early.begin(), early.end(),
            [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  for (const auto& gpu : early) JoinLibraryGpu(call, gpu);
}

void TraceAnalyzer::State::JoinLibraryGpu(LibraryCallLaunches& call,
                                          const trace::GpuActivityRecord& gpu) {
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

}  // namespace flopspy::analyzers
