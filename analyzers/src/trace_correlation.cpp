// TraceAnalyzer's GPU records: copies by direction, kernels through the join of correlator.h (a
// launch and its GPU record in either order, a cuBLAS call's own correlation), and what a joined
// record adds to its kernel, library and device rows.
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

void TraceAnalyzer::State::ApplyGpu(Pending& p, const trace::GpuActivityRecord& gpu) {
  KernelGroup& g = kernels_[p.group];
  const uint64_t duration = gpu.end_ns > gpu.start_ns ? gpu.end_ns - gpu.start_ns : 0;
  const auto ns = static_cast<double>(duration);
  ++g.executions;
  g.gpu_ns += ns;
  g.gpu_durations.Add(duration);
  if (g.device < 0) g.device = gpu.device;
  AddFigures(g.timed, p.flops, p.special, p.flops_source, p.bytes, p.bytes_source, ns);
  if (p.captured) {
    // A graph node's replay: a launch of its own in every figure (captured, it counted none).
    ++g.graph_executions;
    AddFigures(g.all, p.flops, p.special, p.flops_source, p.bytes, p.bytes_source);
  }
  DeviceActivity& d = devices_[gpu.device];
  d.kernel_ns_by_source[SourceIndex(p.flops_source)] += ns;
  if (p.flops_source == FigureSource::kCatalog) d.catalog_flops += p.flops;
  if (p.library >= 0) {
    LibraryGroup& lib = libraries_[p.library];
    lib.gpu_ns += ns;
    lib.timed_flops += p.flops;
    lib.timed_bytes += p.bytes;
    if (p.captured) {
      lib.flops += p.lib_flops;
      lib.bytes += p.lib_bytes;
      lib.epilogue_flops += p.lib_epilogue;
      ++lib.graph_kernels;
    }
    AddKernelTime(lib, p.group, ns);
    if (lib.device < 0) lib.device = gpu.device;
  }
  p.gpu_ns = ns;
  NoteActivity(&p, gpu);
}

// Graph nodes, device launches and records whose launch never came: GPU time, name, no figures.
void TraceAnalyzer::State::JoinHooks::Alone(const trace::GpuActivityRecord& gpu,
                                            const uint32_t* library) {
  Pending p;
  p.group = s.GroupFor(gpu.signature, "");
  if (library != nullptr) p.library = *library;
  s.ApplyGpu(p, gpu);
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
  if ((gpu.h.flags & trace::kGpuFromGraph) != 0 && JoinGraphKernel(gpu)) return;
  const bool from_cpu = !(gpu.h.flags & (trace::kGpuFromGraph | trace::kGpuDeviceLaunched));
  JoinHooks hooks{*this};
  if (join_.OnGpu(gpu.correlation, from_cpu, gpu, hooks) == Join::GpuJoin::kReplay) {
    ++run_.replayed_gpu_records;  // a counter-measured launch replayed: one execution counts
  }
}

void TraceAnalyzer::State::AddCopy(const trace::GpuActivityRecord& gpu) {
  DeviceActivity& d = devices_[gpu.device];
  const double ns = gpu.end_ns > gpu.start_ns ? static_cast<double>(gpu.end_ns - gpu.start_ns) : 0;
  const auto kind = static_cast<trace::GpuActivityKind>(gpu.kind);
  d.copy_ns += ns;
  const bool is_set = kind == trace::GpuActivityKind::kMemset;
  CopyGroup row;
  row.from_gpu = true;
  row.kind = static_cast<trace::CopyKind>(gpu.copy_kind);
  row.src = static_cast<trace::MemoryKind>(gpu.src_kind);
  row.dst = static_cast<trace::MemoryKind>(gpu.dst_kind);
  row.is_set = is_set;
  row.device = gpu.device;
  CountCopy(row, static_cast<double>(gpu.bytes), ns);
  NoteActivity(nullptr, gpu);
}

}  // namespace flopspy::analyzers
