#include "flopspy/analyzers/trace_summary.h"

namespace flopspy::analyzers {

using trace::RecordType;

std::optional<uint64_t> RecordTime(const trace::RecordView& r) {
  switch (r.type) {
    case RecordType::kApiCall:
      return r.As<trace::ApiCallRecord>().enter_ns;
    case RecordType::kKernelLaunch:
      return r.As<trace::KernelLaunchRecord>().enter_ns;
    case RecordType::kGpuActivity:
      return r.As<trace::GpuActivityRecord>().start_ns;
    case RecordType::kLibraryCall:
      return r.As<trace::LibraryCallRecord>().enter_ns;
    case RecordType::kCpuSample:
      return r.As<trace::CpuSampleRecord>().begin_ns;
    case RecordType::kRegion:
      return r.As<trace::RegionRecord>().time_ns;
    case RecordType::kTraceEnd:
      return r.As<trace::TraceEndRecord>().time_ns;
    default:
      return std::nullopt;
  }
}

namespace {

// The end of an event, where it has a duration.
std::optional<uint64_t> RecordEndTime(const trace::RecordView& r) {
  switch (r.type) {
    case RecordType::kApiCall:
      return r.As<trace::ApiCallRecord>().exit_ns;
    case RecordType::kKernelLaunch: {
      const auto l = r.As<trace::KernelLaunchRecord>();
      return l.enter_ns + l.duration_ns;
    }
    case RecordType::kGpuActivity:
      return r.As<trace::GpuActivityRecord>().end_ns;
    case RecordType::kLibraryCall:
      return r.As<trace::LibraryCallRecord>().exit_ns;
    case RecordType::kCpuSample:
      return r.As<trace::CpuSampleRecord>().end_ns;
    default:
      return RecordTime(r);
  }
}

}  // namespace

uint64_t TraceSummary::TotalLost() const {
  uint64_t total = 0;
  for (const auto& [source, count] : lost) total += count;
  return total;
}

uint64_t TraceSummary::EventCount() const {
  uint64_t total = 0;
  for (int t = static_cast<int>(RecordType::kApiCall); t < 256; ++t) total += record_counts[t];
  return total;
}

void TraceSummarizer::Add(const trace::RecordView& r, const StringLookup& strings) {
  TraceSummary& s = summary_;
  ++s.record_counts[static_cast<uint8_t>(r.type)];
  if (const auto t = RecordTime(r); t && *t != 0) {
    s.first_ns = std::min(s.first_ns, *t);
    s.last_ns = std::max(s.last_ns, RecordEndTime(r).value_or(*t));
  }
  switch (r.type) {
    case RecordType::kMetadata: {
      const auto block = r.As<trace::MetadataBlock>();
      s.metadata.emplace_back(r.Text(sizeof(trace::MetadataBlock), block.length));
      break;
    }
    case RecordType::kThread: {
      const auto def = r.As<trace::ThreadDef>();
      if (def.name != 0) s.thread_names[def.thread_id] = std::string(strings(def.name));
      break;
    }
    case RecordType::kLostRecords: {
      const auto lost = r.As<trace::LostRecordsRecord>();
      s.lost[static_cast<trace::LossSource>(lost.source)] += lost.count;
      break;
    }
    case RecordType::kWarning: {
      const auto w = r.As<trace::WarningRecord>();
      s.warnings.push_back(
          {static_cast<trace::WarningCode>(w.code), w.time_ns, std::string(strings(w.message))});
      break;
    }
    case RecordType::kTraceEnd:
      s.end = r.As<trace::TraceEndRecord>();
      break;
    default:
      break;
  }
}

}  // namespace flopspy::analyzers
