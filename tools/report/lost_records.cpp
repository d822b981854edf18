#include "report/lost_records.h"

#include <algorithm>

#include "report/format.h"

namespace flopspy::tools {

LostRecords LostRecordsOf(const TraceReport& t) {
  LostRecords lost;
  for (const auto& [source, count] : t.summary.lost) {
    lost.by_cause.emplace_back(std::string(trace::LossSourceName(source)), count);
    lost.seen += count;
  }
  lost.total = lost.seen;
  if (!t.summary.end) return lost;
  const uint64_t counted = t.summary.end->records_lost;
  lost.end_record_count = counted;
  // A crafted or damaged file may count fewer than its own loss records: the larger figure is
  // the lower bound, and the total is no longer the trace's word.
  lost.total = std::max(lost.seen, counted);
  lost.unwritten = lost.total - lost.seen;
  if (lost.unwritten > 0) lost.by_cause.emplace_back(kUnwrittenCause, lost.unwritten);
  lost.exact = t.read.status == trace::ReadStatus::kOk && counted >= lost.seen;
  return lost;
}

LostTotal LostTotalOf(const std::vector<TraceReport>& traces) {
  LostTotal sum;
  for (const TraceReport& t : traces) {
    const LostRecords lost = LostRecordsOf(t);
    sum.total += lost.total;
    sum.exact = sum.exact && lost.exact;
  }
  return sum;
}

std::string LostText(uint64_t total, bool exact) {
  if (total == 0) return exact ? "none" : "none seen";
  return (exact ? "" : "at least ") + Counted(total, "record", "records");
}

}  // namespace flopspy::tools
