#include "report/run_summary.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <filesystem>

#include "flopspy/platform/safe_file.h"
#include "flopspy/platform/terminal_text.h"
#include "flopspy/trace/reader.h"
#include "report/format.h"
#include "report/lost_records.h"

namespace flopspy::tools {

std::vector<std::string> FindRunTraces(const std::string& dir, uint64_t run_id) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  // increment(ec), not ++: a folder that fails half way is a shorter list, not an exception.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".fspy") continue;
    const std::string path = it->path().string();
    // The recorder writes regular files only; a FIFO planted in the folder would block the
    // open after the program has ended (the reader refuses it too, this skips it unopened).
    if (!platform::NotARegularFile(path).empty()) continue;
    const trace::TraceReader reader = trace::TraceReader::OpenFile(path);
    if (run_id == 0 || (reader.header_ok() && reader.header().run_id == run_id)) {
      found.push_back(path);
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

void WriteRunSummary(const std::string& dir, const std::vector<TraceReport>& traces,
                     std::ostream& out) {
  const std::string shown_dir = platform::EscapeControls(dir);
  if (traces.empty()) {
    fmt::print(out, "flopspy: no trace was written to {} (nothing was recorded)\n", shown_dir);
    return;
  }
  uint64_t events = 0;
  for (const auto& t : traces) events += t.summary.EventCount();
  // The same totals as the report's: the end record's count when every trace has one.
  const LostTotal lost = LostTotalOf(traces);
  fmt::print(out, "flopspy: {} trace{} in {}: {} events{}\n", traces.size(),
             traces.size() == 1 ? "" : "s", shown_dir, Grouped(events),
             lost.total > 0 ? fmt::format(", {}{} lost (see the report)",
                                          lost.exact ? "" : "at least ", Grouped(lost.total))
                            : "");
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
               platform::EscapeControls(state));
  }
  fmt::print(out, "flopspy: full report: flopspy-report {}\n", shown_dir);
}

}  // namespace flopspy::tools
