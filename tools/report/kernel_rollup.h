// "Where the GPU time goes": kernel time rolled up by category (gemm, attention, elementwise,
// ...) and by name (the operation or the kernel's short name: "mul", "gelu",
// "sm90_xmma_gemm_..."), before any per-signature table (docs/flopspy-report.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "flopspy/analyzers/trace_analysis.h"
#include "report/view_options.h"

namespace flopspy::tools {

struct RollupRow {
  std::string key;  // the category ("gemm") or the name ("gelu")
  double gpu_ns = 0;
  double share = 0;    // of the rollup's kernel time, 0..1
  uint64_t count = 0;  // executions (launches where no GPU record was joined)
  uint64_t signatures = 0;
  double flops = 0;                   // known FLOPs (timed launches)
  double flops_known_ns = 0;          // of gpu_ns, the time of launches whose FLOPs are known
  std::array<double, 4> regime_ns{};  // gpu_ns by the regime of its rows (index: Regime)
  bool warmup = false;                // --group-by step: a warm-up step

  double FlopsCoverage() const { return gpu_ns > 0 ? flops_known_ns / gpu_ns : 0; }
  // The regime holding the most of the row's time; kUnknown when none does.
  analyzers::Regime DominantRegime() const;
};

// The rows past the top ones, summed into one "N more" line.
struct RollupRest {
  size_t rows = 0;
  double gpu_ns = 0;
  double share = 0;
};

struct KernelRollup {
  double kernel_ns = 0;
  std::vector<RollupRow> families;  // largest first, at most the family limit
  RollupRest more_families;
  std::vector<RollupRow> names;
  RollupRest more_names;
  // --group-by range or step (group_rollup.h): the rows per innermost range or per step, or,
  // when the traces have none, `groups_note` says so and the other tables stand alone.
  GroupBy groups_by = GroupBy::kSignature;
  std::vector<RollupRow> groups;
  RollupRest more_groups;
  std::string groups_note;
  bool empty() const { return families.empty() && names.empty(); }
};

inline constexpr size_t kRollupFamilies = 8;
inline constexpr size_t kRollupNames = 10;

// The key a kernel row rolls up under, by name: its operation, else its short kernel name.
std::string RollupName(const analyzers::KernelGroup& g);

// Rows in the --sort order (time, count, mean, FLOPs; roof, which a group has none of, sorts by
// time); `view.top` rows per table when given, else kRollupFamilies and kRollupNames.
KernelRollup BuildKernelRollup(std::span<const analyzers::KernelGroup> kernels,
                               const ViewOptions& view = {});

// Rows keyed by `key`, with their shares of `total`, in the --sort order (ties: time, key).
std::vector<RollupRow> SortedRollupRows(std::map<std::string, RollupRow> by_key, double total,
                                        SortKey sort);
// Past `keep` rows, the rest summed into `rest`.
void CutRollupRows(std::vector<RollupRow>& rows, size_t keep, RollupRest& rest);

// The rollup as the JSON document's "kernel_rollup" section (docs/report-json.md).
nlohmann::json KernelRollupJson(const KernelRollup& rollup);

}  // namespace flopspy::tools
