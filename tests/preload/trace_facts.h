// Reads a trace file written by libflopspy.so and collects what the preload tests check.
#pragma once

#include <map>
#include <string>

#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/trace/reader.h"

namespace flopspy::testing {

struct TraceFacts {
  bool header_ok = false;
  trace::FileHeader header{};
  trace::ReadSummary read;
  analyzers::TraceSummary summary;
  std::map<std::string, uint64_t> regions;  // region begin records per name
  uint64_t region_records = 0;              // begin and end records

  uint64_t lost() const { return summary.TotalLost(); }
  uint64_t Regions(const std::string& name) const {
    const auto it = regions.find(name);
    return it == regions.end() ? 0 : it->second;
  }
  bool ended_by(trace::EndReason reason) const {
    return summary.end && summary.end->reason == static_cast<uint8_t>(reason);
  }
};

inline TraceFacts ReadTraceFacts(const std::string& path) {
  TraceFacts facts;
  trace::TraceReader reader = trace::TraceReader::OpenFile(path);
  facts.header_ok = reader.header_ok();
  if (!facts.header_ok) {
    facts.read = reader.header_status();
    return facts;
  }
  facts.header = reader.header();
  analyzers::TraceSummarizer summarizer;
  const analyzers::StringLookup strings = [&reader](uint32_t id) { return reader.String(id); };
  facts.read = reader.ForEachRecord([&](const trace::RecordView& r) {
    summarizer.Add(r, strings);
    if (r.type == trace::RecordType::kRegion) {
      ++facts.region_records;
      const auto region = r.As<trace::RegionRecord>();
      if (region.edge == static_cast<uint8_t>(trace::RegionEdge::kBegin)) {
        ++facts.regions[std::string(reader.String(region.name))];
      }
    }
  });
  facts.summary = summarizer.Take();
  return facts;
}

}  // namespace flopspy::testing
