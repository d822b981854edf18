// Text in a trace is whatever bytes the program had: a kernel, thread or region name, a warning,
// the host name, a command-line argument in Latin-1. The report model must still be valid JSON
// (its writer throws on ill-formed UTF-8: the fuzzer's first find) and keep the metadata.
#include <gtest/gtest.h>

#include <sstream>

#include "report/json_report.h"
#include "report/text_report.h"
#include "report/trace_report.h"
#include "subprocess.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string WriteTrace(const std::string& folder) {
  trace::FileIdentity id = testing::TraceBuilder::DefaultIdentity();
  id.host = "h\xF6st";
  testing::TraceBuilder b(id);
  b.Metadata(R"({"process":{"command":["python","caf)"
             "\xE9"
             R"(.py"]},)"
             R"("devices":[{"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0}]})");
  b.String(1, "bad\x97kernel").String(2, "thread\xC0").String(3, "warn\xE2\x82");
  b.Add(testing::NamedThread(7, 2));
  trace::KernelSignatureDef sig{};
  sig.id = 1;
  sig.name = 1;
  sig.grid[0] = sig.block[0] = 1;
  b.Add(sig);
  trace::WarningRecord warning{};
  warning.message = 3;
  b.Add(warning);
  trace::GpuActivityRecord kernel{};
  kernel.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
  kernel.start_ns = 2'000'000'000;
  kernel.end_ns = kernel.start_ns + 1000;
  kernel.signature = 1;
  b.Chunk(trace::ChunkSource::kGpuActivity).Add(kernel);
  const std::string path = folder + "/latin1.fspy";
  b.WriteTo(path);
  return path;
}

TEST(UntrustedText, ModelIsValidJsonAndKeepsTheMetadata) {
  testing::TempDir dir;
  const TraceReport t = AnalyzeTrace(WriteTrace(dir.path()));
  ASSERT_TRUE(t.usable());
  const nlohmann::json model = BuildJsonReport({t});
  std::string json;
  ASSERT_NO_THROW(json = model.dump());  // strict: throws on ill-formed UTF-8
  const nlohmann::json& trace = model["traces"][0];
  EXPECT_EQ(trace["process"]["host"], "h" + kFffd + "st");
  EXPECT_EQ(trace["metadata"]["process"]["command"][1], "caf" + kFffd + ".py");
  EXPECT_EQ(trace["metadata"]["devices"][0]["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(trace["threads"]["7"], "thread" + kFffd);
  EXPECT_EQ(trace["warnings"][0]["message"], "warn" + kFffd);
  EXPECT_NE(json.find("bad" + kFffd + "kernel"), std::string::npos) << json.substr(0, 2000);
}

TEST(UntrustedText, TextReportShowsTheReplacement) {
  testing::TempDir dir;
  std::ostringstream out;
  WriteTextReport({AnalyzeTrace(WriteTrace(dir.path()))}, {}, out);
  EXPECT_NE(out.str().find("bad" + kFffd + "kernel"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("python caf" + kFffd + ".py"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace flopspy::tools
