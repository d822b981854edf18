#include "flopspy/analyzers/stragglers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "flopspy/analyzers/display_text.h"
#include "helpers_internal.h"

namespace flopspy::analyzers {
namespace {

// 0.6745 is the 75th percentile of the standard normal: MAD / 0.6745 estimates the standard
// deviation of normal data.
constexpr double kMadToSigma = 0.6745;

// Index of the only other row with a value (two-rank comparisons).
size_t OtherRow(const std::vector<std::optional<double>>& values, size_t row) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != row && values[i]) return i;
  }
  return row;
}

}  // namespace

std::string_view StragglerMetricName(StragglerMetric metric) {
  switch (metric) {
    case StragglerMetric::kStepTime:
      return "step_time";
    case StragglerMetric::kKernelTime:
      return "kernel_time";
    case StragglerMetric::kBusyShare:
      return "busy";
  }
  return "unknown";
}

std::string FormatDuration(double ns) {
  char buf[48];
  if (!std::isfinite(ns)) return "-";
  const double a = std::fabs(ns);
  if (a < 1e3) {
    std::snprintf(buf, sizeof(buf), "%.0f ns", ns);
  } else if (a < 1e6) {
    std::snprintf(buf, sizeof(buf), "%.3g us", ns / 1e3);
  } else if (a < 1e9) {
    std::snprintf(buf, sizeof(buf), "%.3g ms", ns / 1e6);
  } else {
    std::snprintf(buf, sizeof(buf), "%.3g s", ns / 1e9);
  }
  return buf;
}

OutlierTest FindOutliers(std::span<const std::optional<double>> values, OutlierSide side,
                         double modified_z, double min_difference_relative,
                         double min_difference_absolute) {
  OutlierTest test;
  std::vector<std::pair<size_t, double>> known;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] && std::isfinite(*values[i])) known.emplace_back(i, *values[i]);
  }
  test.n = known.size();
  if (known.size() < 2) return test;
  const double sign = side == OutlierSide::kHigh ? 1 : -1;
  const auto beyond = [&](double v, double reference, double bound) {
    return sign * (v - reference) > bound;
  };
  const auto bound_for = [&](double reference, double mad) {
    return std::max({modified_z / kMadToSigma * mad, min_difference_relative * std::fabs(reference),
                     min_difference_absolute});
  };
  if (known.size() == 2) {
    // Two ranks have no median to speak of: each is held against the other.
    test.reference = (known[0].second + known[1].second) / 2;
    test.threshold = test.reference;
    for (size_t j = 0; j < 2; ++j) {
      const double other = known[1 - j].second;
      const double bound = bound_for(other, 0);
      if (beyond(known[j].second, other, bound)) {
        test.reference = other;
        test.threshold = other + sign * bound;
        test.outliers.push_back(known[j].first);
      }
    }
    return test;
  }
  std::vector<double> v;
  for (const auto& [i, x] : known) v.push_back(x);
  test.reference = helpers::Median(v);
  std::vector<double> deviations;
  for (const double x : v) deviations.push_back(std::fabs(x - test.reference));
  test.mad = helpers::Median(deviations);
  const double bound = bound_for(test.reference, test.mad);
  test.threshold = test.reference + sign * bound;
  for (const auto& [i, x] : known) {
    if (beyond(x, test.reference, bound)) test.outliers.push_back(i);
  }
  std::stable_sort(test.outliers.begin(), test.outliers.end(),
                   [&](size_t a, size_t b) { return sign * *values[a] > sign * *values[b]; });
  return test;
}

namespace {

// What FindStragglers compares: one value per row for each metric, and the kernel keys.
class StragglerSearch {
 public:
  StragglerSearch(const RankTable& table, const StragglerRule& rule, StragglerReport& report)
      : table_(table), rows_(table.rows), rule_(rule), report_(report) {
    step_.resize(rows_.size());
    kernel_.resize(rows_.size());
    busy_.resize(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (rows_[i].step) {
        step_[i] = rows_[i].step->mean_ns;
        ++with_steps_;
      }
      // Kernel time is known where the GPU was timed (a GPU window exists).
      if (rows_[i].gpu_window_ns > 0) kernel_[i] = rows_[i].kernel_ns;
      busy_[i] = rows_[i].busy_fraction;
    }
    std::vector<double> b;
    for (const auto& x : busy_) {
      if (x) b.push_back(*x);
    }
    if (!b.empty()) busy_median_ = helpers::Median(b);
    per_step_ = with_steps_ == rows_.size();
    for (const RankRow& r : rows_) {
      for (const auto& [key, ns] : r.kernel_ns_by_key) keys_.insert(key);
    }
  }

  void Run() {
    if (with_steps_ >= 2) {
      Collect(StragglerMetric::kStepTime, step_, OutlierSide::kHigh,
              "step time (region \"" + table_.step_region + "\")", true);
    } else {
      report_.checks.push_back(table_.step_region.empty()
                                   ? "step time: unknown (no trace has marked regions)"
                                   : "step time: fewer than two ranks have the region \"" +
                                         table_.step_region + "\"");
      Collect(StragglerMetric::kKernelTime, kernel_, OutlierSide::kHigh, "kernel GPU time", true);
    }
    Collect(StragglerMetric::kBusyShare, busy_, OutlierSide::kLow, "GPU busy share", false);
  }

 private:
  double KernelValue(const RankRow& r, const std::string& key) const {
    const auto it = r.kernel_ns_by_key.find(key);
    const double ns = it == r.kernel_ns_by_key.end() ? 0 : it->second;
    return per_step_ ? ns / static_cast<double>(r.step->count) : ns;
  }

  // Where a rank's kernel time differs most from the median of the ranks (per step when every
  // rank has steps).
  std::string WhereTimeGoes(Straggler& s) const {
    double most = 0;
    for (const std::string& key : keys_) {
      std::vector<double> all;
      for (const RankRow& r : rows_) all.push_back(KernelValue(r, key));
      const double mine = KernelValue(rows_[s.row], key);
      const double reference =
          rows_.size() == 2 ? KernelValue(rows_[1 - s.row], key) : helpers::Median(std::move(all));
      if (std::fabs(mine - reference) > most) {
        most = std::fabs(mine - reference);
        s.kernel_key = key;
        s.kernel_ns = mine;
        s.kernel_reference_ns = reference;
      }
    }
    if (s.kernel_key.empty()) return std::string();
    const auto label = table_.kernel_labels.find(s.kernel_key);
    s.kernel_label = label != table_.kernel_labels.end() ? label->second : s.kernel_key;
    return "; the kernel time that differs most is " + s.kernel_label + ": " +
           FormatDuration(s.kernel_ns) + " vs " + FormatDuration(s.kernel_reference_ns) +
           (per_step_ ? " per step" : "");
  }

  static std::string BusyPhrase(const Straggler& s) {
    if (!s.busy_fraction || !s.busy_reference) return "";
    return "; its GPU is busy " + WholePercentText(*s.busy_fraction) + " vs " +
           WholePercentText(*s.busy_reference);
  }

  void Collect(StragglerMetric metric, const std::vector<std::optional<double>>& values,
               OutlierSide side, const std::string& what, bool as_time) {
    const OutlierTest test =
        FindOutliers(values, side, rule_.modified_z, as_time ? rule_.min_relative : 0,
                     as_time ? 0 : rule_.min_busy_points);
    const auto show = [&](double v) { return as_time ? FormatDuration(v) : WholePercentText(v); };
    if (test.n < 2) {
      report_.checks.push_back(what + ": fewer than two ranks have it");
      return;
    }
    report_.checks.push_back(
        what + " of " + std::to_string(test.n) + " ranks: " +
        (test.n == 2 ? "each is held against the other" : "median " + show(test.reference)) +
        (test.n == 2 ? ""
                     : ", a rank stands out " +
                           std::string(side == OutlierSide::kHigh ? "above " : "below ") +
                           show(test.threshold)) +
        (test.outliers.empty() ? ". None does" : ""));
    for (const size_t i : test.outliers) {
      // "N% over 0 ns" says nothing: a time is compared only with a positive reference.
      if (as_time && test.reference <= 0) continue;
      Straggler s;
      s.row = i;
      s.metric = metric;
      s.value = *values[i];
      s.reference = test.reference;
      s.reference_is_median = test.n > 2;
      s.threshold = test.threshold;
      s.busy_fraction = busy_[i];
      if (test.n == 2) {
        s.busy_reference = busy_[OtherRow(busy_, i)];
        if (OtherRow(busy_, i) == i) s.busy_reference.reset();
      } else {
        s.busy_reference = busy_median_;
      }
      const std::string ref_text =
          s.reference_is_median ? "the median " + show(s.reference)
                                : rows_[OtherRow(values, i)].Name() + "'s " + show(s.reference);
      const RankRow& row = rows_[i];
      if (metric == StragglerMetric::kBusyShare) {
        s.excess = s.value - s.reference;
        s.sentence = row.Name() + "'s GPU is busy " + WholePercentText(s.value) +
                     " of its active span, against " + ref_text;
      } else {
        s.excess = s.reference != 0 ? (s.value - s.reference) / s.reference : 0;
        s.sentence =
            row.Name() +
            (metric == StragglerMetric::kStepTime ? " takes " + show(s.value) + " per step"
                                                  : " spends " + show(s.value) + " in kernels") +
            ", " + WholePercentText(s.excess) + " over " + ref_text + BusyPhrase(s);
      }
      s.sentence += WhereTimeGoes(s) + ".";
      report_.stragglers.push_back(std::move(s));
    }
  }

  const RankTable& table_;
  const std::vector<RankRow>& rows_;
  const StragglerRule& rule_;
  StragglerReport& report_;
  std::vector<std::optional<double>> step_, kernel_, busy_;
  size_t with_steps_ = 0;
  bool per_step_ = false;
  std::optional<double> busy_median_;
  std::set<std::string> keys_;
};

}  // namespace

StragglerReport FindStragglers(const RankTable& table, const StragglerRule& rule) {
  StragglerReport report;
  if (table.rows.size() < 2) {
    report.checks.push_back(table.rows.empty() ? "no readable trace: nothing to compare"
                                               : "one rank only: nothing to compare it with");
    return report;
  }
  StragglerSearch(table, rule, report).Run();
  return report;
}

std::string StragglerMarks(const StragglerReport& report, size_t row) {
  std::string marks;
  for (const Straggler& s : report.stragglers) {
    if (s.row != row) continue;
    const std::string_view word = s.metric == StragglerMetric::kStepTime     ? "step"
                                  : s.metric == StragglerMetric::kKernelTime ? "kernel"
                                                                             : "busy";
    marks += (marks.empty() ? "" : ",") + std::string(word);
  }
  return marks;
}

}  // namespace flopspy::analyzers
