// The views of many traces as one run (docs/flopspy-report.md, "Many traces"): the traces'
// facts handed to the analyzers, the merged groups and totals, the per-rank table and the
// stragglers. Every output renders from these.
#pragma once

#include <string>
#include <vector>

#include "flopspy/analyzers/advice.h"
#include "flopspy/analyzers/communication.h"
#include "flopspy/analyzers/flop_coverage.h"
#include "flopspy/analyzers/rank_table.h"
#include "flopspy/analyzers/run_merge.h"
#include "flopspy/analyzers/run_regime.h"
#include "flopspy/analyzers/stragglers.h"
#include "report/lost_records.h"
#include "report/trace_report.h"

namespace flopspy::tools {

// One step number across the ranks that have it: AlignSteps' fastest, slowest and straggler, with
// the mean of the ranks' times.
struct StepAcrossRanks {
  analyzers::StepSkew skew;
  double mean_ns = 0;
  bool warmup = false;          // a warm-up step on any rank
  int32_t straggler_rank = -1;  // the straggler's rank; -1 when its trace has none
  std::string straggler_trace;  // the straggler's trace file
};

struct RunViews {
  std::vector<analyzers::TraceFacts> facts;  // one per trace, in order; unreadable: run null
  analyzers::RunAggregate aggregate;
  analyzers::RankTable ranks;
  analyzers::StragglerReport stragglers;
  // The whole run's regime: the merged kernels' time by regime, and the traces' launch-overhead
  // judgements pooled.
  analyzers::RunRegime regime;
  // The share of the merged kernels' time whose FLOPs are known, by source, and the merged rows
  // with the most unknown time (the same figure as each trace's, over the whole run).
  analyzers::FlopCoverage coverage;
  // Records lost, all traces: the aggregate's and the ranks' `lost` add up the same per-trace
  // totals (LostRecordsOf); exact only when every trace gives its own count.
  LostTotal lost;
  // The merged kernels' time by family and name, with the view options (BuildReportModel).
  KernelRollup rollup;
  // Advice on the merged run: the rules see the whole job's groups, not one rank's.
  std::vector<analyzers::Advice> advice;
  // Whether each trace's full report follows the run's (--per-trace, or two traces at most);
  // otherwise the outputs give each trace's facts only (docs/flopspy-report.md, "Many traces").
  bool traces_in_full = true;
  // "Steps across ranks": per step number, empty when no trace has steps.
  std::vector<StepAcrossRanks> steps;
  // "Communication across ranks": the same collective's start on every rank (docs/nccl.md).
  analyzers::CommSkewReport comm_skew;
};

// "Steps across ranks" from the traces' steps; empty when no trace has steps.
std::vector<StepAcrossRanks> StepsAcrossRanks(const std::vector<TraceReport>& traces);

// Above this many readable traces, each trace's full report needs --per-trace.
inline constexpr size_t kFullTracesUpTo = 2;

// How a trace ended, in a few words: "exit 0", "signal 9", "incomplete", "damaged".
std::string EndText(const TraceReport& t);

// What the analyzers need of each trace; pointers into `traces`, which must outlive the result.
std::vector<analyzers::TraceFacts> TraceFactsOf(const std::vector<TraceReport>& traces);

RunViews BuildRunViews(const std::vector<TraceReport>& traces,
                       const analyzers::RegimeThresholds& thresholds = {});

// Traces that could be read at all: the run views are shown when there are two or more.
size_t UsableTraces(const std::vector<TraceReport>& traces);

}  // namespace flopspy::tools
