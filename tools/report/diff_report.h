// flopspy-report --diff A B: two runs (each a trace file or a folder of traces) compared per
// kernel signature and per library shape (docs/flopspy-report.md, "Comparing runs").
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/run_diff.h"
#include "report/output_files.h"
#include "report/run_views.h"
#include "report/trace_report.h"

namespace flopspy::tools {

// One side of the comparison: its traces, read and merged.
struct DiffRun {
  std::string path;  // as given
  std::vector<TraceReport> traces;
  RunViews views;
};

DiffRun LoadDiffRun(const std::string& path, const ReportOptions& options,
                    std::vector<std::string>* errors);

analyzers::RunDiff DiffOf(const DiffRun& a, const DiffRun& b,
                          analyzers::DiffMatch match = analyzers::DiffMatch::kName);

// The --json document of a comparison: `diff` instead of `traces` (docs/report-json.md).
nlohmann::json BuildDiffJson(const DiffRun& a, const DiffRun& b, const analyzers::RunDiff& diff);

// The terminal report of a comparison; `limit` rows per table.
void WriteDiffText(const DiffRun& a, const DiffRun& b, const analyzers::RunDiff& diff,
                   std::ostream& out, size_t limit = 25);

// `text` cut to `width` characters (UTF-8 aware) in the middle, "..." marking the cut, so that
// its start and end both survive: "mul · vectorized_...kernel [n=1000000]".
std::string MiddleCut(std::string_view text, size_t width);

struct DiffOutputs {
  bool json = false;      // print the JSON document instead of text
  std::string html_path;  // also write HTML here
  std::string csv_dir;    // also write CSV files here
  InputFiles inputs;      // the traces of both runs, which no CSV file may replace
};

// The whole --diff command: reads both runs, prints the comparison, writes the files. Returns
// the exit status: 0, or 1 when either run has no readable trace or a file could not be written.
int RunDiffReport(const std::string& a, const std::string& b, const ReportOptions& options,
                  const DiffOutputs& outputs, std::ostream& out, std::ostream& err,
                  analyzers::DiffMatch match = analyzers::DiffMatch::kName);

}  // namespace flopspy::tools
