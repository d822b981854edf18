#include "report/run_summary.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <filesystem>

#include "flopspy/trace/reader.h"
#include "report/format.h"

namespace flopspy::tools {

std::vector<std::string> FindRunTraces(const std::string& dir, uint64_t run_id) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".fspy") continue;
    const trace::TraceReader reader = trace::TraceReader::OpenFile(entry.path().string());
    if (run_id == 0 || (reader.header_ok() && reader.header().run_id == run_id)) {
      found.push_back(entry.path().string());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

void WriteRunSummary(const std::string& dir, const std::vector<TraceReport>& traces,
                     std::ostream& out) {
  if (traces.empty()) {
    fmt::print(out, "flopspy: no trace was written to {} (nothing was recorded)\n", dir);
    return;
  }
  uint64_t events = 0, lost = 0;
  for (const auto& t : traces) {
    events += t.summary.EventCount();
    lost += t.summary.TotalLost();
  }
  fmt::print(out, "flopspy: {} trace{} in {}: {} events{}\n", traces.size(),
             traces.size() == 1 ? "" : "s", dir, Grouped(events),
             lost ? fmt::format(", {} lost (see the report)", Grouped(lost)) : "");
  for (const auto& t : traces) {
    std::string state;
    if (t.read.status != trace::ReadStatus::kOk) {
      state = "damaged: " + t.read.message;
    } else if (!t.summary.end) {
      state = "incomplete (killed?)";
    } else {
      state = "complete";
    }
    fmt::print(out, "flopspy:   pid {:<8} {:>12} events  {:>10}  {}\n", t.header.pid,
               Grouped(t.summary.EventCount()), Duration(static_cast<double>(t.duration_ns())),
               state);
  }
  fmt::print(out, "flopspy: full report: flopspy-report {}\n", dir);
}

}  // namespace flopspy::tools
