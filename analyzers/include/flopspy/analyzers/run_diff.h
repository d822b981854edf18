// Two runs compared (flopspy-report --diff A B): per kernel signature and per library shape,
// the count, GPU time, mean time, achieved FLOP/s and share of the roof in A and in B, and the
// change; work found in one run only is listed as such. docs/flopspy-report.md, "Comparing
// runs".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/analyzers/rank_table.h"
#include "flopspy/analyzers/run_merge.h"

namespace flopspy::analyzers {

// One kernel signature or library shape in one run, over every GPU model it ran on.
struct DiffFigures {
  bool present = false;
  // GPU executions (kernels) or calls (libraries); a kernel without GPU records counts its
  // launches, so a kernel launched but not timed is not "0".
  uint64_t count = 0;
  uint64_t launches = 0;    // kernels: CPU launch records
  uint64_t executions = 0;  // kernels: GPU kernel records
  // False when the run has no GPU time for it (no GPU records): gpu_ns is then unknown, not 0.
  bool gpu_time_known = false;
  double gpu_ns = 0;
  double mean_ns = 0;                 // per execution or call; 0 without GPU time
  std::optional<double> flops_per_s;  // achieved: timed FLOPs (known figure) over GPU time
  // Of the attainable FLOP/s, time-weighted over the row's signatures; only on one GPU model.
  std::optional<double> pct_of_roof;
  uint32_t models = 0;      // GPU models it ran on
  uint32_t signatures = 0;  // kernel signatures (launch shapes) merged into the row
  // GPU time per step, when both runs mark the same step (DiffRow's ranking is then per step).
  std::optional<double> per_step_ns;
};

// What makes two kernels one row: their name (demangled, with its template arguments, so the
// functor), whatever their launch shape; or their signature (name, catalog shape, grid and
// block). Library calls always match by routine and shape.
enum class DiffMatch { kName, kSignature };
std::string_view DiffMatchName(DiffMatch match);  // name, signature
std::optional<DiffMatch> DiffMatchFromName(std::string_view name);

// What the rows are ranked by: the change of GPU time per step when both runs mark the same
// step region, else the change per call (docs/flopspy-report.md, "Comparing runs").
enum class DiffBasis { kPerCall, kPerStep };
std::string_view DiffBasisName(DiffBasis basis);  // per_call, per_step

enum class DiffPresence { kBoth, kOnlyA, kOnlyB };
std::string_view DiffPresenceName(DiffPresence presence);  // both, only_a, only_b

struct DiffRow {
  std::string key;    // KernelKey or LibraryKey
  std::string label;  // short name
  std::string name;   // the full kernel name, or the routine
  DiffFigures a, b;
  DiffPresence presence = DiffPresence::kBoth;
  double change_ns = 0;                    // GPU time, B - A (0 when not known)
  bool change_known = true;                // false when a side it is in has no GPU time
  std::optional<double> change_pct;        // 100 (B - A) / A, when A has GPU time
  std::optional<double> mean_change_pct;   // of the mean time per execution
  std::optional<double> rate_change_pct;   // of the achieved FLOP/s
  std::optional<double> count_change_pct;  // of the count
  // Mean time per call, B - A, when both sides have GPU time.
  std::optional<double> mean_change_ns;
  // The change the rows are ranked by (RunDiff::basis): per step, the GPU time per step B - A;
  // per call, (mean B - mean A) x count B, the time the change per call made in B. A row in
  // one run only counts its time (per step with steps): +B or -A. 0 when unknown.
  double rank_ns = 0;
};

// The step of one run: the step region pooled over its ranks.
struct DiffStep {
  std::string region;
  uint64_t count = 0;
  double mean_ns = 0;
  size_t ranks = 0;
};

struct RunDiff {
  DiffMatch match = DiffMatch::kName;
  DiffBasis basis = DiffBasis::kPerCall;
  // By |rank_ns|, largest first; rows whose change is unknown last, by their known GPU time.
  std::vector<DiffRow> kernels;
  std::vector<DiffRow> libraries;
  double kernel_ns_a = 0, kernel_ns_b = 0;
  uint64_t executions_a = 0, executions_b = 0;
  std::optional<DiffStep> step_a, step_b;
  std::string summary;  // one or two sentences: kernel time A vs B, step time when both have it
  std::vector<std::string> notes;
};

DiffStep PooledStep(const RankTable& table);  // count 0 when the run has no step region

// The steps come from each rank table's step region (marked regions); a step source added
// later (NVTX step ranges) reaches the comparison through the same RankTable::step_region.
RunDiff DiffRuns(const RunAggregate& a, const RankTable& ranks_a, const RunAggregate& b,
                 const RankTable& ranks_b, DiffMatch match = DiffMatch::kName);

}  // namespace flopspy::analyzers
