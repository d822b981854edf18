#include "table.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

namespace flopspy_demo {
namespace {

std::string Rate(double amount, double seconds) {
  if (amount <= 0 || seconds <= 0) return "-";
  const double rate = amount / seconds / 1e9;
  // Three significant figures or so, from the naive matmul's 0.0149 GB/s to a GPU's 50000 GFLOP/s.
  return fmt::format("{:.{}f}", rate, rate >= 100 ? 0 : rate >= 1 ? 1 : 3);
}

}  // namespace

void SetTimes(Row& row, const std::vector<double>& seconds) {
  row.calls = static_cast<int>(seconds.size());
  if (seconds.empty()) return;
  row.best_s = *std::min_element(seconds.begin(), seconds.end());
  row.mean_s = std::accumulate(seconds.begin(), seconds.end(), 0.0) / seconds.size();
}

void PrintHeader(std::string_view title) {
  fmt::print("\n{:<36} {:>6} {:>10} {:>10} {:>9} {:>9}  {}\n", title, "calls", "best ms", "mean ms",
             "GB/s", "GFLOP/s", "check");
  std::fflush(stdout);
}

void PrintRow(const Row& row) {
  // Rates use the best call: the first call of a kernel also pays for loading its module.
  fmt::print("{:<36} {:>6} {:>10.3f} {:>10.3f} {:>9} {:>9}  {}\n", row.name, row.calls,
             row.best_s * 1e3, row.mean_s * 1e3, Rate(row.bytes, row.best_s),
             Rate(row.flops, row.best_s), row.check);
  // Rows appear as phases finish, also when stdout is a pipe (flopspy, ctest).
  std::fflush(stdout);
}

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace flopspy_demo
