#include "flopspy/analyzers/run_merge.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/display_text.h"
#include "group_placement.h"
#include "trace_analysis_state.h"

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;

constexpr char kSep = '\x1f';  // cannot occur in a kernel name or shape key

std::string Dims(const std::array<uint32_t, 3>& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

// The roofs a group of a trace is placed on, as TraceAnalyzer::Finish picks them: its device's,
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
  for (const int64_t v : shape.dnn_dims) key += kSep + std::to_string(v);
  for (const uint32_t v : {shape.epilogue, shape.flags}) key += kSep + std::to_string(v);
  return key;
}

std::string KernelShortLabel(const KernelGroup& g) {
  if (g.name.empty()) return "(unnamed kernel)";
  const FunctionNameParts parts = SplitFunctionName(g.name);
  std::string base = parts.base.empty() ? g.name : std::string(parts.base);
  // The operation even when the catalog has no model of it ("gelu"), as the report's labels.
  const std::string& op = g.op.empty() ? g.functor : g.op;
  if (!op.empty()) base = op + " · " + base;
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
  into.flops_ns += from.flops_ns;
  into.bytes_ns += from.bytes_ns;
}

void MergeKernelGroup(KernelGroup& into, const KernelGroup& from) {
  AddCounterSamples(
      into, {from.counter_samples, from.counter_flops_samples, from.counter_bytes_samples,
             from.counter_flops, from.counter_bytes, from.counter_valid, from.counter_flops_min,
             from.counter_flops_max, from.counter_bytes_min, from.counter_bytes_max});
  into.launches += from.launches;
  into.executions += from.executions;
  into.graph_executions += from.graph_executions;
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
  into.captured_calls += from.captured_calls;
  into.captured_kernels += from.captured_kernels;
  into.graph_kernels += from.graph_kernels;
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

namespace {

// Per model: pooled MFU parts, and whether every GPU's peak is on the same path.
struct MfuParts {
  double capacity = 0, analytic = 0, peak = 0;
  std::optional<ComputePath> path;
  bool agree = true;
};

// Group rows of the run, by model and key.
struct GroupIndex {
  std::map<std::pair<int, std::string>, size_t> kernels, libraries;
};

// A GPU of the run: its UUID, else host, pid and device index.
std::string GpuId(const TraceFacts& t, int32_t device) {
  const auto id = t.device_ids.find(device);
  return id != t.device_ids.end() && !id->second.empty()
             ? id->second
             : t.host + "/" + std::to_string(t.pid) + "/" + std::to_string(device);
}

// A trace's library kernel_time (indices into its kernels) added to a merged row's, whose
// indices are the merged kernels': advice tells overlapping findings apart with it.
void AddKernelTime(std::vector<std::pair<uint32_t, double>>& into,
                   const std::vector<std::pair<uint32_t, double>>& from,
                   const std::vector<size_t>& merged_row) {
  for (const auto& [index, ns] : from) {
    if (index >= merged_row.size()) continue;
    const auto row = static_cast<uint32_t>(merged_row[index]);
    const auto at =
        std::find_if(into.begin(), into.end(), [row](const auto& e) { return e.first == row; });
    if (at != into.end()) {
      at->second += ns;
    } else {
      into.emplace_back(row, ns);
    }
  }
}

// One trace's kernel and library groups into the run's rows of the same model and key.
void MergeTraceGroups(RunAggregate& out, ModelIndex& models, GroupIndex& index,
                      const TraceFacts& t) {
  std::set<size_t> seen_kernels, seen_libraries;
  // The trace's kernel rows by their merged row, for the libraries' kernel_time.
  std::vector<size_t> merged_row;
  merged_row.reserve(t.run->kernels.size());
  for (const KernelGroup& g : t.run->kernels) {
    out.kernel_gpu_ns += g.gpu_ns;
    if (g.timed.flops_source != FigureSource::kUnknown) out.kernel_flops += g.timed.flops;
    const int m = models.For(t, g.device);
    const auto [it, added] = index.kernels.try_emplace({m, KernelKey(g)}, out.kernels.size());
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
    merged_row.push_back(it->second);
  }
  for (const LibraryGroup& g : t.run->libraries) {
    const int m = models.For(t, g.device);
    const auto [it, added] = index.libraries.try_emplace({m, LibraryKey(g)}, out.libraries.size());
    if (added) {
      MergedLibrary l;
      l.group = g;
      l.group.device = m;
      l.group.placement.reset();
      l.group.findings.clear();
      l.group.kernel_time.clear();
      out.libraries.push_back(std::move(l));
    } else {
      MergeLibraryGroup(out.libraries[it->second].group, g);
    }
    AddKernelTime(out.libraries[it->second].group.kernel_time, g.kernel_time, merged_row);
    if (seen_libraries.insert(it->second).second) ++out.libraries[it->second].traces;
  }
}

// GPU counts and MFU per model, then over the run.
void FinishModels(RunAggregate& out, std::span<const TraceFacts> traces, ModelIndex& models,
                  std::map<int, MfuParts>& mfu) {
  std::map<int, std::set<std::string>> model_gpus;
  for (const TraceFacts& t : traces) {
    if (t.run == nullptr) continue;
    for (const DeviceActivity& d : t.run->devices) {
      const int m = models.For(t, d.device);
      if (m >= 0) model_gpus[m].insert(GpuId(t, d.device));
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
}

// Placement on each model's roofs (GEMM diagnostics again over the merged calls), the rows by
// GPU time, and the notes about what could not be placed.
void PlaceAndSort(RunAggregate& out, const RegimeThresholds& thresholds) {
  size_t unplaced = 0;
  double unplaced_ns = 0;
  // A merged group's device is its model's index.
  const auto model_roofs = [&out](int m) -> const DeviceRoofs* {
    return m >= 0 && out.models[m].roofs ? &*out.models[m].roofs : nullptr;
  };
  for (MergedKernel& k : out.kernels) {
    const DeviceRoofs* roofs = model_roofs(k.group.device);
    PlaceGroup(k.group, roofs, thresholds);
    if (roofs == nullptr && k.group.gpu_ns > 0) {
      ++unplaced;
      unplaced_ns += k.group.gpu_ns;
    }
  }
  for (MergedLibrary& l : out.libraries)
    PlaceGroup(l.group, model_roofs(l.group.device), thresholds);

  // Sorted through an order, so that the libraries' kernel_time follows the kernels' new rows.
  std::vector<size_t> order(out.kernels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&out](size_t a, size_t b) {
    const KernelGroup& x = out.kernels[a].group;
    const KernelGroup& y = out.kernels[b].group;
    if (x.gpu_ns != y.gpu_ns) return x.gpu_ns > y.gpu_ns;
    return x.launches > y.launches;
  });
  std::vector<MergedKernel> sorted;
  std::vector<uint32_t> new_row(order.size());
  sorted.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    new_row[order[i]] = static_cast<uint32_t>(i);
    sorted.push_back(std::move(out.kernels[order[i]]));
  }
  out.kernels = std::move(sorted);
  for (MergedLibrary& l : out.libraries) {
    for (auto& entry : l.group.kernel_time) entry.first = new_row[entry.first];
  }
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
                        WholePercentText(unplaced_ns / out.kernel_gpu_ns) +
                        " of the kernel time): they are merged but not placed on a roofline.");
  }
}

}  // namespace

RunAggregate AggregateRun(std::span<const TraceFacts> traces, const RegimeThresholds& thresholds) {
  RunAggregate out;
  out.traces = traces.size();
  ModelIndex models(out.models);
  std::set<int32_t> ranks;
  std::set<std::string> hosts;
  std::set<std::string> gpus;
  GroupIndex index;
  std::map<int, MfuParts> mfu;
  uint64_t first_realtime = UINT64_MAX, last_realtime = 0;

  for (const TraceFacts& t : traces) {
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
      gpus.insert(GpuId(t, d.device));
      const int m = models.For(t, d.device);
      if (m < 0) continue;
      MfuParts& parts = mfu[m];
      AddDevice(out.models[m], d, &parts.capacity, &parts.analytic, &parts.path, &parts.peak,
                &parts.agree);
    }
    MergeTraceGroups(out, models, index, t);
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
  FinishModels(out, traces, models, mfu);
  PlaceAndSort(out, thresholds);
  return out;
}

TraceAnalysis MergedAnalysis(const RunAggregate& run, std::span<const TraceFacts> traces) {
  TraceAnalysis merged;
  for (const MergedKernel& k : run.kernels) merged.kernels.push_back(k.group);
  for (const MergedLibrary& l : run.libraries) merged.libraries.push_back(l.group);
  merged.launches = run.launches;
  for (const TraceFacts& t : traces) {
    if (t.run == nullptr) continue;
    merged.gpu_timing = merged.gpu_timing || t.run->gpu_timing;
    merged.gpu_kernel_records += t.run->gpu_kernel_records;
    merged.copies.insert(merged.copies.end(), t.run->copies.begin(), t.run->copies.end());
  }
  return merged;
}

std::map<int32_t, DeviceRoofs> ModelRoofs(const RunAggregate& run) {
  std::map<int32_t, DeviceRoofs> roofs;
  for (size_t m = 0; m < run.models.size(); ++m) {
    if (run.models[m].roofs) roofs.emplace(static_cast<int32_t>(m), *run.models[m].roofs);
  }
  return roofs;
}

}  // namespace flopspy::analyzers
