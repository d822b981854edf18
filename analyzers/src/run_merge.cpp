#include "flopspy/analyzers/run_merge.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/gemm_diagnostics.h"

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;

constexpr char kSep = '\x1f';  // cannot occur in a kernel name or shape key

std::string Dims(const std::array<uint32_t, 3>& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

// The roofs a group of a trace is placed on, as RunAnalyzer::Finish picks them: its device's,
// or the only device's when the group has no device (no GPU record).
const DeviceRoofs* RoofsFor(const TraceFacts& t, int32_t device, int32_t* resolved) {
  *resolved = device;
  if (t.roofs == nullptr) return nullptr;
  if (const auto it = t.roofs->find(device); it != t.roofs->end()) return &it->second;
  if (device < 0 && t.roofs->size() == 1) {
    *resolved = t.roofs->begin()->first;
    return &t.roofs->begin()->second;
  }
  return nullptr;
}

// Finds or adds the model of one device of a trace; -1 when the group has no device at all.
class ModelIndex {
 public:
  explicit ModelIndex(std::vector<DeviceModel>& models) : models_(models) {}

  int For(const TraceFacts& t, int32_t device) {
    int32_t resolved = device;
    const DeviceRoofs* roofs = RoofsFor(t, device, &resolved);
    if (roofs == nullptr && resolved < 0) return -1;
    const std::string name = roofs ? roofs->name : "unknown GPU";
    const int sm = roofs ? roofs->sm_count : 0;
    const auto key = std::make_pair(name, sm);
    if (const auto it = index_.find(key); it != index_.end()) return it->second;
    DeviceModel m;
    m.name = name;
    m.sm_count = sm;
    if (roofs) m.roofs = *roofs;
    models_.push_back(std::move(m));
    const int i = static_cast<int>(models_.size() - 1);
    index_.emplace(key, i);
    return i;
  }

 private:
  std::vector<DeviceModel>& models_;
  std::map<std::pair<std::string, int>, int> index_;
};

void AddDevice(DeviceModel& m, const DeviceActivity& d, double* capacity, double* analytic,
               std::optional<ComputePath>* path, double* peak, bool* paths_agree) {
  const double active = d.last_ns > d.first_ns ? static_cast<double>(d.last_ns - d.first_ns) : 0;
  m.active_ns += active;
  m.kernel_ns += d.kernel_ns;
  m.copy_ns += d.copy_ns;
  m.kernels += d.kernels;
  for (size_t i = 0; i < 4; ++i) m.kernel_ns_by_source[i] += d.kernel_ns_by_source[i];
  m.analytic_flops += d.analytic_flops;
  m.catalog_flops += d.catalog_flops;
  m.counter_flops += d.counter_flops;
  if (!d.utilization || d.utilization->nominal_peak <= 0 || active <= 0) return;
  // MFU = analytic FLOPs / (span x peak) per GPU: summing both sides pools the GPUs.
  *capacity += active / 1e9 * d.utilization->nominal_peak;
  *analytic += d.analytic_flops;
  if (!*path) {
    *path = d.utilization->roof_path;
    *peak = d.utilization->nominal_peak;
  } else if (**path != d.utilization->roof_path || *peak != d.utilization->nominal_peak) {
    *paths_agree = false;
  }
}

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", 100 * fraction);
  return buf;
}

}  // namespace

std::string KernelKey(const KernelGroup& g) {
  return g.name + kSep + g.shape_key + kSep + Dims(g.grid) + kSep + Dims(g.block);
}

std::string LibraryKey(const LibraryGroup& g) {
  const trace::LibraryCallRecord& s = g.shape;
  std::string key = g.routine;
  for (const int64_t v : {s.m, s.n, s.k, s.batch}) key += kSep + std::to_string(v);
  // The same fields as one trace's grouping (LibraryShapeKeyOf), the name id aside.
  const LibraryShapeKey shape = LibraryShapeKeyOf(s);
  for (const uint8_t v : shape.types) key += kSep + std::to_string(v);
  for (const uint8_t v : shape.ops) key += kSep + std::to_string(v);
  for (const uint32_t v : {shape.epilogue, shape.flags}) key += kSep + std::to_string(v);
  return key;
}

std::string KernelShortLabel(const KernelGroup& g) {
  if (g.name.empty()) return "(unnamed kernel)";
  const FunctionNameParts parts = SplitFunctionName(g.name);
  std::string base = parts.base.empty() ? g.name : std::string(parts.base);
  if (!g.functor.empty()) base = g.functor + " · " + base;
  if (!g.shape_key.empty()) base += " [" + g.shape_key + "]";
  return base;
}

std::string LibraryShortLabel(const LibraryGroup& g) {
  const trace::LibraryCallRecord& s = g.shape;
  std::string label =
      g.routine + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (s.batch > 1) label += " b" + std::to_string(s.batch);
  label += " " + std::string(DataTypeName(s.type_a));
  if (s.type_d != s.type_a && s.type_d != 0xFF) label += "->" + std::string(DataTypeName(s.type_d));
  return label;
}

RunAggregate AggregateRun(std::span<const TraceFacts> traces, const RegimeThresholds& thresholds) {
  RunAggregate out;
  out.traces = traces.size();
  ModelIndex models(out.models);
  std::set<int32_t> ranks;
  std::set<std::string> hosts;
  std::set<std::string> gpus;
  std::map<std::pair<int, std::string>, size_t> kernel_index, library_index;
  // Per model: pooled MFU parts, and whether every GPU's peak is on the same path.
  struct MfuParts {
    double capacity = 0, analytic = 0, peak = 0;
    std::optional<ComputePath> path;
    bool agree = true;
  };
  std::map<int, MfuParts> mfu;
  uint64_t first_realtime = UINT64_MAX, last_realtime = 0;

  for (size_t ti = 0; ti < traces.size(); ++ti) {
    const TraceFacts& t = traces[ti];
    if (t.run == nullptr) continue;
    ++out.processes;
    if (t.rank >= 0) ranks.insert(t.rank);
    hosts.insert(t.host);
    out.gpu_busy_ns += t.gpu_busy_ns;
    out.gpu_window_ns += t.gpu_window_ns;
    out.lost += t.lost;
    out.launches += t.run->launches;
    if (t.HasEvents()) {
      const int64_t offset = t.RealtimeOffset();
      first_realtime = std::min(first_realtime, static_cast<uint64_t>(t.first_ns + offset));
      last_realtime = std::max(last_realtime, static_cast<uint64_t>(t.last_ns + offset));
    }
    for (const DeviceActivity& d : t.run->devices) {
      const auto id = t.device_ids.find(d.device);
      gpus.insert(id != t.device_ids.end() && !id->second.empty()
                      ? id->second
                      : t.host + "/" + std::to_string(t.pid) + "/" + std::to_string(d.device));
      const int m = models.For(t, d.device);
      if (m < 0) continue;
      MfuParts& parts = mfu[m];
      AddDevice(out.models[m], d, &parts.capacity, &parts.analytic, &parts.path, &parts.peak,
                &parts.agree);
    }
    std::set<size_t> seen_kernels, seen_libraries;
    for (const KernelGroup& g : t.run->kernels) {
      out.kernel_gpu_ns += g.gpu_ns;
      if (g.timed.flops_source != FigureSource::kUnknown) out.kernel_flops += g.timed.flops;
      const int m = models.For(t, g.device);
      const auto [it, added] = kernel_index.try_emplace({m, KernelKey(g)}, out.kernels.size());
      if (added) {
        MergedKernel k;
        k.group = g;
        k.group.device = m;
        k.group.placement.reset();
        out.kernels.push_back(std::move(k));
      } else {
        MergeKernelGroup(out.kernels[it->second].group, g);
      }
      if (seen_kernels.insert(it->second).second) ++out.kernels[it->second].traces;
    }
    for (const LibraryGroup& g : t.run->libraries) {
      const int m = models.For(t, g.device);
      const auto [it, added] = library_index.try_emplace({m, LibraryKey(g)}, out.libraries.size());
      if (added) {
        MergedLibrary l;
        l.group = g;
        l.group.device = m;
        l.group.placement.reset();
        l.group.findings.clear();
        out.libraries.push_back(std::move(l));
      } else {
        MergeLibraryGroup(out.libraries[it->second].group, g);
      }
      if (seen_libraries.insert(it->second).second) ++out.libraries[it->second].traces;
    }
  }
  out.ranks = ranks.size();
  out.hosts = hosts.size();
  out.gpus = gpus.size();
  if (first_realtime != UINT64_MAX) {
    out.first_realtime_ns = first_realtime;
    out.last_realtime_ns = last_realtime;
  }
  if (out.gpu_window_ns > 0) {
    out.busy_fraction =
        static_cast<double>(out.gpu_busy_ns) / static_cast<double>(out.gpu_window_ns);
  }

  // GPU counts and MFU per model, then over the run.
  std::map<int, std::set<std::string>> model_gpus;
  for (const TraceFacts& t : traces) {
    if (t.run == nullptr) continue;
    for (const DeviceActivity& d : t.run->devices) {
      const int m = models.For(t, d.device);
      if (m < 0) continue;
      const auto id = t.device_ids.find(d.device);
      model_gpus[m].insert(id != t.device_ids.end() && !id->second.empty()
                               ? id->second
                               : t.host + "/" + std::to_string(t.pid) + "/" +
                                     std::to_string(d.device));
    }
  }
  double capacity = 0, analytic = 0;
  for (size_t m = 0; m < out.models.size(); ++m) {
    DeviceModel& model = out.models[m];
    model.gpus = static_cast<uint32_t>(model_gpus[static_cast<int>(m)].size());
    const MfuParts& parts = mfu[static_cast<int>(m)];
    model.mfu_capacity = parts.capacity;
    if (parts.capacity > 0 && parts.analytic > 0) model.mfu = parts.analytic / parts.capacity;
    if (parts.agree && parts.path) {
      model.mfu_path = parts.path;
      model.nominal_peak = parts.peak;
    }
    capacity += parts.capacity;
    analytic += parts.analytic;
  }
  out.analytic_flops = analytic;
  out.mfu_capacity = capacity;
  if (capacity > 0 && analytic > 0) out.mfu = analytic / capacity;

  // Placement on the model's roofs; GEMM diagnostics again over the merged calls.
  size_t unplaced = 0;
  double unplaced_ns = 0;
  for (MergedKernel& k : out.kernels) {
    const int m = k.group.device;
    if (m >= 0 && out.models[m].roofs) {
      k.group.placement = PlaceKernelGroup(k.group, *out.models[m].roofs, thresholds);
    } else if (k.group.gpu_ns > 0) {
      ++unplaced;
      unplaced_ns += k.group.gpu_ns;
    }
  }
  for (MergedLibrary& l : out.libraries) {
    LibraryGroup& g = l.group;
    const int m = g.device;
    const DeviceRoofs* roofs = m >= 0 && out.models[m].roofs ? &*out.models[m].roofs : nullptr;
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

  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const MergedKernel& a, const MergedKernel& b) {
                     if (a.group.gpu_ns != b.group.gpu_ns) return a.group.gpu_ns > b.group.gpu_ns;
                     return a.group.launches > b.group.launches;
                   });
  std::stable_sort(out.libraries.begin(), out.libraries.end(),
                   [](const MergedLibrary& a, const MergedLibrary& b) {
                     if (a.group.gpu_ns != b.group.gpu_ns) return a.group.gpu_ns > b.group.gpu_ns;
                     return a.group.cpu_ns > b.group.cpu_ns;
                   });

  if (out.mixed_models()) {
    std::string names;
    for (const DeviceModel& m : out.models) {
      names += (names.empty() ? "" : ", ") + m.name + " (" + std::to_string(m.gpus) + ")";
    }
    out.notes.push_back("The traces used different GPU models (" + names +
                        "): each kernel and library shape is merged and placed per model, "
                        "against that model's roofs.");
  }
  if (unplaced > 0 && out.kernel_gpu_ns > 0) {
    out.notes.push_back(std::to_string(unplaced) +
                        " kernel signatures ran on GPUs whose roofs are unknown (" +
                        Percent(unplaced_ns / out.kernel_gpu_ns) +
                        " of the kernel time): they are merged but not placed on a roofline.");
  }
  return out;
}

}  // namespace flopspy::analyzers
