// The summary `flopspy run` prints on the program's terminal: the folder and what a damaged
// trace's message holds (its path) are shown with their control characters escaped (audit case
// B17 / P14), as the report does.
#include <gtest/gtest.h>

#include <sstream>

#include "report/run_summary.h"
#include "report/trace_report.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

TEST(RunSummaryText, ControlCharactersAreEscaped) {
  testing::TraceBuilder b;
  trace::RegionRecord region{};
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region).Flush();
  std::vector<uint8_t> bytes = b.Bytes();
  bytes.resize(bytes.size() + 8, 0xFF);  // the file ends inside a chunk header
  TraceReport t =
      AnalyzeTrace(trace::TraceReader(trace::MemorySource(bytes)), "out/\x1b]0;pwned\x07.fspy");
  t.read.message = "cut short in out/\x1b]0;pwned\x07.fspy\r\n";
  std::ostringstream out;
  WriteRunSummary("out\x1b[2J", {t}, out);
  const std::string text = out.str();
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (byte >= 0x20 && byte != 0x7f)) << "raw control byte " << int(byte);
  }
  EXPECT_NE(text.find("trace in out\\x1b[2J:"), std::string::npos) << text;
  EXPECT_NE(text.find("damaged: cut short in out/\\x1b]0;pwned\\x07.fspy\\r\\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("full report: flopspy-report out\\x1b[2J\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace flopspy::tools
