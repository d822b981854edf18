// Marker regions (flopspy_region_begin/end): how often and how long each named region ran.
// Regions of one name nest per thread; an end without a begin is ignored, a begin without an
// end (the process died inside the region) is counted as open.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "flopspy/analyzers/launch_histogram.h"
#include "flopspy/analyzers/trace_summary.h"

namespace flopspy::analyzers {

struct RegionStats {
  std::string name;
  uint64_t count = 0;  // completed begin/end pairs
  uint64_t open = 0;   // begins never ended
  double total_ns = 0;
  DurationHistogram durations;
};

class RegionAnalyzer {
 public:
  void Add(const trace::RecordView& record, const StringLookup& strings);
  // By total time, longest first.
  std::vector<RegionStats> Finish();

 private:
  std::map<std::string, RegionStats> stats_;
  std::map<std::pair<uint32_t, std::string>, std::vector<uint64_t>> open_;  // (thread, name)
};

}  // namespace flopspy::analyzers
