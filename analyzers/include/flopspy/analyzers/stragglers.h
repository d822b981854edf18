// Stragglers: ranks whose step time, kernel time or GPU busy share stands out from the others.
// The rule is robust to the straggler itself (median and median absolute deviation, MAD) and
// ignores differences too small to matter; docs/flopspy-report.md, "Stragglers", states it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flopspy/analyzers/rank_table.h"

namespace flopspy::analyzers {

struct StragglerRule {
  // Iglewicz and Hoaglin's modified z-score 0.6745 (x - median) / MAD must pass 3.5, i.e.
  // x - median > 3.5 / 0.6745 MAD (about 5.2 MAD)...
  double modified_z = 3.5;
  // ...and the difference must be at least this share of the median (step and kernel time)...
  double min_relative = 0.10;
  // ...or this many points of busy share (0.10 = 10 percentage points).
  double min_busy_points = 0.10;
};

// Which way a value stands out: step and kernel time above the others, busy share below.
enum class OutlierSide { kHigh, kLow };

struct OutlierTest {
  size_t n = 0;                  // ranks with a value
  double reference = 0;          // the median; with two ranks, the other rank's value
  double mad = 0;                // median absolute deviation (0 with two ranks)
  double threshold = 0;          // a value beyond this stands out
  std::vector<size_t> outliers;  // indices into the values, most extreme first
};

// `values`: one per rank, nullopt when unknown (skipped). `min_difference` is absolute: a
// value stands out when it is beyond the reference by more than max(MAD bound, min_difference).
// With two values, each is compared with the other; with fewer, nothing stands out.
OutlierTest FindOutliers(std::span<const std::optional<double>> values, OutlierSide side,
                         double modified_z, double min_difference_relative,
                         double min_difference_absolute);

enum class StragglerMetric { kStepTime, kKernelTime, kBusyShare };
std::string_view StragglerMetricName(StragglerMetric metric);  // step_time, kernel_time, busy

struct Straggler {
  size_t row = 0;  // index into RankTable::rows
  StragglerMetric metric = StragglerMetric::kStepTime;
  double value = 0;      // the rank's ns per step, kernel ns, or busy fraction
  double reference = 0;  // the median of the ranks (the other rank's value with two)
  bool reference_is_median = true;
  double threshold = 0;
  double excess = 0;  // (value - reference) / reference; for busy share, value - reference
  std::optional<double> busy_fraction;
  std::optional<double> busy_reference;  // median busy share of the ranks
  // The kernel whose time (per step, with steps) differs most from the ranks' median.
  std::string kernel_key;
  std::string kernel_label;
  double kernel_ns = 0;
  double kernel_reference_ns = 0;
  std::string sentence;  // "rank 3 takes 41.2 ms per step, 18% over the median 34.9 ms; ..."
};

struct StragglerReport {
  std::vector<Straggler> stragglers;  // step time first, then kernel time, then busy share
  // What was compared, in words ("step time of 4 ranks: median 34.9 ms, a rank stands out
  // above 38.4 ms"); one line per metric tested, or why none was.
  std::vector<std::string> checks;
};

StragglerReport FindStragglers(const RankTable& table, const StragglerRule& rule = {});

// What a rank row stands out by, for its mark in the ranks table: "step", "kernel", "busy",
// joined by commas in the report's order; "" when it does not.
std::string StragglerMarks(const StragglerReport& report, size_t row);

// "41.2 ms", "850 ns", "1.23 s" (3 significant digits).
std::string FormatDuration(double ns);

}  // namespace flopspy::analyzers
