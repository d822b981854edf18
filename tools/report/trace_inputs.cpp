#include "report/trace_inputs.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "flopspy/platform/safe_file.h"
#include "flopspy/trace/reader.h"
#include "report/format.h"

namespace flopspy::tools {
namespace {

// The *.fspy entries of a folder, sorted. Every filesystem call takes an error_code: a folder
// that cannot be listed (or stops listing half way) is one error line, never an exception.
std::vector<std::string> TracesInFolder(const std::string& folder,
                                        std::vector<std::string>& errors) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".fspy") continue;
    std::string path = it->path().string();
    // A FIFO or device named *.fspy (anyone who can write to a shared folder can make one)
    // would block or never end the read: named and left out, never opened.
    if (std::string why = platform::NotARegularFile(path); !why.empty()) {
      errors.push_back(why + "; not read");
      continue;
    }
    found.push_back(std::move(path));
  }
  if (ec) errors.push_back(folder + ": " + ec.message());
  std::sort(found.begin(), found.end());
  if (found.empty() && !ec) errors.push_back(folder + ": no .fspy trace files in this folder");
  return found;
}

}  // namespace

TraceInputs ExpandTraceArguments(const std::vector<std::string>& arguments) {
  TraceInputs inputs;
  for (const std::string& arg : arguments) {
    struct stat st {};
    if (stat(arg.c_str(), &st) != 0) {
      // A symlink loop or a folder we may not enter says so; only a missing path is "missing".
      inputs.errors.push_back(errno == ENOENT ? arg + ": no such file or folder"
                                              : arg + ": " + std::strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
      const std::vector<std::string> found = TracesInFolder(arg, inputs.errors);
      inputs.files.insert(inputs.files.end(), found.begin(), found.end());
    } else if (!S_ISREG(st.st_mode)) {
      const std::string why = platform::NotARegularFile(arg);
      inputs.errors.push_back((why.empty() ? arg + " is not a file" : why) + "; not read");
    } else {
      inputs.files.push_back(arg);
    }
  }
  return inputs;
}

std::string RunIdText(uint64_t id) {
  return id == 0 ? "none" : fmt::format("{:x}", id);
}

RunGroups GroupByRun(const std::vector<std::string>& files) {
  RunGroups groups;
  std::map<uint64_t, TraceRun> by_id;
  for (const std::string& path : files) {
    const trace::TraceReader reader = trace::TraceReader::OpenFile(path);
    if (!reader.header_ok()) {
      groups.unreadable.push_back(path);
      continue;
    }
    const trace::FileHeader& h = reader.header();
    auto [it, added] = by_id.try_emplace(h.run_id);
    TraceRun& run = it->second;
    run.id = h.run_id;
    if (added || h.start_realtime_ns < run.start_realtime_ns) {
      run.start_realtime_ns = h.start_realtime_ns;
    }
    run.files.push_back(path);
  }
  for (auto& [id, run] : by_id) groups.runs.push_back(std::move(run));
  std::stable_sort(groups.runs.begin(), groups.runs.end(),
                   [](const TraceRun& a, const TraceRun& b) {
                     return a.start_realtime_ns < b.start_realtime_ns;
                   });
  return groups;
}

namespace {

std::string RunAndTraces(const TraceRun& run) {
  return RunIdText(run.id) + " (" + Counted(run.files.size(), "trace", "traces") + ")";
}

// The run `wanted` names: its id in hex, or a prefix only it has.
const TraceRun* FindRun(const RunGroups& groups, const std::string& wanted, std::string* error) {
  std::string hex = wanted;
  if (hex.starts_with("0x") || hex.starts_with("0X")) hex = hex.substr(2);
  std::transform(hex.begin(), hex.end(), hex.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::vector<const TraceRun*> matches;
  for (const TraceRun& run : groups.runs) {
    const std::string id = RunIdText(run.id);
    if (id == hex) return &run;
    if (!hex.empty() && id.starts_with(hex)) matches.push_back(&run);
  }
  if (matches.size() == 1) return matches.front();
  std::string runs;
  for (const TraceRun& run : groups.runs) runs += (runs.empty() ? "" : ", ") + RunIdText(run.id);
  *error = fmt::format("--run {}: {} of the traces' runs ({})", wanted,
                       matches.empty() ? "matches none" : "matches several", runs);
  return nullptr;
}

}  // namespace

RunSelection SelectRun(const std::vector<std::string>& files, const RunGroups& groups,
                       const RunChoice& choice, const std::string& where) {
  RunSelection selection;
  const bool several = groups.runs.size() > 1;
  if (choice.all || (!several && choice.run.empty())) {
    selection.files = files;
    return selection;
  }
  const TraceRun* chosen = &groups.runs.back();
  if (!choice.run.empty()) {
    chosen = FindRun(groups, choice.run, &selection.error);
    if (chosen == nullptr) return selection;
  } else if (!groups.runs.empty()) {
    // Newest first, the three runs before the one reported; the line stays one line.
    std::string others;
    size_t listed = 0;
    for (auto it = groups.runs.rbegin() + 1; it != groups.runs.rend() && listed < 3;
         ++it, ++listed) {
      others += (others.empty() ? "" : ", ") + RunAndTraces(*it);
    }
    if (groups.runs.size() - 1 > listed) {
      others += fmt::format(" and {} more", groups.runs.size() - 1 - listed);
    }
    selection.notice = fmt::format(
        "{} runs in {}; reporting the latest (run {}, started {}); --run ID or --all-runs for "
        "the others: {}",
        groups.runs.size(), where, RunAndTraces(*chosen), UtcTime(chosen->start_realtime_ns),
        others);
  }
  const std::set<std::string> kept(chosen->files.begin(), chosen->files.end());
  const std::set<std::string> unreadable(groups.unreadable.begin(), groups.unreadable.end());
  for (const std::string& path : files) {
    if (kept.contains(path) || unreadable.contains(path)) selection.files.push_back(path);
  }
  return selection;
}

}  // namespace flopspy::tools
