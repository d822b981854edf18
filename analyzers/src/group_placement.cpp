#include "group_placement.h"

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/gemm_diagnostics.h"
#include "trace_analysis_state.h"

namespace flopspy::analyzers {

std::optional<Placement> PlaceKernelGroup(const KernelGroup& g, const DeviceRoofs& roofs,
                                          const RegimeThresholds& thresholds) {
  if (g.executions == 0) return std::nullopt;
  WorkSample work;
  if (Known(g.timed.flops_source)) work.flops = g.timed.flops;
  if (Known(g.timed.bytes_source)) work.bytes = g.timed.bytes;
  work.path = g.path;
  work.gpu_time_ns = g.gpu_ns;
  work.calls = g.executions;
  // FLOPs known for some launches only: rates over those launches (docs/flopspy-report.md).
  work.calls_with_flops = g.timed.launches_with_flops;
  work.flops_time_ns = g.timed.flops_ns;
  work.calls_with_bytes = g.timed.launches_with_bytes;
  work.bytes_time_ns = g.timed.bytes_ns;
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

RoofsLookup RoofsOfDevice(const std::map<int32_t, DeviceRoofs>& roofs) {
  return [&roofs](int32_t device) -> const DeviceRoofs* {
    if (const auto it = roofs.find(device); it != roofs.end()) return &it->second;
    if (device < 0 && roofs.size() == 1) return &roofs.begin()->second;
    return nullptr;
  };
}

void PlaceGroup(KernelGroup& g, const DeviceRoofs* roofs, const RegimeThresholds& thresholds) {
  // A collective's time is the network's and its peers' (docs/nccl.md): no roofline says it.
  if (g.category == "collective") return;
  if (roofs != nullptr) g.placement = PlaceKernelGroup(g, *roofs, thresholds);
}

void PlaceGroup(LibraryGroup& g, const DeviceRoofs* roofs, const RegimeThresholds& thresholds) {
  if (IsCommRoutine(BlasRoutineFromId(g.routine_id))) return;  // as for its kernels, above
  if (IsGemmLike(BlasRoutineFromId(g.routine_id))) {
    GemmLaunchFacts facts;
    if (g.main_grid[0] != 0) facts.grid = g.main_grid;
    if (g.main_block[0] != 0) facts.block = g.main_block;
    if (roofs != nullptr) facts.sm_count = roofs->sm_count;
    if (g.gpu_ns > 0 && g.calls > 0) facts.gpu_time_ns = g.gpu_ns / static_cast<double>(g.calls);
    g.findings = DiagnoseGemm(g.shape, facts);
  }
  if (roofs != nullptr) g.placement = PlaceLibraryGroup(g, *roofs, thresholds);
}

void PlaceGroups(std::span<KernelGroup> kernels, std::span<LibraryGroup> libraries,
                 const RoofsLookup& roofs_for, const RegimeThresholds& thresholds) {
  for (KernelGroup& g : kernels) PlaceGroup(g, roofs_for(g.device), thresholds);
  for (LibraryGroup& g : libraries) PlaceGroup(g, roofs_for(g.device), thresholds);
}

}  // namespace flopspy::analyzers
