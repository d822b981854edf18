// flopspy-report --csv DIR: one CSV file per table of the report model (RFC 4180: a header row,
// fields quoted when they hold a comma, quote or line break, CRLF line ends). Numbers in plain
// units (ns, bytes, FLOPs, per second); empty field = unknown. Columns: docs/flopspy-report.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "report/output_files.h"
#include "report/report_sink.h"

namespace flopspy::tools {

struct CsvFile {
  std::string name;     // "kernels.csv"
  std::string content;  // header row and one row per entry
  size_t rows = 0;      // entries, header not counted
};

// Every table of the report: traces, warnings, devices, roofs, kernels, library_calls,
// library_diagnostics, copies, and one file per array of the sections added later
// (launch_overhead, cpu_roofline, advice, timeline, ...). Tables with no entries are left out.
// With several traces, each row starts with the trace's path in a `trace` column.
std::vector<CsvFile> RenderCsvTables(const nlohmann::json& report);

// One field as RFC 4180 writes it.
std::string CsvField(std::string_view text);

// Writes the tables into `dir` (created if needed); a table whose file would replace one of
// `inputs` is refused.
class CsvReportSink : public ReportSink {
 public:
  explicit CsvReportSink(std::string dir, InputFiles inputs = {})
      : dir_(std::move(dir)), inputs_(std::move(inputs)) {}
  SinkStatus Write(const ReportModel& model) override;

 private:
  std::string dir_;
  InputFiles inputs_;
};

}  // namespace flopspy::tools
