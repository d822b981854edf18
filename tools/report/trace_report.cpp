#include "report/trace_report.h"

namespace flopspy::tools {

uint64_t TraceReport::duration_ns() const {
  if (summary.last_ns <= summary.first_ns || summary.first_ns == UINT64_MAX) return 0;
  return summary.last_ns - summary.first_ns;
}

std::string EndReasonName(trace::EndReason reason) {
  switch (reason) {
    case trace::EndReason::kExit:
      return "exit";
    case trace::EndReason::kSignal:
      return "signal";
    case trace::EndReason::kExec:
      return "exec";
    case trace::EndReason::kDetach:
      return "detach";
  }
  return "unknown";
}

std::string LossSourceName(trace::LossSource source) {
  switch (source) {
    case trace::LossSource::kThreadBuffer:
      return "thread_buffer";
    case trace::LossSource::kCuptiBuffer:
      return "cupti_buffer";
    case trace::LossSource::kWriteFailed:
      return "write_failed";
    case trace::LossSource::kCounterSamples:
      return "counter_samples";
  }
  return "unknown";
}

std::string WarningCodeName(trace::WarningCode code) {
  switch (code) {
    case trace::WarningCode::kGeneric:
      return "generic";
    case trace::WarningCode::kBadConfig:
      return "bad_config";
    case trace::WarningCode::kOutputUnavailable:
      return "output_unavailable";
    case trace::WarningCode::kCuptiUnavailable:
      return "cupti_unavailable";
    case trace::WarningCode::kCountersUnavailable:
      return "counters_unavailable";
    case trace::WarningCode::kSymbolMissing:
      return "symbol_missing";
    case trace::WarningCode::kInternalError:
      return "internal_error";
    case trace::WarningCode::kSignal:
      return "signal";
  }
  return "unknown";
}

TraceReport SummarizeTrace(const std::string& path,
                           const std::function<void(uint64_t, uint64_t)>& progress) {
  TraceReport report;
  report.path = path;
  trace::TraceReader reader = trace::TraceReader::OpenFile(path);
  report.header_ok = reader.header_ok();
  if (!report.header_ok) {
    report.read = reader.header_status();
    return report;
  }
  report.header = reader.header();
  report.host = std::string(reader.host());
  analyzers::TraceSummarizer summarizer;
  analyzers::LaunchOverheadAnalyzer launch_overhead;
  const analyzers::StringLookup strings = [&reader](uint32_t id) { return reader.String(id); };
  const uint64_t size = reader.header_status().file_size;
  report.read = reader.ForEachRecord(
      [&](const trace::RecordView& record) {
        summarizer.Add(record, strings);
        launch_overhead.Add(record, strings);
      },
      progress ? std::function<void(uint64_t)>([&](uint64_t done) { progress(done, size); })
               : nullptr);
  report.summary = summarizer.Take();
  report.launch_overhead = launch_overhead.Finish();
  for (const std::string& text : report.summary.metadata) {
    const nlohmann::json block = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (block.is_object()) report.metadata.merge_patch(block);
  }
  return report;
}

}  // namespace flopspy::tools
