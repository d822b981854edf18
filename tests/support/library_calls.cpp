#include "library_calls.h"

#include <utility>

#include "flopspy/trace/reader.h"

namespace flopspy::testing {

std::vector<TracedCall> ReadLibraryCalls(const std::string& path, std::string& error) {
  std::vector<TracedCall> calls;
  trace::TraceReader reader = trace::TraceReader::OpenFile(path);
  if (!reader.header_ok()) {
    error = "unreadable trace";
    return calls;
  }
  std::vector<std::pair<uint32_t, uint64_t>> streams;
  const auto status = reader.ForEachRecord([&](const trace::RecordView& r) {
    if (r.type == trace::RecordType::kStream) {
      const auto s = r.As<trace::StreamDef>();
      streams.emplace_back(s.id, s.handle);
    } else if (r.type == trace::RecordType::kLibraryCall) {
      TracedCall c;
      c.record = r.As<trace::LibraryCallRecord>();
      c.name = std::string(reader.String(c.record.name));
      for (const auto& [id, handle] : streams) {
        if (id == c.record.stream) c.stream_handle = handle;
      }
      calls.push_back(c);
    }
  });
  if (status.status != trace::ReadStatus::kOk) error = "trace read failed: " + status.message;
  return calls;
}

TracedRun RunPlainAndTraced(const std::vector<std::string>& argv, const std::string& library) {
  TracedRun run;
  TempDir dir;
  ChildOptions plain;
  plain.unset.push_back("LD_PRELOAD");
  run.plain = RunChild(argv, plain);
  ChildOptions traced;
  traced.env["LD_PRELOAD"] = library;
  traced.env["FLOPSPY_OUT"] = dir.path();
  run.traced = RunChild(argv, traced);
  const auto traces = dir.Files(".fspy");
  if (traces.size() != 1) {
    run.trace_error = "traces written: " + std::to_string(traces.size());
  } else {
    run.calls = ReadLibraryCalls(traces.front(), run.trace_error);
  }
  return run;
}

}  // namespace flopspy::testing
