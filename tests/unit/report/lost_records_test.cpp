// Records lost, as every output states them (audit case B14 / R29): on a full disk the report said
// "lost 19,238 records" (the loss records in the file: full thread buffers) and advised raising
// FLOPSPY_BUFFER_KB, while the trace's end record counted 400,000 lost, most of them in chunks
// that could not be written. The end record's count is the total; without one the report says
// "at least"; the text, JSON, HTML, CSV and `flopspy run` figures agree.
#include "report/lost_records.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report/csv_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/run_summary.h"
#include "report/text_report.h"
#include "report/trace_report.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

struct Losses {
  uint64_t thread_buffer = 0;
  std::optional<uint64_t> end_count;  // the end record's records_lost; no end record if unset
};

TraceReport Analyze(const Losses& losses) {
  testing::TraceBuilder b;
  b.String(1, "step").String(2,
                             "writing flopspy-out/x.fspy failed (No space left on device); "
                             "records are being lost until it works again");
  trace::RegionRecord region{};
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
  region.time_ns = 1'000'000'000;
  region.name = 1;
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region);
  b.Chunk(trace::ChunkSource::kProcess);
  trace::WarningRecord warning{};
  warning.code = static_cast<uint16_t>(trace::WarningCode::kOutputUnavailable);
  warning.message = 2;
  b.Add(warning);
  if (losses.thread_buffer > 0) {
    trace::LostRecordsRecord lost{};
    lost.source = static_cast<uint16_t>(trace::LossSource::kThreadBuffer);
    lost.thread_id = 7;
    lost.count = losses.thread_buffer;
    b.Add(lost);
  }
  if (losses.end_count) {
    trace::TraceEndRecord end{};
    end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
    end.records_lost = *losses.end_count;
    b.Add(end);
  }
  const std::vector<uint8_t>& bytes = b.Bytes();
  return AnalyzeTrace(trace::TraceReader(trace::MemorySource(bytes)), "full-disk.fspy");
}

std::string Text(const TraceReport& t) {
  std::ostringstream out;
  WriteTextReport({t}, {}, out);
  return out.str();
}

std::string RunSummary(const TraceReport& t) {
  std::ostringstream out;
  WriteRunSummary("flopspy-out", {t}, out);
  return out.str();
}

TEST(LostRecords, EndRecordCountIsTheTotalAndTheRestIsUnwritten) {
  const LostRecords lost = LostRecordsOf(Analyze({19'238, 400'000}));
  EXPECT_EQ(lost.total, 400'000u);
  EXPECT_TRUE(lost.exact);
  EXPECT_EQ(lost.seen, 19'238u);
  EXPECT_EQ(lost.unwritten, 380'762u);
  const std::vector<std::pair<std::string, uint64_t>> causes = {{"thread_buffer", 19'238},
                                                                {"unwritten", 380'762}};
  EXPECT_EQ(lost.by_cause, causes);
}

TEST(LostRecords, EveryOutputStatesTheEndRecordsCount) {
  const TraceReport t = Analyze({19'238, 400'000});

  const std::string text = Text(t);
  EXPECT_NE(text.find("  lost      400,000 records (the end record's count; see Warnings)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  - 380,762 records lost (unwritten): the trace's end record counts "
                      "400,000 lost in all"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  - 19,238 records lost (thread_buffer): a thread's buffer was full\n"),
            std::string::npos)
      << text;
  // Most of the loss was failed writes: a bigger buffer would not have saved it.
  EXPECT_EQ(text.find("FLOPSPY_BUFFER_KB"), std::string::npos) << text;
  // The write failure the recorder reported is listed with the losses.
  EXPECT_NE(text.find("No space left on device"), std::string::npos) << text;

  const nlohmann::json model = BuildJsonReport({t});
  const nlohmann::json& trace = model["traces"][0];
  EXPECT_EQ(trace["lost_total"], 400'000);
  EXPECT_EQ(trace["lost_exact"], true);
  EXPECT_EQ(trace["lost"], nlohmann::json::parse(R"({"thread_buffer":19238,"unwritten":380762})"));
  EXPECT_EQ(trace["end"]["records_lost"], 400'000);
  EXPECT_EQ(model["totals"]["lost"], 400'000);
  EXPECT_EQ(model["totals"]["lost_exact"], true);

  const std::string html = RenderHtmlReport(model);
  EXPECT_NE(html.find("400,000"), std::string::npos);
  EXPECT_EQ(html.find("19,238<"), std::string::npos);

  bool csv_checked = false;
  for (const CsvFile& f : RenderCsvTables(model)) {
    if (f.name != "traces.csv") continue;
    EXPECT_NE(f.content.find("lost_total"), std::string::npos) << f.content;
    EXPECT_NE(f.content.find("400000"), std::string::npos) << f.content;
    csv_checked = true;
  }
  EXPECT_TRUE(csv_checked);

  EXPECT_NE(RunSummary(t).find(" events, 400,000 lost (see the report)\n"), std::string::npos)
      << RunSummary(t);
}

TEST(LostRecords, WithoutAnEndRecordTheSumSeenIsALowerBound) {
  const TraceReport t = Analyze({12, std::nullopt});
  const LostRecords lost = LostRecordsOf(t);
  EXPECT_EQ(lost.total, 12u);
  EXPECT_FALSE(lost.exact);

  const std::string text = Text(t);
  EXPECT_NE(text.find("  lost      at least 12 records (no end record, which counts them all; "
                      "see Warnings)\n"),
            std::string::npos)
      << text;
  const nlohmann::json model = BuildJsonReport({t});
  EXPECT_EQ(model["traces"][0]["lost_total"], 12);
  EXPECT_EQ(model["traces"][0]["lost_exact"], false);
  EXPECT_EQ(model["totals"]["lost_exact"], false);
  EXPECT_NE(RenderHtmlReport(model).find("at least 12"), std::string::npos);
  EXPECT_NE(RunSummary(t).find(", at least 12 lost (see the report)"), std::string::npos);
}

TEST(LostRecords, NoLossAndNoEndRecordIsNotCalledNone) {
  const std::string text = Text(Analyze({0, std::nullopt}));
  EXPECT_NE(text.find("  lost      none seen (no end record, which counts them all)\n"),
            std::string::npos)
      << text;
}

TEST(LostRecords, FullThreadBuffersAloneKeepTheAdvice) {
  const TraceReport t = Analyze({12, 12});
  const std::string text = Text(t);
  EXPECT_NE(text.find("  lost      12 records (the end record's count; see Warnings)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("raise FLOPSPY_BUFFER_KB or lower"), std::string::npos) << text;
  EXPECT_EQ(text.find("unwritten"), std::string::npos) << text;
}

// A crafted file whose end record counts fewer than its own loss records: the larger figure,
// as a lower bound, and a line saying the trace contradicts itself.
TEST(LostRecords, EndRecordCountingFewerThanTheLossRecordsIsALowerBound) {
  const TraceReport t = Analyze({500, 3});
  const LostRecords lost = LostRecordsOf(t);
  EXPECT_EQ(lost.total, 500u);
  EXPECT_FALSE(lost.exact);
  const std::string text = Text(t);
  EXPECT_NE(text.find("  lost      at least 500 records (the end record counts fewer"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("the end record counts 3 lost records, fewer than the loss records"),
            std::string::npos)
      << text;
}

TEST(LostRecords, RunTotalsAreExactOnlyWhenEveryTraceIs) {
  const LostTotal both = LostTotalOf({Analyze({19'238, 400'000}), Analyze({0, 5})});
  EXPECT_EQ(both.total, 400'005u);
  EXPECT_TRUE(both.exact);
  const LostTotal one_open = LostTotalOf({Analyze({19'238, 400'000}), Analyze({7, std::nullopt})});
  EXPECT_EQ(one_open.total, 400'007u);
  EXPECT_FALSE(one_open.exact);
  EXPECT_EQ(LostText(one_open.total, one_open.exact), "at least 400,007 records");
}

}  // namespace
}  // namespace flopspy::tools
