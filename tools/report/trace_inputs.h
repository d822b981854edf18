// Turning command-line arguments into trace files: files as given, folders searched for *.fspy,
// and the traces of one run chosen among several (docs/flopspy-report.md, "Many traces").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flopspy::tools {

struct TraceInputs {
  std::vector<std::string> files;
  // One line each: arguments that cannot be read (missing, a loop, a FIFO or device: never
  // opened), folders that cannot be listed or hold no trace, entries that are not files.
  std::vector<std::string> errors;
};

// Folders contribute their *.fspy files (sorted, not recursive). Only regular files are kept.
TraceInputs ExpandTraceArguments(const std::vector<std::string>& arguments);

// The traces of one `flopspy run`: the run id of their file headers. Traces with no run id
// (recorded with LD_PRELOAD, without the launcher) are one run together, id 0: nothing in
// them tells two such runs apart.
struct TraceRun {
  uint64_t id = 0;
  uint64_t start_realtime_ns = 0;  // the earliest start of its traces
  std::vector<std::string> files;
};

struct RunGroups {
  std::vector<TraceRun> runs;  // the latest-starting run last
  // Files whose header cannot be read: no run to put them in. They are read anyway, so that
  // the report says what is wrong with them.
  std::vector<std::string> unreadable;
};

// Reads only the file headers.
RunGroups GroupByRun(const std::vector<std::string>& files);

// --run ID (hex, a unique prefix is enough; "none" for traces with no run id) and --all-runs.
struct RunChoice {
  std::string run;
  bool all = false;
};

struct RunSelection {
  std::vector<std::string> files;  // in the order given
  std::string notice;              // one line when a run was chosen by default among several
  std::string error;               // a --run that matches no run or several: a usage error
};

// Keeps every trace when the files hold one run or `choice.all`; else the run `choice.run`
// names, or by default the latest, saying so in `notice`. `where` names the inputs
// ("flopspy-out/").
RunSelection SelectRun(const std::vector<std::string>& files, const RunGroups& groups,
                       const RunChoice& choice, const std::string& where);

// How a run id is shown and typed: hex, "none" for 0.
std::string RunIdText(uint64_t id);

}  // namespace flopspy::tools
