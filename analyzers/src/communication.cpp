#include "flopspy/analyzers/communication.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "flopspy/analyzers/comm_formulas.h"
#include "flopspy/analyzers/display_text.h"
#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

// --- Collecting ------------------------------------------------------------------------------

void CommCollector::Add(const trace::RecordView& r, const trace::StringLookup& strings) {
  switch (r.type) {
    case trace::RecordType::kKernelSignature: {
      const auto s = r.As<trace::KernelSignatureDef>();
      const std::string_view name = strings(s.name);
      if (name.find("nccl") != std::string_view::npos) nccl_signatures_.insert(s.id);
      break;
    }
    case trace::RecordType::kKernelLaunch: {
      const auto l = r.As<trace::KernelLaunchRecord>();
      if ((l.h.flags & trace::kLaunchInsideLibrary) && nccl_signatures_.contains(l.signature)) {
        pending_[r.thread_id].push_back({l.correlation, l.enter_ns});
      }
      break;
    }
    case trace::RecordType::kGpuActivity: {
      const auto g = r.As<trace::GpuActivityRecord>();
      if (g.kind == static_cast<uint8_t>(trace::GpuActivityKind::kKernel) &&
          nccl_signatures_.contains(g.signature) && g.correlation != 0) {
        runs_.emplace(g.correlation, Run{g.start_ns, std::max(g.end_ns, g.start_ns)});
      }
      break;
    }
    case trace::RecordType::kLibraryCall: {
      const auto c = r.As<trace::LibraryCallRecord>();
      const BlasRoutine routine = BlasRoutineFromId(c.routine);
      if (!IsCommRoutine(routine)) break;
      CommCall call;
      call.routine = routine;
      call.thread = r.thread_id;
      call.device = c.device;
      call.enter_ns = c.enter_ns;
      call.exit_ns = std::max(c.exit_ns, c.enter_ns);
      call.correlation = c.correlation;
      call.count = c.m;
      call.type = c.type_a;
      call.nranks = c.n;
      call.rank = c.k;
      call.comm_id = static_cast<uint64_t>(c.ldb);
      call.seq = c.ldc;
      call.bytes = static_cast<double>(std::max<int64_t>(c.stride_a, 0));
      call.in_group = (c.flags & trace::kLibCommInGroup) != 0;
      call.failed = c.status != 0;
      const size_t index = calls_.size();
      calls_.push_back(call);
      if (call.in_group) open_group_[r.thread_id].push_back(index);
      if (routine == BlasRoutine::kNcclGroupEnd) {
        groups_.emplace_back(index, std::move(open_group_[r.thread_id]));
        open_group_.erase(r.thread_id);
      }
      if (c.correlation != 0) call_of_.emplace(c.correlation, index);
      // The nccl kernels this thread launched inside the call are the call's.
      if (auto it = pending_.find(r.thread_id); it != pending_.end()) {
        auto& launches = it->second;
        std::erase_if(launches, [&](const InsideLaunch& l) {
          if (l.enter_ns > call.exit_ns) return false;
          if (l.enter_ns >= call.enter_ns) call_of_.emplace(l.correlation, index);
          return true;
        });
      }
      break;
    }
    default:
      break;
  }
}

CommLog CommCollector::Finish() {
  for (const auto& [correlation, run] : runs_) {
    const auto it = call_of_.find(correlation);
    if (it == call_of_.end()) continue;
    CommCall& c = calls_[it->second];
    c.gpu_start_ns = c.kernels == 0 ? run.start : std::min(c.gpu_start_ns, run.start);
    c.gpu_end_ns = std::max(c.gpu_end_ns, run.end);
    c.gpu_ns += static_cast<double>(run.end - run.start);
    ++c.kernels;
  }
  for (const auto& [end, members] : groups_) {
    CommCall& e = calls_[end];
    if (members.size() != 1 || e.kernels == 0) continue;
    CommCall& only = calls_[members.front()];
    only.kernels = e.kernels;
    only.gpu_start_ns = e.gpu_start_ns;
    only.gpu_end_ns = e.gpu_end_ns;
    only.gpu_ns = e.gpu_ns;
    e.kernels = 0;
    e.gpu_ns = 0;
  }
  CommLog log;
  log.calls = std::move(calls_);
  calls_.clear();
  return log;
}

// --- One trace -------------------------------------------------------------------------------

namespace {

struct Interval {
  uint64_t start, end;
};

// Total length of `spans` covered by `cover` (both sorted by start; `cover` merged).
double Covered(std::vector<Interval> spans, const std::vector<Interval>& cover) {
  double covered = 0;
  for (const Interval& s : spans) {
    auto it = std::upper_bound(cover.begin(), cover.end(), s.start,
                               [](uint64_t t, const Interval& c) { return t < c.end; });
    for (; it != cover.end() && it->start < s.end; ++it) {
      const uint64_t from = std::max(s.start, it->start);
      const uint64_t to = std::min(s.end, it->end);
      if (to > from) covered += static_cast<double>(to - from);
    }
  }
  return covered;
}

std::vector<Interval> Merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (!out.empty() && i.start <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

void Advise(CommReport& report) {
  const double exposed = report.gpu_ns - report.overlapped_ns;
  if (report.kernel_ns > 0 && exposed >= 0.1 * report.kernel_ns) {
    report.advice.push_back(
        {CommAdvice::Kind::kExposed, exposed,
         "Communication is exposed: " + DurationText(exposed) + " of collective kernel time (" +
             WholePercentText(exposed / report.kernel_ns) +
             " of all kernel time) ran with no compute kernel beside it on the GPU. Overlap it "
             "with computation: DDP all-reduces a bucket of gradients while backward computes "
             "the next (bucket_cap_mb sets the bucket); FSDP prefetches the next layer's "
             "all-gather (forward_prefetch, backward_prefetch)."});
  }
  double small_ns = 0;
  uint64_t small_calls = 0;
  for (const CommRow& r : report.rows) {
    if (r.routine == BlasRoutine::kNcclGroupEnd || r.bytes <= 0 || r.bytes >= kSmallMessageBytes) {
      continue;
    }
    small_ns += r.gpu_ns;
    small_calls += r.timed_calls;
  }
  if (report.gpu_ns > 0 && small_ns > 0.5 * report.gpu_ns) {
    report.advice.push_back(
        {CommAdvice::Kind::kSmallMessages, small_ns,
         std::to_string(small_calls) + " collectives under 1 MiB hold " +
             WholePercentText(small_ns / report.gpu_ns) +
             " of the collective time: at that size latency, not bandwidth, sets their time. "
             "Fewer, larger collectives move the same bytes faster (larger DDP buckets, "
             "coalesced tensors, ncclGroupStart/End around many small calls)."});
  }
}

}  // namespace

CommReport AnalyzeCommunication(const CommLog& log, const TraceAnalysis& run) {
  CommReport report;
  using Key = std::tuple<uint16_t, uint8_t, double, int64_t>;
  std::map<Key, CommRow> rows;
  for (const CommCall& c : log.calls) {
    ++report.calls;
    if (c.failed) ++report.failed;
    if (c.routine != BlasRoutine::kNcclGroupEnd) report.bytes += c.bytes;
    CommRow& row = rows[{static_cast<uint16_t>(c.routine), c.type, c.bytes, c.nranks}];
    row.routine = c.routine;
    row.type = c.type;
    row.bytes = c.bytes;
    row.nranks = c.nranks;
    ++row.calls;
    row.cpu_ns += static_cast<double>(c.exit_ns - c.enter_ns);
    if (c.in_group) ++row.in_group;
    if (c.kernels > 0 && c.gpu_ns > 0) {
      ++row.timed_calls;
      row.gpu_ns += c.gpu_ns;
    }
  }
  for (auto& [key, row] : rows) {
    if (row.timed_calls > 0 && row.gpu_ns > 0 && row.bytes > 0) {
      row.algbw = row.bytes * static_cast<double>(row.timed_calls) / (row.gpu_ns * 1e-9);
      if (const auto factor = BusBandwidthFactor(row.routine, row.nranks)) {
        row.busbw = *row.algbw * *factor;
      }
    }
    report.rows.push_back(row);
  }
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [](const CommRow& a, const CommRow& b) { return a.gpu_ns > b.gpu_ns; });

  // Overlap, per device: collective kernels against every other kernel's interval.
  std::map<int32_t, std::pair<std::vector<Interval>, std::vector<Interval>>> by_device;
  for (const TimedActivity& a : run.activities) {
    if (a.is_copy || a.end_ns <= a.start_ns) continue;
    const bool collective =
        a.group < run.kernels.size() && run.kernels[a.group].category == "collective";
    const double ns = static_cast<double>(a.end_ns - a.start_ns);
    report.kernel_ns += ns;
    auto& [comm, compute] = by_device[a.device];
    if (collective) {
      report.gpu_ns += ns;
      comm.push_back({a.start_ns, a.end_ns});
    } else {
      compute.push_back({a.start_ns, a.end_ns});
    }
  }
  for (auto& [device, spans] : by_device) {
    if (spans.first.empty()) continue;
    report.overlapped_ns += Covered(Merged(spans.first), Merged(std::move(spans.second)));
  }
  Advise(report);
  return report;
}

// --- Across ranks ----------------------------------------------------------------------------

CommSkewReport AnalyzeCommSkew(std::span<const RankComm> ranks) {
  CommSkewReport report;
  report.ranks.resize(ranks.size());
  struct Seen {
    size_t trace;
    int64_t start;  // wall clock: integers, as a double would lose the nanoseconds
    double gpu_ns;
  };
  std::map<std::pair<uint64_t, int64_t>, std::vector<Seen>> by_collective;
  for (size_t t = 0; t < ranks.size(); ++t) {
    report.ranks[t].trace = t;
    report.ranks[t].label = ranks[t].label;
    if (ranks[t].host != ranks.front().host) report.several_hosts = true;
    if (ranks[t].log == nullptr) continue;
    for (const CommCall& c : ranks[t].log->calls) {
      if (report.ranks[t].rank < 0 && c.rank >= 0) report.ranks[t].rank = c.rank;
      if (c.comm_id == 0 || c.seq <= 0 || c.failed) continue;
      const uint64_t local = c.kernels > 0 ? c.gpu_start_ns : c.enter_ns;
      const int64_t wall = static_cast<int64_t>(local) + ranks[t].realtime_offset_ns;
      by_collective[{c.comm_id, c.seq}].push_back({t, wall, c.gpu_ns});
    }
  }
  double skew_sum = 0;
  for (const auto& [key, seen] : by_collective) {
    if (seen.size() < 2) continue;
    ++report.matched;
    const auto [first, last] = std::minmax_element(
        seen.begin(), seen.end(), [](const Seen& a, const Seen& b) { return a.start < b.start; });
    const auto skew = static_cast<double>(last->start - first->start);
    skew_sum += skew;
    report.max_skew_ns = std::max(report.max_skew_ns, skew);
    ++report.ranks[last->trace].last;
    for (const Seen& s : seen) {
      RankSkew& r = report.ranks[s.trace];
      ++r.matched;
      r.wait_ns += static_cast<double>(last->start - s.start);
      r.comm_ns += s.gpu_ns;
    }
  }
  if (report.matched > 0) report.mean_skew_ns = skew_sum / static_cast<double>(report.matched);
  // A straggler: last in more than half of the collectives, with a skew worth telling (the
  // others waited a tenth or more of their collective time for it).
  for (size_t t = 0; t < report.ranks.size(); ++t) {
    const RankSkew& r = report.ranks[t];
    if (report.matched == 0 || 2 * r.last <= report.matched) continue;
    double others_wait = 0, others_comm = 0;
    for (size_t u = 0; u < report.ranks.size(); ++u) {
      if (u == t) continue;
      others_wait += report.ranks[u].wait_ns;
      others_comm += report.ranks[u].comm_ns;
    }
    if (others_comm > 0 && others_wait >= 0.1 * others_comm) report.straggler = t;
  }
  return report;
}

}  // namespace flopspy::analyzers
