// flopspy-report TRACE... : reads flopspy traces (files or folders) and prints what they say.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "report/chrome_export.h"
#include "report/crash_handler.h"
#include "report/csv_report.h"
#include "report/diff_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/progress.h"
#include "report/text_report.h"
#include "report/trace_inputs.h"
#include "report/trace_report.h"

namespace flopspy::tools {
namespace {

// Every usage error exits 2 with one line, whatever CLI11's own code for it
// (docs/flopspy-report.md).
int UsageError(const std::string& what) {
  std::cerr << "flopspy-report: " << what << " (flopspy-report --help for usage)\n";
  return 2;
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
  app.set_version_flag("--version", std::string("flopspy-report ") + FLOPSPY_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    return UsageError(e.what());
  }

  const TraceInputs inputs = ExpandTraceArguments(arguments);
  for (const auto& error : inputs.errors) std::cerr << "flopspy-report: " << error << "\n";

  ReportOptions options;
  if (ceilings_path.empty()) ceilings_path = DefaultCeilingsPath();
  if (!ceilings_path.empty() && std::filesystem::exists(ceilings_path)) {
    gpuroof::CeilingsLoad load = gpuroof::LoadCeilingsFile(ceilings_path);
    if (load.file) {
      options.ceilings = std::move(load.file);
    } else {
      std::cerr << "flopspy-report: ignoring measured ceilings in " << ceilings_path << ": "
                << load.error << "; using datasheet roofs\n";
    }
    for (const auto& w : load.warnings)
      std::cerr << "flopspy-report: " << ceilings_path << ": " << w << "\n";
  }
  if (diff) {
    if (arguments.size() != 2) {
      std::cerr << "flopspy-report: --diff compares two runs: give exactly two paths, A and B "
                   "(each a trace file or a folder of traces), not "
                << arguments.size() << "\n";
      return 2;
    }
    return RunDiffReport(arguments[0], arguments[1], options, {json, html_path, csv_dir}, std::cout,
                         std::cerr);
  }
  ProgressBar progress(FileSizes(inputs.files), StderrIsTerminal());
  std::vector<TraceReport> traces = AnalyzeTraces(
      inputs.files, options, [&progress](size_t i, uint64_t done) { progress.Update(i, done); });
  progress.Finish();
  size_t usable = 0;
  for (const TraceReport& t : traces) {
    const std::string& path = t.path;
    if (t.usable()) ++usable;
    if (t.read.status != trace::ReadStatus::kOk) {
      std::cerr << "flopspy-report: " << path << ": " << t.read.message
                << (t.read.records > 0 ? " (reporting the " + std::to_string(t.read.records) +
                                             " records before that)"
                                       : "")
                << "\n";
    }
  }

  // Every output but the text renders from the one report model.
  nlohmann::json model;
  if (json || !html_path.empty() || !csv_dir.empty()) model = BuildJsonReport(traces);
  if (json) {
    // A trace's path may be any bytes: ill-formed UTF-8 becomes U+FFFD rather than an exception.
    std::cout << model.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    TextOptions text_options;
    text_options.color = color == "always" || (color == "auto" && isatty(STDOUT_FILENO));
    WriteTextReport(traces, text_options, std::cout);
  }
  std::vector<std::unique_ptr<ReportSink>> sinks;
  if (!html_path.empty()) sinks.push_back(std::make_unique<HtmlReportSink>(html_path));
  if (!csv_dir.empty()) sinks.push_back(std::make_unique<CsvReportSink>(csv_dir));
  for (const auto& sink : sinks) {
    const SinkStatus status = sink->Write(model);
    std::cerr << "flopspy-report: " << status.message << "\n";
  }
  if (!chrome_path.empty()) {
    std::ofstream out(chrome_path, std::ios::trunc);
    if (!out) {
      std::cerr << "flopspy-report: cannot write " << chrome_path << "\n";
    } else {
      const ChromeExportResult r = ExportChromeTrace(inputs.files, out);
      out.close();
      std::cerr << "flopspy-report: wrote " << chrome_path << " (" << r.events << " events, "
                << r.flows << " launch-to-kernel flows)\n";
    }
  }
  // Non-zero only when nothing at all could be read.
  return usable > 0 ? 0 : 1;
}

}  // namespace
}  // namespace flopspy::tools

int main(int argc, char** argv) {
  flopspy::tools::InstallCrashHandler("flopspy-report");
  return flopspy::tools::Main(argc, argv);
}
