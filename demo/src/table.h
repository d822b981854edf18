// The result tables flopspy-demo prints, so users can compare its own arithmetic with
// flopspy-report's figures.
#ifndef FLOPSPY_DEMO_TABLE_H_
#define FLOPSPY_DEMO_TABLE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flopspy_demo {

struct Row {
  explicit Row(std::string row_name, double row_bytes = 0, double row_flops = 0)
      : name(std::move(row_name)), bytes(row_bytes), flops(row_flops) {}

  std::string name;
  int calls = 0;
  double best_s = 0;  // fastest call
  double mean_s = 0;  // mean over calls
  double bytes = 0;   // per call, by the demo's own count; 0 prints "-"
  double flops = 0;   // per call, by the demo's own count; 0 prints "-"
  std::string check;  // "ok", "FAIL" or "-"
};

// Fills best_s and mean_s from per-call times in seconds.
void SetTimes(Row& row, const std::vector<double>& seconds);

void PrintHeader(std::string_view title);
void PrintRow(const Row& row);

// Seconds on a monotonic clock, for host-side timing.
double NowSeconds();

}  // namespace flopspy_demo

#endif  // FLOPSPY_DEMO_TABLE_H_
