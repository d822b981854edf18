// flopspy-report on good, damaged, empty, foreign and too-new files: a clear message for each,
// a partial report where anything could be read, a non-zero status only when nothing could.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "flopspy/trace/crc32c.h"
#include "subprocess.h"
#include "test_programs.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

std::vector<uint8_t> SampleTrace(int regions, bool with_end) {
  TraceBuilder b;
  b.Metadata(R"({"process":{"command":["python","train.py"]}})");
  b.String(1, "step");
  for (int i = 0; i < regions; ++i) {
    trace::RegionRecord r{};
    r.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
    r.time_ns = 1'000'000'000ull + i * 1000;
    r.name = 1;
    b.Chunk(trace::ChunkSource::kThread, 7).Add(r).Flush();
  }
  trace::LostRecordsRecord lost{};
  lost.source = static_cast<uint16_t>(trace::LossSource::kThreadBuffer);
  lost.thread_id = 7;
  lost.count = 12;
  b.Chunk(trace::ChunkSource::kProcess).Add(lost);
  if (with_end) {
    trace::TraceEndRecord end{};
    end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
    end.value = 0;
    end.time_ns = 2'000'000'000ull;
    end.records_lost = lost.count;  // as the recorder counts them
    b.Add(end);
  }
  return b.Bytes();
}

void Write(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

class ReportTest : public ::testing::Test {
 protected:
  std::string File(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = dir_.path() + "/" + name;
    Write(path, bytes);
    return path;
  }
  TempDir dir_;
};

TEST_F(ReportTest, CompleteTrace) {
  const auto path = File("a.fspy", SampleTrace(5, true));
  const auto r = RunChild({kReport, path, "--color", "never"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("status    complete (exit status 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("command   python train.py"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("region 5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("12 records lost (thread_buffer)"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST_F(ReportTest, TruncatedTraceGivesPartialReportAndSaysWhere) {
  auto bytes = SampleTrace(5, true);
  bytes.resize(bytes.size() - 10);
  const auto path = File("cut.fspy", bytes);
  const auto r = RunChild({kReport, path, "--color", "never"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);  // something could be read
  EXPECT_NE(r.err.find("the file ends inside chunk"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("reporting the"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("partial:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("region 5"), std::string::npos) << r.out;
}

TEST_F(ReportTest, EmptyFileIsAnErrorWhenAlone) {
  const auto path = File("empty.fspy", {});
  const auto r = RunChild({kReport, path});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the file is empty"), std::string::npos) << r.err;
}

TEST_F(ReportTest, ForeignFileIsNamedAsSuch) {
  const std::string text = "this is not a trace";
  const auto path = File("foreign.fspy", std::vector<uint8_t>(text.begin(), text.end()));
  const auto r = RunChild({kReport, path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a flopspy trace"), std::string::npos) << r.err;
}

TEST_F(ReportTest, TooNewVersionSaysUpgrade) {
  auto bytes = SampleTrace(1, true);
  trace::FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  h.format_version = 99;
  h.min_reader_version = 99;
  h.header_crc = trace::Crc32c(&h, offsetof(trace::FileHeader, header_crc));
  std::memcpy(bytes.data(), &h, sizeof h);
  const auto r = RunChild({kReport, File("new.fspy", bytes)});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("upgrade flopspy"), std::string::npos) << r.err;
}

TEST_F(ReportTest, FolderWithGoodAndBadFilesReportsTheGoodOnes) {
  File("a.fspy", SampleTrace(3, true));
  File("b.fspy", {});
  File("ignored.txt", SampleTrace(3, true));
  const auto r = RunChild({kReport, dir_.path(), "--color", "never"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("2 traces, 1 readable"), std::string::npos) << r.out;
}

TEST_F(ReportTest, MissingPathIsReported) {
  const auto r = RunChild({kReport, dir_.path() + "/nothing.fspy"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no such file or folder"), std::string::npos) << r.err;
}

TEST_F(ReportTest, IncompleteTraceSaysSo) {
  const auto path = File("killed.fspy", SampleTrace(2, false));
  const auto r = RunChild({kReport, path, "--color", "never"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("incomplete: no end record"), std::string::npos) << r.out;
}

TEST_F(ReportTest, JsonHasTheDocumentedFields) {
  const auto path = File("a.fspy", SampleTrace(4, true));
  const auto r = RunChild({kReport, "--json", path});
  ASSERT_EQ(r.exit_code, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "flopspy-report");
  EXPECT_EQ(j["schema_version"], 2);
  ASSERT_EQ(j["traces"].size(), 1u);
  const auto& t = j["traces"][0];
  EXPECT_EQ(t["read"]["status"], "ok");
  EXPECT_EQ(t["records"]["region"], 4);
  EXPECT_EQ(t["lost"]["thread_buffer"], 12);
  EXPECT_EQ(t["lost_total"], 12);
  EXPECT_EQ(t["end"]["reason"], "exit");
  EXPECT_EQ(t["process"]["pid"], 4242);
  EXPECT_EQ(t["process"]["host"], "testhost");
  EXPECT_EQ(t["metadata"]["process"]["command"][1], "train.py");
  EXPECT_EQ(j["totals"]["readable"], 1);
}

TEST_F(ReportTest, JsonRegionsCountPairsAndOpenBegins) {
  // Three "step" regions of 10, 20 and 30 us, then one begun and never ended.
  TraceBuilder b;
  b.String(1, "step");
  TraceBuilder& chunk = b.Chunk(trace::ChunkSource::kThread, 7);
  uint64_t t = 1'000'000'000ull;
  const auto edge = [&](trace::RegionEdge e, uint64_t at) {
    trace::RegionRecord r{};
    r.edge = static_cast<uint8_t>(e);
    r.time_ns = at;
    r.name = 1;
    chunk.Add(r);
  };
  for (const uint64_t us : {10, 20, 30}) {
    edge(trace::RegionEdge::kBegin, t);
    edge(trace::RegionEdge::kEnd, t + us * 1000);
    t += 100'000;
  }
  edge(trace::RegionEdge::kBegin, t);
  chunk.Flush();
  const auto path = File("regions.fspy", b.Bytes());
  const auto r = RunChild({kReport, "--json", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& regions = j["traces"][0]["regions"];
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0]["name"], "step");
  EXPECT_EQ(regions[0]["count"], 3);
  EXPECT_EQ(regions[0]["open"], 1);
  EXPECT_DOUBLE_EQ(regions[0]["total_ns"].get<double>(), 60'000);
  EXPECT_DOUBLE_EQ(regions[0]["mean_ns"].get<double>(), 20'000);
  EXPECT_EQ(regions[0]["max_ns"], 30'000);
  EXPECT_NEAR(regions[0]["p50_ns"].get<double>(), 20'000, 20'000 / 128.0);
  // No GPU activity: no timeline, no launch overhead section.
  EXPECT_FALSE(j["traces"][0].contains("timeline"));
}

}  // namespace
}  // namespace flopspy::testing
