// How many records a trace lost, worked out once for every output (text, JSON, HTML, CSV, the
// `flopspy run` summary), so that no two figures of one report disagree.
//
// The trace's end record counts every record the recorder lost (`records_lost`): records a full
// thread buffer dropped, threads that got no buffer, CUPTI's drops, and the records of chunks
// that could not be written (a full disk). Loss records in the file name each cause; those of
// failed writes are written once writing works again, so a trace whose last writes failed has
// fewer. With an end record its count is the total, and what the loss records leave unexplained
// is "unwritten". Without one, the loss records seen are a lower bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/trace_report.h"

namespace flopspy::tools {

// The cause of the records the end record counts and no loss record names.
inline constexpr std::string_view kUnwrittenCause = "unwritten";

struct LostRecords {
  uint64_t total = 0;
  // The total is the trace's own count (its end record, the file read to the end). Otherwise
  // at least `total` records were lost: the end record is missing, or was not read, or counts
  // fewer than the loss records do.
  bool exact = false;
  // Parts of the total by cause (LossSourceName, then kUnwrittenCause), in that order; they add
  // up to the total.
  std::vector<std::pair<std::string, uint64_t>> by_cause;
  uint64_t seen = 0;       // named by the loss records in the file
  uint64_t unwritten = 0;  // counted by the end record beyond what the loss records name
  std::optional<uint64_t> end_record_count;  // the end record's records_lost, if it has one
};

LostRecords LostRecordsOf(const TraceReport& t);

// Several traces together (a run): totals added, exact only when every part is.
struct LostTotal {
  uint64_t total = 0;
  bool exact = true;
};
LostTotal LostTotalOf(const std::vector<TraceReport>& traces);

// "none", "400,000 records", "at least 12 records": a total as a sentence fragment.
std::string LostText(uint64_t total, bool exact);

}  // namespace flopspy::tools
