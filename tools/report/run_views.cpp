#include "report/run_views.h"

namespace flopspy::tools {

std::string EndText(const TraceReport& t) {
  if (!t.header_ok) return "unreadable";
  if (t.read.status != trace::ReadStatus::kOk) return "damaged";
  if (!t.summary.end) return "incomplete";
  const auto& end = *t.summary.end;
  const auto reason = static_cast<trace::EndReason>(end.reason);
  switch (reason) {
    case trace::EndReason::kExit:
      return end.value >= 0 ? "exit " + std::to_string(end.value) : "exit";
    case trace::EndReason::kSignal:
      return "signal " + std::to_string(end.value);
    default:
      return std::string(trace::EndReasonName(reason));
  }
}

std::vector<analyzers::TraceFacts> TraceFactsOf(const std::vector<TraceReport>& traces) {
  std::vector<analyzers::TraceFacts> facts;
  facts.reserve(traces.size());
  for (const TraceReport& t : traces) {
    analyzers::TraceFacts f;
    f.label = t.path;
    f.end = EndText(t);
    if (t.usable()) {
      const trace::FileHeader& h = t.header;
      f.host = t.host;
      f.pid = h.pid;
      f.parent_pid = h.parent_pid;
      f.forked = (h.flags & trace::kFileForkedChild) != 0;
      f.rank = h.rank;
      f.local_rank = h.local_rank;
      f.start_realtime_ns = h.start_realtime_ns;
      f.start_monotonic_ns = h.start_monotonic_ns;
      f.first_ns = t.summary.first_ns;
      f.last_ns = t.summary.last_ns;
      f.gpu_busy_ns = t.launch_overhead.judgement.busy_ns;
      f.gpu_window_ns = t.launch_overhead.judgement.window_ns;
      f.lost = LostRecordsOf(t).total;
      f.run = &t.run;
      f.regions = &t.regions;
      f.roofs = &t.roofs;
      for (const auto& [index, props] : t.devices) {
        if (!props.uuid.empty()) f.device_ids[index] = props.uuid;
      }
    }
    facts.push_back(std::move(f));
  }
  return facts;
}

RunViews BuildRunViews(const std::vector<TraceReport>& traces,
                       const analyzers::RegimeThresholds& thresholds) {
  RunViews views;
  views.facts = TraceFactsOf(traces);
  views.aggregate = analyzers::AggregateRun(views.facts, thresholds);
  views.ranks = analyzers::BuildRankTable(views.facts);
  views.stragglers = analyzers::FindStragglers(views.ranks);
  views.lost = LostTotalOf(traces);
  analyzers::OverheadJudgement pooled;
  bool gpu_times = false;
  for (const TraceReport& t : traces) {
    if (!t.usable()) continue;
    const analyzers::OverheadJudgement& j = t.launch_overhead.judgement;
    gpu_times = gpu_times || t.launch_overhead.gpu_times;
    pooled.window_ns += j.window_ns;
    pooled.busy_ns += j.busy_ns;
    pooled.starved_ns += j.starved_ns;
    pooled.synchronized_ns += j.synchronized_ns;
    pooled.other_ns += j.other_ns;
    pooled.unattributed_ns += j.unattributed_ns;
    pooled.launch_bound_gpu_ns += j.launch_bound_gpu_ns;
    pooled.sampled = pooled.sampled || j.sampled;
  }
  analyzers::DecideOverheadVerdict(pooled, gpu_times);
  std::vector<analyzers::KernelGroup> merged;
  merged.reserve(views.aggregate.kernels.size());
  for (const analyzers::MergedKernel& k : views.aggregate.kernels) merged.push_back(k.group);
  views.regime = analyzers::ClassifyRun(merged, pooled);
  views.coverage = analyzers::ComputeFlopCoverage(merged);
  views.steps = StepsAcrossRanks(traces);
  std::vector<analyzers::RankComm> comms;
  for (size_t i = 0; i < traces.size(); ++i) {
    const TraceReport& t = traces[i];
    comms.push_back(
        {t.path, t.host, views.facts[i].RealtimeOffset(), t.usable() ? &t.comm_log : nullptr});
  }
  views.comm_skew = analyzers::AnalyzeCommSkew(comms);
  views.advice = analyzers::AdviseRun(analyzers::MergedAnalysis(views.aggregate, views.facts),
                                      analyzers::ModelRoofs(views.aggregate));
  return views;
}

std::vector<StepAcrossRanks> StepsAcrossRanks(const std::vector<TraceReport>& traces) {
  std::vector<const analyzers::StepReport*> reports;
  for (const TraceReport& t : traces) reports.push_back(t.usable() ? &t.steps : nullptr);
  std::vector<StepAcrossRanks> out;
  for (const analyzers::StepSkew& skew : analyzers::AlignSteps(reports)) {
    if (skew.ranks == 0) continue;  // a number no rank has (steps are numbered from 1)
    StepAcrossRanks row;
    row.skew = skew;
    double sum = 0;
    for (const analyzers::StepReport* r : reports) {
      if (r == nullptr) continue;
      for (const analyzers::Step& step : r->steps) {
        if (step.number != skew.number) continue;
        sum += step.time_ns();
        row.warmup = row.warmup || step.warmup;
      }
    }
    row.mean_ns = sum / skew.ranks;
    const TraceReport& straggler = traces[skew.straggler];
    row.straggler_rank = straggler.header.rank;
    row.straggler_trace = straggler.path;
    out.push_back(std::move(row));
  }
  return out;
}

size_t UsableTraces(const std::vector<TraceReport>& traces) {
  size_t n = 0;
  for (const TraceReport& t : traces) n += t.usable() ? 1 : 0;
  return n;
}

}  // namespace flopspy::tools
