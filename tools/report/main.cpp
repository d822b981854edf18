// flopspy-report TRACE... : reads flopspy traces (files or folders) and prints what they say.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "flopspy/platform/safe_file.h"
#include "flopspy/platform/terminal_text.h"
#include "report/ceilings_input.h"
#include "report/crash_handler.h"
#include "report/diff_report.h"
#include "report/output_files.h"
#include "report/progress.h"
#include "report/report_model.h"
#include "report/report_outputs.h"
#include "report/trace_inputs.h"
#include "report/trace_report.h"
#include "report/version.h"

namespace flopspy::tools {
namespace {

// Text from a trace or the command line, safe to put in a one-line message on a terminal.
std::string Shown(std::string_view text) {
  return platform::EscapeControls(text);
}

// Every usage error exits 2 with one line, whatever CLI11's own code for it
// (docs/flopspy-report.md).
int UsageError(const std::string& what) {
  std::cerr << "flopspy-report: " << Shown(what) << " (flopspy-report --help for usage)\n";
  return 2;
}

// The report on stdout; a write that fails (a full disk, /dev/full) is said and makes the exit
// status 1, where a truncated report would otherwise look complete.
bool PrintReport(std::string_view text) {
  std::string error;
  if (WriteStandardOutput(text, &error)) return true;
  std::cerr << "flopspy-report: cannot write the report to standard output: " << error << "\n";
  return false;
}

// The measured GPU ceilings: from --ceilings, else $FLOPSPY_CEILINGS, else the cache. A file
// the user named must exist; the cache need not.
std::optional<gpuroof::CeilingsFile> Ceilings(std::string path) {
  const bool named = !path.empty() || std::getenv("FLOPSPY_CEILINGS") != nullptr;
  if (path.empty()) path = DefaultCeilingsPath();
  if (path.empty()) return std::nullopt;
  std::vector<std::string> warnings;
  std::optional<gpuroof::CeilingsFile> ceilings = LoadGpuCeilings(path, named, &warnings);
  for (const auto& w : warnings) std::cerr << "flopspy-report: " << Shown(w) << "\n";
  return ceilings;
}

// Where each trace's reading stopped early, and what else it refused, one line each on stderr.
void SayReadProblems(const std::vector<TraceReport>& traces) {
  for (const TraceReport& t : traces) {
    if (t.read.status != trace::ReadStatus::kOk) {
      std::cerr << "flopspy-report: " << Shown(t.path) << ": " << Shown(t.read.message)
                << (t.read.records > 0 ? " (reporting the " + std::to_string(t.read.records) +
                                             " records before that)"
                                       : "")
                << "\n";
    }
    for (const std::string& problem : t.problems) {
      std::cerr << "flopspy-report: " << Shown(t.path) << ": " << Shown(problem) << "\n";
    }
  }
}

int Main(int argc, char** argv) {
  CLI::App app{"Reads flopspy traces and reports where the time went.", "flopspy-report"};
  std::vector<std::string> arguments;
  bool json = false;
  std::string chrome_path;
  std::string color = "auto";
  app.add_option("traces", arguments, "trace files (.fspy) or folders holding them")->required();
  app.add_flag("--json", json, "print one JSON document (docs/report-json.md) instead of text");
  app.add_option("--chrome", chrome_path,
                 "also write a Chrome/Perfetto trace (open it in ui.perfetto.dev)");
  std::string html_path;
  app.add_option("--html", html_path,
                 "also write the report as one self-contained HTML file: rooflines, timeline, "
                 "sortable tables (docs/report-html.md)");
  std::string csv_dir;
  app.add_option("--csv", csv_dir,
                 "also write one CSV file per table (kernels, library calls, copies, devices...) "
                 "into this folder, created if needed");
  std::string ceilings_path;
  app.add_option("--ceilings", ceilings_path,
                 "measured GPU ceilings (JSON of flopspy ceilings --gpu; default: "
                 "$FLOPSPY_CEILINGS or ~/.cache/flopspy/gpu-ceilings.json when present)");
  bool diff = false;
  app.add_flag("--diff", diff,
               "compare two runs given as the two paths A B (each a trace or a folder of "
               "traces) per kernel and library shape (docs/flopspy-report.md)");
  app.add_option("--color", color, "colour in the text report")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.set_version_flag("--version", VersionText("flopspy-report"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    return UsageError(e.what());
  }

  const TraceInputs inputs = ExpandTraceArguments(arguments);
  // An output that is one of the traces would be read, then replaced by the report about it.
  const InputFiles input_files(inputs.files);
  for (const auto& [option, path] : {std::pair{"--html", &html_path}, {"--chrome", &chrome_path}}) {
    if (!path->empty() && input_files.Contains(*path)) {
      std::cerr << "flopspy-report: " << option << " " << Shown(*path)
                << " is one of the traces to read: refusing to overwrite it\n";
      return 2;
    }
  }
  for (const auto& error : inputs.errors) std::cerr << "flopspy-report: " << Shown(error) << "\n";

  ReportOptions options;
  options.ceilings = Ceilings(ceilings_path);
  if (diff) {
    if (arguments.size() != 2) {
      std::cerr << "flopspy-report: --diff compares two runs: give exactly two paths, A and B "
                   "(each a trace file or a folder of traces), not "
                << arguments.size() << "\n";
      return 2;
    }
    std::ostringstream out;
    int status = RunDiffReport(arguments[0], arguments[1], options,
                               {json, html_path, csv_dir, input_files}, out, std::cerr);
    if (!PrintReport(out.str())) status = 1;
    return status;
  }
  ProgressBar progress(FileSizes(inputs.files), StderrIsTerminal());
  std::vector<TraceReport> traces = AnalyzeTraces(
      inputs.files, options, [&progress](size_t i, uint64_t done) { progress.Update(i, done); });
  progress.Finish();
  SayReadProblems(traces);
  // Non-zero when nothing at all could be read, or when an output could not be written.
  const int status = UsableTraces(traces) > 0 ? 0 : 1;
  ReportOutputs outputs;
  outputs.json = json;
  outputs.text.color = color == "always" || (color == "auto" && isatty(STDOUT_FILENO));
  outputs.html_path = html_path;
  outputs.csv_dir = csv_dir;
  outputs.chrome_path = chrome_path;
  outputs.inputs = input_files;
  const ReportModel model = BuildReportModel(std::move(traces), options.thresholds);
  return std::max(status, WriteReportOutputs(model, outputs, PrintReport, std::cerr));
}

}  // namespace
}  // namespace flopspy::tools

int main(int argc, char** argv) {
  flopspy::tools::InstallCrashHandler("flopspy-report");
  return flopspy::tools::Main(argc, argv);
}
