// A trace damaged in the middle: the report says where reading stopped, why, and how many bytes
// were not read, in its warnings (text and JSON) and in the lost line, which must not say "none"
// when losses recorded after the damage could not be seen.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/json_report.h"
#include "report/text_report.h"
#include "report/trace_report.h"
#include "subprocess.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

using testing::TraceBuilder;

struct Damaged {
  std::string path;
  uint64_t bad_chunk = 0;  // offset of the corrupt chunk
  uint64_t size = 0;
};

// Three chunks: a region, then a corrupt thread chunk, then a good chunk holding a loss of 12
// records and the end record, which the reader never reaches.
Damaged WriteDamaged(const std::string& folder, bool corrupt) {
  TraceBuilder b;
  b.String(1, "step");
  trace::RegionRecord region{};
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
  region.time_ns = 1'000'000'000;
  region.name = 1;
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region).Flush();
  Damaged d;
  d.bad_chunk = b.Bytes().size();
  region.time_ns += 1000;
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region).Flush();
  trace::LostRecordsRecord lost{};
  lost.source = static_cast<uint16_t>(trace::LossSource::kThreadBuffer);
  lost.count = 12;
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  b.Chunk(trace::ChunkSource::kProcess).Add(lost).Add(end).Flush();
  std::vector<uint8_t> bytes = b.Bytes();
  if (corrupt) bytes[d.bad_chunk + sizeof(trace::ChunkHeader) + 8] ^= 0x01;
  d.size = bytes.size();
  d.path = folder + "/damaged.fspy";
  std::ofstream(d.path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(d.size));
  return d;
}

class ReadStoppedTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

TEST_F(ReadStoppedTest, WarningSaysWhereWhyAndHowMuch) {
  const Damaged d = WriteDamaged(dir_.path(), true);
  const TraceReport t = AnalyzeTrace(d.path);
  ASSERT_TRUE(t.usable());
  EXPECT_EQ(t.read.status, trace::ReadStatus::kCorrupt);
  EXPECT_EQ(t.read.unread_bytes(), d.size - d.bad_chunk);
  ASSERT_EQ(t.summary.warnings.size(), 1u);
  const std::string& w = t.summary.warnings[0].message;
  EXPECT_NE(w.find("stopped reading at byte " + std::to_string(d.bad_chunk) + " (corrupt)"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find(std::to_string(d.size - d.bad_chunk) + " of the file's " +
                   std::to_string(d.size) + " bytes were not read"),
            std::string::npos)
      << w;

  const nlohmann::json j = BuildJsonReport({t});
  const nlohmann::json& trace = j["traces"][0];
  EXPECT_EQ(trace["read"]["unread_bytes"], d.size - d.bad_chunk);
  EXPECT_EQ(trace["read"]["stop_offset"], d.bad_chunk);
  ASSERT_EQ(trace["warnings"].size(), 1u);
  EXPECT_EQ(trace["warnings"][0]["message"], w);
}

TEST_F(ReadStoppedTest, TextDoesNotClaimNothingWasLost) {
  const Damaged d = WriteDamaged(dir_.path(), true);
  std::ostringstream out;
  WriteTextReport({AnalyzeTrace(d.path)}, {}, out);
  const std::string text = out.str();
  EXPECT_EQ(text.find("lost      none\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lost      none in what was read; " + std::to_string(d.size - d.bad_chunk) +
                      " bytes were not read"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stopped reading at byte " + std::to_string(d.bad_chunk)), std::string::npos)
      << text;
}

TEST_F(ReadStoppedTest, IntactTraceHasNoSuchWarning) {
  const Damaged d = WriteDamaged(dir_.path(), false);
  const TraceReport t = AnalyzeTrace(d.path);
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk);
  EXPECT_EQ(t.read.unread_bytes(), 0u);
  EXPECT_TRUE(t.summary.warnings.empty());
  EXPECT_EQ(BuildJsonReport({t})["traces"][0]["read"]["unread_bytes"], 0);
  std::ostringstream out;
  WriteTextReport({t}, {}, out);
  EXPECT_NE(out.str().find("12 records lost (thread_buffer)"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("were not read"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace flopspy::tools
