// Warnings the recorder writes into a trace reach every output (text, JSON, HTML, CSV), whatever
// their code: the recorder is about to write one when it stops or reopens its trace file because
// the program closed or replaced its descriptor, and a code this report does not know yet must
// still be shown, not dropped.
#include <gtest/gtest.h>

#include <sstream>

#include "report/csv_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "report/trace_report.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

constexpr std::string_view kReopened =
    "the program closed the trace descriptor; the trace file was reopened";
constexpr std::string_view kFromTheFuture = "a warning with a code this report does not know";

TraceReport TraceWithWarnings() {
  testing::TraceBuilder b;
  b.String(1, kReopened).String(2, kFromTheFuture);
  trace::WarningRecord w{};
  w.code = static_cast<uint16_t>(trace::WarningCode::kOutputUnavailable);
  w.time_ns = 1'000'000'000;
  w.message = 1;
  b.Add(w);
  w.code = 999;
  w.message = 2;
  b.Add(w);
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  b.Add(end);
  const std::vector<uint8_t>& bytes = b.Bytes();
  return AnalyzeTrace(trace::TraceReader(trace::MemorySource(bytes)), "warned.fspy");
}

TEST(TraceWarnings, ReachEveryOutput) {
  const TraceReport t = TraceWithWarnings();
  std::ostringstream text;
  WriteTextReport({t}, {}, text);
  EXPECT_NE(text.str().find("  - " + std::string(kReopened) + "\n"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("  - " + std::string(kFromTheFuture) + "\n"), std::string::npos)
      << text.str();

  const nlohmann::json model = BuildJsonReport({t});
  const nlohmann::json& warnings = model["traces"][0]["warnings"];
  ASSERT_EQ(warnings.size(), 2u) << warnings;
  EXPECT_EQ(warnings[0]["code"], "output_unavailable");
  EXPECT_EQ(warnings[0]["message"], kReopened);
  EXPECT_EQ(warnings[1]["code"], "unknown");
  EXPECT_EQ(warnings[1]["message"], kFromTheFuture);

  const std::string html = RenderHtmlReport(model);
  EXPECT_NE(html.find(kReopened), std::string::npos);
  EXPECT_NE(html.find(kFromTheFuture), std::string::npos);

  bool csv = false;
  for (const CsvFile& f : RenderCsvTables(model)) {
    if (f.name != "warnings.csv") continue;
    csv = true;
    EXPECT_EQ(f.rows, 2u);
    EXPECT_NE(f.content.find(kReopened), std::string::npos) << f.content;
  }
  EXPECT_TRUE(csv);
}

}  // namespace
}  // namespace flopspy::tools
