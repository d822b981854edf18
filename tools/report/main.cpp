// flopspy-report TRACE... : reads flopspy traces (files or folders) and prints what they say.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "flopspy/platform/safe_file.h"
#include "flopspy/platform/terminal_text.h"
#include "report/call_sites_view.h"
#include "report/ceilings_input.h"
#include "report/cli_style.h"
#include "report/crash_handler.h"
#include "report/diff_report.h"
#include "report/inductor_cache.h"
#include "report/output_files.h"
#include "report/progress.h"
#include "report/report_model.h"
#include "report/report_outputs.h"
#include "report/step_window.h"
#include "report/steps_options.h"
#include "report/text_style.h"
#include "report/time_window.h"
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

// --inductor-cache: what the cache's modules record, with one stderr line on what was read (or
// why nothing was: the report goes on without it).
std::shared_ptr<const analyzers::ExternalKernelFigures> InductorCacheFigures(std::string dir) {
  if (dir == "default") dir = DefaultInductorCacheDir();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::cerr << "flopspy-report: --inductor-cache " << Shown(dir)
              << ": not a folder; Triton kernels keep the figures the catalog gives\n";
    return nullptr;
  }
  const InductorCache cache = ScanInductorCache(dir, {});
  for (const std::string& w : cache.warnings) std::cerr << Shown(w) << "\n";
  auto figures = std::make_shared<analyzers::ExternalKernelFigures>(InductorFigures(cache));
  std::cerr << "flopspy-report: inductor cache " << Shown(dir) << ": " << cache.files_read
            << " modules read, " << figures->size() << " kernels with recorded figures"
            << (cache.conflicts.empty() ? std::string()
                                        : ", " + std::to_string(cache.conflicts.size()) +
                                              " left out (defined twice with different metadata)")
            << (cache.truncated ? ", stopped at the file limit" : "") << "\n";
  return figures;
}

int Main(int argc, char** argv) {
  CLI::App app{"Reads flopspy traces and reports where the time went.", "flopspy-report"};
  std::vector<std::string> arguments;
  bool json = false;
  std::string chrome_path;
  std::string color = "auto";
  UsePlainHelp(app);
  // Not required() here: CLI11 would say "traces is required"; checked after parsing.
  app.add_option("traces", arguments, "trace files (.fspy) or folders holding them")
      ->type_name("TRACE|FOLDER");
  app.add_flag("--json", json, "print one JSON document (docs/report-json.md) instead of text");
  app.add_option("--chrome", chrome_path,
                 "also write a Chrome/Perfetto trace (open it in ui.perfetto.dev; gzip when "
                 "FILE ends in .gz)")
      ->type_name("FILE");
  std::string window_text;
  app.add_option("--window", window_text,
                 "with --chrome: only the events between START and END after the trace start "
                 "(2s:5s, 1500ms:2500ms; an end may be left out), or steps: step:N, step:N-M")
      ->type_name("START:END");
  std::string html_path;
  app.add_option("--html", html_path,
                 "also write the report as one self-contained HTML file: rooflines, timeline, "
                 "sortable tables (docs/report-html.md)")
      ->type_name("FILE");
  std::string csv_dir;
  app.add_option("--csv", csv_dir,
                 "also write one CSV file per table (kernels, library calls, copies, devices...) "
                 "into this folder, created if needed")
      ->type_name("DIR");
  std::string ceilings_path;
  app.add_option("--ceilings", ceilings_path,
                 "measured GPU ceilings (JSON of flopspy ceilings --gpu; default: "
                 "$FLOPSPY_CEILINGS or ~/.cache/flopspy/gpu-ceilings.json when present)")
      ->type_name("FILE");
  bool diff = false;
  app.add_flag("--diff", diff,
               "compare two runs given as the two paths A B (each a trace or a folder of "
               "traces) per kernel and library shape (docs/flopspy-report.md)");
  OneOf(app.add_option("--color", color,
                       "colour in the text report, only for what needs attention: each "
                       "trace's heading, a bad status, lost records, warnings and the CPU "
                       "notice (default auto: on a terminal)"),
        {"auto", "always", "never"});
  RunChoice run_choice;
  CLI::Option* all_runs =
      app.add_flag("--all-runs", run_choice.all,
                   "report every run in the traces together (default: the latest run only)");
  app.add_option("--run", run_choice.run,
                 "report the run with this id (hex, or a prefix of it; none: traces without "
                 "one) when the traces hold several")
      ->type_name("ID")
      ->excludes(all_runs);
  size_t top = 0;
  std::string sort = "time", group_by = "signature", filter;
  app.add_option("--top", top,
                 "rows per table (default: 8 families, 10 names, 15 kernel signatures, 10 "
                 "library shapes)")
      ->type_name("N");
  app.add_option("--sort", sort,
                 "order of the kernel rows, largest first: time (default), count, mean, flops "
                 "or roof")
      ->type_name("KEY");
  app.add_option("--group-by", group_by,
                 "keep the kernel rows of one name or family together (signature, the "
                 "default; name; family), or add kernel time per innermost range or per step "
                 "(range; step)")
      ->type_name("KEY");
  app.add_option("--filter", filter,
                 "only the kernels whose demangled name matches this regular expression "
                 "(ECMAScript)")
      ->type_name("REGEX");
  bool by_call_site = false;
  app.add_flag("--by-call-site", by_call_site,
               "the kernel table grouped under the call sites that launched the kernels, in "
               "text, JSON and CSV (docs/call-sites.md)");
  std::string frames_from;
  app.add_option("--frames-from", frames_from,
                 "the user's frames are those whose file (or native module) matches this "
                 "regular expression (ECMAScript), instead of the default rule "
                 "(docs/call-sites.md)")
      ->type_name("REGEX");
  bool per_trace = false;
  app.add_flag("--per-trace", per_trace,
               "with more than two traces, also each trace's full report (default: the merged "
               "run and the per-rank table only)");
  std::string match;
  app.add_option("--match", match,
                 "with --diff: compare kernels by name (default: one row per kernel whatever "
                 "its launch shape) or by signature (name, shape, grid and block)")
      ->type_name("KEY");
  std::string step_range;
  app.add_option("--step-range", step_range,
                 "the ranges (NVTX or flopspy regions) that are steps: their names match this "
                 "regular expression (ECMAScript; default: ProfilerStep#N, training_step_N, "
                 "train_step, step N)")
      ->type_name("REGEX");
  std::string model_flops_text;
  app.add_option("--model-flops-per-step", model_flops_text,
                 "the model's FLOPs per training step, for MFU (default: FLOPSPY_MODEL_FLOPS "
                 "as the trace recorded it)")
      ->type_name("F");
  std::string inductor_cache;
  app.add_option("--inductor-cache", inductor_cache,
                 "torch.compile's inductor cache: bytes (and template FLOPs) its generated "
                 "modules record for Triton kernels the catalog cannot model; 'default' for "
                 "$TORCHINDUCTOR_CACHE_DIR or /tmp/torchinductor_<user> (docs/kernel-catalog.md)")
      ->type_name("DIR");
  app.set_version_flag("--version", VersionText("flopspy-report"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    return UsageError(PlainUsageMessage(e));
  }
  if (arguments.empty()) {
    return UsageError("no trace given: name trace files (.fspy) or folders holding them");
  }
  ViewOptions view;
  if (std::string error = ParseViewOptions(top, sort, group_by, filter, &view); !error.empty()) {
    return UsageError(error);
  }
  view.per_trace = per_trace;
  view.by_call_site = by_call_site;
  if (std::string error = FramesFromError(frames_from); !error.empty()) return UsageError(error);
  const std::optional<analyzers::DiffMatch> diff_match =
      analyzers::DiffMatchFromName(match.empty() ? "name" : match);
  if (!diff_match) return UsageError("--match " + match + ": use name or signature");
  if (!match.empty() && !diff) return UsageError("--match applies to --diff: add --diff A B");
  if (per_trace && diff) return UsageError("--per-trace does not apply to --diff");
  std::optional<TimeWindow> window;
  if (!window_text.empty()) {
    std::string error;
    window = ParseTimeWindow(window_text, &error);
    if (!window) return UsageError(error);
    if (chrome_path.empty()) {
      return UsageError("--window limits the --chrome export: add --chrome FILE");
    }
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
  if (diff && (run_choice.all || !run_choice.run.empty())) {
    return UsageError("--diff compares the two paths as given: --run and --all-runs do not apply");
  }
  if (diff && (top > 0 || sort != "time" || group_by != "signature" || !filter.empty())) {
    return UsageError("--top, --sort, --group-by and --filter do not apply to --diff yet");
  }
  // Several runs in one folder (flopspy-out reused) are not one job: the latest by default.
  const RunSelection selected =
      diff ? RunSelection{inputs.files, "", ""}
           : SelectRun(inputs.files, GroupByRun(inputs.files), run_choice,
                       arguments.size() == 1 ? arguments.front() : "the traces given");
  if (!selected.error.empty()) return UsageError(selected.error);
  for (const auto& error : inputs.errors) std::cerr << "flopspy-report: " << Shown(error) << "\n";
  if (!selected.notice.empty()) std::cerr << "flopspy-report: " << Shown(selected.notice) << "\n";

  ReportOptions options;
  options.ceilings = Ceilings(ceilings_path);
  options.call_sites.frames_from = frames_from;
  // --by-call-site lists every kernel of a site, not only its top ones.
  if (by_call_site) options.call_sites.top_kernels = kAllCallSiteKernels;
  if (std::string error = ParseStepOptions(step_range, model_flops_text, &options.steps);
      !error.empty()) {
    return UsageError(error);
  }
  if (!inductor_cache.empty()) options.kernel_figures = InductorCacheFigures(inductor_cache);
  if (diff) {
    if (arguments.size() != 2) {
      std::cerr << "flopspy-report: --diff compares two runs: give exactly two paths, A and B "
                   "(each a trace file or a folder of traces), not "
                << arguments.size() << "\n";
      return 2;
    }
    std::ostringstream out;
    int status =
        RunDiffReport(arguments[0], arguments[1], options, {json, html_path, csv_dir, input_files},
                      out, std::cerr, *diff_match);
    if (!PrintReport(out.str())) status = 1;
    return status;
  }
  ProgressBar progress(FileSizes(selected.files), StderrIsTerminal());
  std::vector<TraceReport> traces = AnalyzeTraces(
      selected.files, options, [&progress](size_t i, uint64_t done) { progress.Update(i, done); });
  progress.Finish();
  SayReadProblems(traces);
  if (window && window->by_steps()) {
    if (std::string error = ResolveStepWindow(*window, traces); !error.empty()) {
      return UsageError(error);
    }
  }
  // Non-zero when nothing at all could be read, or when an output could not be written.
  const int status = UsableTraces(traces) > 0 ? 0 : 1;
  ReportOutputs outputs;
  outputs.json = json;
  outputs.text.color = UseColor(color, isatty(STDOUT_FILENO) != 0);
  outputs.html_path = html_path;
  outputs.csv_dir = csv_dir;
  outputs.chrome_path = chrome_path;
  outputs.chrome.window = window;
  outputs.inputs = input_files;
  const ReportModel model = BuildReportModel(std::move(traces), options.thresholds, view);
  return std::max(status, WriteReportOutputs(model, outputs, PrintReport, std::cerr));
}

}  // namespace
}  // namespace flopspy::tools

int main(int argc, char** argv) {
  flopspy::tools::InstallCrashHandler("flopspy-report");
  return flopspy::tools::Main(argc, argv);
}
