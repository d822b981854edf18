// The fuzz target: any bytes, taken as a trace file, through everything flopspy-report does with
// an untrusted file: the header, every chunk, every record's decoding, the metadata JSON, the
// analyzers, and the JSON, text, HTML and CSV renderings of the result. A readable input is also
// reported twice, as two ranks, so the run views (aggregate, ranks, stragglers) see it too.
// Built with libFuzzer under ASan and UBSan (preset `fuzz`) and, with replay_main.cpp, as a plain
// program that replays the seeds and past crashes in the normal test suite.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "report/csv_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "report/trace_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flopspy;
  trace::TraceReader reader(trace::MemorySource({data, size}));
  std::vector<tools::TraceReport> reports;
  reports.push_back(tools::AnalyzeTrace(std::move(reader), "fuzz.fspy"));
  if (reports[0].usable()) {
    reports.push_back(reports[0]);
    reports[1].path = "fuzz-rank1.fspy";
    reports[1].header.rank = reports[0].header.rank + 1;
  }
  // As main.cpp does: the model, printed as JSON, then each output rendered from it.
  const nlohmann::json model = tools::BuildJsonReport(reports);
  std::ostringstream out;
  // Stricter than main.cpp, which replaces ill-formed UTF-8: no text from a trace may reach the
  // model ill-formed, since other writers (--diff, the HTML page's data) dump it too.
  out << model.dump(2);
  tools::WriteTextReport(reports, {.color = true, .view = {}}, out);
  out << tools::RenderHtmlReport(model);
  for (const tools::CsvFile& file : tools::RenderCsvTables(model)) out << file.content;
  return 0;
}
