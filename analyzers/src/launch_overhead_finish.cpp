// The launch-overhead analyzer, concluding part: timelines per device, signature figures, the
// verdict and the graphs estimate (docs/launch-overhead.md).
#include <algorithm>
#include <cstdint>
#include <map>

#include "flopspy/analyzers/launch_overhead.h"
#include "launch_overhead_state.h"

namespace flopspy::analyzers {

std::string_view OverheadVerdictName(OverheadVerdict verdict) {
  switch (verdict) {
    case OverheadVerdict::kUnknown:
      return "unknown";
    case OverheadVerdict::kNotOverheadBound:
      return "not_overhead_bound";
    case OverheadVerdict::kPartlyOverheadBound:
      return "partly_overhead_bound";
    case OverheadVerdict::kOverheadBound:
      return "overhead_bound";
  }
  return "unknown";
}

std::string_view OverheadRuleName(OverheadRule rule) {
  switch (rule) {
    case OverheadRule::kNoGpuTimes:
      return "no_gpu_times";
    case OverheadRule::kNoWindow:
      return "no_window";
    case OverheadRule::kStarved:
      return "starved";
    case OverheadRule::kStarvedAndLaunchBound:
      return "starved_and_launch_bound";
    case OverheadRule::kUnattributed:
      return "unattributed";
    case OverheadRule::kPartlyStarved:
      return "partly_starved";
    case OverheadRule::kFed:
      return "fed";
    case OverheadRule::kSampledGpuTimes:
      return "sampled_gpu_times";
  }
  return "no_gpu_times";
}

DurationStats DurationStats::Of(const DurationHistogram& h) {
  DurationStats s;
  s.count = h.count();
  if (s.count == 0) return s;
  s.mean_ns = h.Mean();
  s.p50_ns = h.Percentile(50);
  s.p95_ns = h.Percentile(95);
  s.total_ns = h.sum();
  s.max_ns = h.max();
  return s;
}

namespace {

double Fraction(uint64_t part, uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

SignatureOverhead Conclude(SignatureAgg& agg, const LaunchOverheadOptions& options) {
  SignatureOverhead out;
  out.mangled_name = std::move(agg.mangled_name);
  out.demangled_name = std::move(agg.demangled_name);
  out.grid = agg.grid;
  out.block = agg.block;
  out.launches = agg.launches;
  out.launch_ns = agg.launch_ns;
  out.failed_launches = agg.failed;
  out.gpu = DurationStats::Of(agg.gpu);
  out.without_launch = agg.without_launch;
  out.queued = agg.queued;
  if (agg.queued > 0) out.mean_queue_delay_ns = static_cast<double>(agg.queue_ns) / agg.queued;
  if (agg.launches > 0) {
    out.mean_launch_ns = static_cast<double>(agg.launch_ns) / static_cast<double>(agg.launches);
  }
  if (out.gpu.count > 0) {
    // The roofline's own overhead rule, so a kernel is launch-bound here exactly when the
    // roofline calls it overhead bound for being shorter than its launch.
    WorkSample work;
    work.gpu_time_ns = static_cast<double>(out.gpu.total_ns);
    work.calls = out.gpu.count;
    work.mean_launch_ns = out.mean_launch_ns;
    out.overhead_reason = PlaceOnRoofline(DeviceRoofs{}, work, options.regime).overhead_reason;
    out.launch_bound = out.overhead_reason == OverheadReason::kShorterThanLaunch;
    if (out.launch_bound) {
      out.launch_excess_ns =
          static_cast<double>(out.launches) * (*out.mean_launch_ns - out.gpu.mean_ns);
    }
  }
  return out;
}

void Judge(LaunchOverheadReport& r, const LaunchOverheadOptions& o) {
  OverheadJudgement& j = r.judgement;
  for (const DeviceOverhead& d : r.devices) {
    j.window_ns += d.window_ns;
    j.busy_ns += d.busy_ns;
    j.starved_ns += d.gaps[GapKind::kStarved].ns;
    j.synchronized_ns += d.gaps[GapKind::kSynchronized].ns;
    j.other_ns += d.gaps[GapKind::kOther].ns;
    j.unattributed_ns += d.gaps.unattributed.ns;
  }
  for (const SignatureOverhead& s : r.signatures) {
    if (s.launch_bound) j.launch_bound_gpu_ns += s.gpu.total_ns;
  }
  j.launch_bound_gpu_ns = std::min(j.launch_bound_gpu_ns, j.busy_ns);
  j.sampled = r.gpu_sampled;
  DecideOverheadVerdict(j, r.gpu_times, o);
}

}  // namespace

void DecideOverheadVerdict(OverheadJudgement& j, bool gpu_times, const LaunchOverheadOptions& o) {
  j.busy_fraction = Fraction(j.busy_ns, j.window_ns);
  j.starved_fraction = Fraction(j.starved_ns, j.window_ns);
  j.synchronized_fraction = Fraction(j.synchronized_ns, j.window_ns);
  j.other_fraction = Fraction(j.other_ns, j.window_ns);
  j.unattributed_fraction = Fraction(j.unattributed_ns, j.window_ns);
  j.launch_bound_fraction = Fraction(j.launch_bound_gpu_ns, j.window_ns);

  const auto decide = [&j](OverheadVerdict v, OverheadRule rule) {
    j.verdict = v;
    j.rule = rule;
  };
  const double starved = j.starved_fraction;
  if (!gpu_times) {
    decide(OverheadVerdict::kUnknown, OverheadRule::kNoGpuTimes);
  } else if (j.sampled) {
    decide(OverheadVerdict::kUnknown, OverheadRule::kSampledGpuTimes);
  } else if (j.window_ns == 0) {
    decide(OverheadVerdict::kUnknown, OverheadRule::kNoWindow);
  } else if (starved >= o.bound_starved_fraction) {
    decide(OverheadVerdict::kOverheadBound, OverheadRule::kStarved);
  } else if (starved >= o.combined_starved_fraction &&
             starved + j.launch_bound_fraction >= o.combined_total_fraction) {
    decide(OverheadVerdict::kOverheadBound, OverheadRule::kStarvedAndLaunchBound);
  } else if (j.unattributed_fraction >= o.unknown_unattributed_fraction) {
    decide(OverheadVerdict::kUnknown, OverheadRule::kUnattributed);
  } else if (starved >= o.partly_starved_fraction) {
    decide(OverheadVerdict::kPartlyOverheadBound, OverheadRule::kPartlyStarved);
  } else {
    decide(OverheadVerdict::kNotOverheadBound, OverheadRule::kFed);
  }
}

namespace {

// What CUDA graphs would save: each eager launch's cost, less a node's, where it left the GPU
// idle.
void EstimateGraphs(LaunchOverheadReport& r, const LaunchOverheadOptions& options) {
  if (r.gpu_times && !r.gpu_sampled && r.kernel_launches > 0) {
    GraphsEstimate& g = r.graphs;
    g.available = true;
    g.node_cost_ns = options.graph_node_cost_ns;
    g.mean_launch_ns = r.launch_cost.mean_ns;
    g.eager_launches = r.kernel_launches;
    for (const DeviceOverhead& d : r.devices) {
      g.saved_ns += d.graphs_saved_ns;
      g.gaps_shrunk += d.graphs_gaps;
    }
    g.saved_fraction =
        r.judgement.window_ns > 0 ? g.saved_ns / static_cast<double>(r.judgement.window_ns) : 0;
  }
}

// Caveats, in plain words.
void AddNotes(LaunchOverheadReport& r) {
  if (!r.gpu_times && r.kernel_launches + r.graph_launches > 0) {
    r.notes.push_back(
        "no GPU activity records (CUPTI unavailable or off): GPU times are missing, so busy "
        "time, idle gaps, launch-bound kernels and the verdict cannot be given; launch costs "
        "are CPU measurements and stand");
  }
  if (r.gpu_sampled) {
    r.notes.push_back(
        "GPU timing was sampled (FLOPSPY_GPU_TIMING=sampled): GPU records exist only inside the "
        "windows, so busy time, idle gaps and the verdict are not given for the run; launch "
        "costs are CPU measurements of every launch and stand");
  }
  if (r.gpu_times && r.unmatched_launches > 0) {
    r.notes.push_back(std::to_string(r.unmatched_launches) +
                      " launches have no GPU record (CUPTI records lost or cut off)");
  }
  if (r.gpu_times && r.unmatched_gpu > 0) {
    r.notes.push_back(std::to_string(r.unmatched_gpu) +
                      " GPU records have no launch or copy call (launch records lost): the "
                      "idle gaps before them count as other");
  }
  if (r.graph_kernels + r.device_kernels > 0) {
    r.notes.push_back(std::to_string(r.graph_kernels) + " graph-node and " +
                      std::to_string(r.device_kernels) +
                      " device-launched kernels count as GPU busy time but have no launch cost "
                      "of their own");
  }
  if (r.captured_launches > 0) {
    r.notes.push_back(std::to_string(r.captured_launches) +
                      " launches were recorded into CUDA graphs (stream capture or the graph "
                      "API) and ran nothing then: left out of the launch costs");
  }
  if (r.clock_anomalies > 0) {
    r.notes.push_back(std::to_string(r.clock_anomalies) +
                      " kernels started on the GPU before their launch call began (clock "
                      "mismatch): left out of the queue delay");
  }
  if (r.bad_gpu_records > 0) {
    r.notes.push_back(std::to_string(r.bad_gpu_records) +
                      " GPU records end before they start or have an unknown kind: ignored");
  }
}

}  // namespace

LaunchOverheadReport LaunchOverheadAnalyzer::State::Finish() {
  LaunchOverheadReport r;
  r.kernel_launches = launch_cost.count();
  r.failed_launches = failed_launches;
  r.graph_launches = graph_launch_cost.count();
  r.launch_cost = DurationStats::Of(launch_cost);
  r.graph_launch_cost = DurationStats::Of(graph_launch_cost);
  r.queue_delay = DurationStats::Of(queue_delay);
  if (cpu_first_ns != UINT64_MAX) {
    r.cpu_first_ns = cpu_first_ns;
    r.cpu_last_ns = cpu_last_ns;
    if (r.kernel_launches >= 2 && cpu_last_ns > cpu_first_ns) {
      r.launches_per_second = static_cast<double>(r.kernel_launches) * 1e9 /
                              static_cast<double>(cpu_last_ns - cpu_first_ns);
    }
  }
  r.sync_calls = sync_calls;
  r.sync_ns = sync_ns;
  r.gpu_kernels = gpu_kernels;
  r.gpu_copies = gpu_copies;
  r.gpu_sets = gpu_sets;
  r.gpu_times = gpu_kernels + gpu_copies + gpu_sets > 0;
  r.gpu_sampled = index.Sampling().sampled();
  r.graph_kernels = graph_kernels;
  r.captured_launches = captured_launches;
  r.device_kernels = device_kernels;
  r.unmatched_launches = joins.waiting_launches().size() + joins.waiting_launches().evicted();
  r.unmatched_gpu = joins.waiting_gpu().size() + joins.waiting_gpu().evicted();
  r.clock_anomalies = clock_anomalies;
  r.bad_gpu_records = bad_gpu_records;

  FinishTimelines(r);
  if (r.gpu_sampled) {
    // Between sampled windows the GPU's time is unknown, not idle: no timelines, busy
    // fractions or gaps (the signatures' figures stand on their timed launches).
    r.devices.clear();
    r.streams.clear();
    r.timeline_bins = 0;
    r.timeline_start_ns = r.timeline_bin_ns = 0;
  }
  for (SignatureAgg& agg : signatures) {
    if (agg.launches == 0 && agg.gpu.count() == 0) continue;
    r.signatures.push_back(Conclude(agg, options));
  }
  std::stable_sort(r.signatures.begin(), r.signatures.end(),
                   [](const SignatureOverhead& a, const SignatureOverhead& b) {
                     if (a.launch_excess_ns != b.launch_excess_ns) {
                       return a.launch_excess_ns > b.launch_excess_ns;
                     }
                     if (a.gpu.total_ns != b.gpu.total_ns) return a.gpu.total_ns > b.gpu.total_ns;
                     return a.launch_ns > b.launch_ns;
                   });

  Judge(r, options);

  EstimateGraphs(r, options);
  AddNotes(r);
  return r;
}

// Timelines, one device at a time, releasing each stream's intervals once walked.
void LaunchOverheadAnalyzer::State::FinishTimelines(LaunchOverheadReport& r) {
  const SyncIndex sync_index(std::move(syncs));
  syncs = {};
  std::map<int32_t, std::vector<uint32_t>> by_device;
  for (uint32_t i = 0; i < streams.size(); ++i) by_device[streams[i].device].push_back(i);
  const TimelineOptions timeline_options{options.graph_node_cost_ns};
  // One window for all devices, so their timelines line up.
  uint64_t first_ns = UINT64_MAX, last_ns = 0;
  for (const StreamAgg& stream : streams) {
    for (const GpuInterval& iv : stream.intervals) {
      first_ns = std::min(first_ns, iv.start_ns);
      last_ns = std::max(last_ns, iv.end_ns());
    }
  }
  if (options.timeline_bins > 0 && last_ns > first_ns) {
    const uint64_t bins = options.timeline_bins;
    r.timeline_start_ns = first_ns;
    r.timeline_bin_ns = (last_ns - first_ns + bins - 1) / bins;
    r.timeline_bins = options.timeline_bins;
  }
  for (auto& [device, slots] : by_device) {
    std::vector<std::span<const GpuInterval>> spans;
    for (const uint32_t slot : slots) {
      SortIntervals(streams[slot].intervals);
      spans.emplace_back(streams[slot].intervals);
    }
    const DeviceTimeline t = AnalyzeDeviceTimeline(spans, sync_index, timeline_options);
    DeviceOverhead d;
    d.device = device;
    d.first_start_ns = t.first_start_ns;
    d.window_ns = t.window_ns();
    d.busy_ns = t.busy_ns;
    d.busy_fraction = Fraction(t.busy_ns, d.window_ns);
    d.intervals = t.intervals;
    d.gaps = t.gaps;
    d.graphs_saved_ns = t.graphs_saved_ns;
    d.graphs_gaps = t.graphs_gaps;
    std::vector<StreamOverhead> device_streams;
    for (size_t i = 0; i < slots.size(); ++i) {
      StreamAgg& agg = streams[slots[i]];
      StreamOverhead s;
      s.device = agg.device;
      s.cupti_stream = agg.cupti_stream;
      s.stream_def = agg.stream_def;
      if (const trace::StreamDef* def = index.Stream(agg.stream_def)) {
        s.handle = def->handle;
        s.stream_flags = def->stream_flags;
      }
      s.kernels = agg.kernels;
      s.copies = agg.copies;
      s.sets = agg.sets;
      s.busy_ns = t.stream_busy_ns[i];
      s.busy_fraction = Fraction(s.busy_ns, d.window_ns);
      s.timeline = BusyBins(agg.intervals, r.timeline_start_ns, r.timeline_bin_ns, r.timeline_bins);
      device_streams.push_back(s);
      agg.intervals = {};
    }
    std::stable_sort(
        device_streams.begin(), device_streams.end(),
        [](const StreamOverhead& a, const StreamOverhead& b) { return a.busy_ns > b.busy_ns; });
    r.streams.insert(r.streams.end(), device_streams.begin(), device_streams.end());
    r.devices.push_back(d);
  }
}

}  // namespace flopspy::analyzers
