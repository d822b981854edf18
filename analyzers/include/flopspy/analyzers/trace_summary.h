// What a trace holds at a glance: record counts per type, losses, warnings, how it ended, and
// the span of time it covers. Fed record by record while a trace is read.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/trace/reader.h"
#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

using trace::StringLookup;  // trace/reader.h

// The CPU-clock time of an event record, if it has one.
std::optional<uint64_t> RecordTime(const trace::RecordView& record);

struct WarningEntry {
  trace::WarningCode code = trace::WarningCode::kGeneric;
  uint64_t time_ns = 0;
  std::string message;
};

struct TraceSummary {
  std::array<uint64_t, 256> record_counts{};   // indexed by the record type's number
  std::map<trace::LossSource, uint64_t> lost;  // records lost, by where
  std::vector<WarningEntry> warnings;
  std::optional<trace::TraceEndRecord> end;  // the last end record, if any
  std::vector<std::string> metadata;         // JSON texts in file order
  std::map<uint32_t, std::string> thread_names;
  uint64_t first_ns = UINT64_MAX;  // earliest and latest event time (CLOCK_MONOTONIC)
  uint64_t last_ns = 0;

  uint64_t Count(trace::RecordType type) const { return record_counts[static_cast<uint8_t>(type)]; }
  uint64_t TotalLost() const;
  uint64_t EventCount() const;  // records other than definitions and metadata
};

class TraceSummarizer {
 public:
  void Add(const trace::RecordView& record, const StringLookup& strings);
  const TraceSummary& summary() const { return summary_; }
  TraceSummary Take() { return std::move(summary_); }

 private:
  TraceSummary summary_;
};

}  // namespace flopspy::analyzers
