// The CPU model key in a trace's metadata picks the measured CPU ceilings file. The metadata is
// the file's word: a key of the wrong type (the fuzzer's second find: nlohmann's value() threw
// and flopspy-report died) or one that names another folder is no key; a good one still works.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "flopspy/cpu_roofline/ceilings.h"
#include "report/trace_report.h"
#include "subprocess.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

class CpuKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("XDG_CACHE_HOME");
    if (old) old_cache_ = old;
    setenv("XDG_CACHE_HOME", (dir_.path() + "/cache").c_str(), 1);
  }
  void TearDown() override {
    if (old_cache_) {
      setenv("XDG_CACHE_HOME", old_cache_->c_str(), 1);
    } else {
      unsetenv("XDG_CACHE_HOME");
    }
  }

  // One CPU sample and `metadata`: the report then looks for the CPU's ceilings.
  TraceReport Analyze(const std::string& metadata) {
    testing::TraceBuilder b;
    b.Metadata(metadata);
    trace::CpuSampleRecord s{};
    s.scope = static_cast<uint8_t>(trace::CpuSampleScope::kRun);
    s.end_ns = 1'000'000'000;
    s.valid = trace::kCpuFlopsDp | trace::kCpuBytesAny;
    s.flops_dp = 1e9;
    s.bytes_any = 1e9;
    b.Chunk(trace::ChunkSource::kCpuSampler).Add(s);
    const std::string path = dir_.path() + "/t.fspy";
    b.WriteTo(path);
    return AnalyzeTrace(path);
  }

  // Measured ceilings saved where the report looks for CPU `key`, or at `path`.
  void SaveCeilingsAt(const std::string& path) {
    cpuroof::CpuCeilings c;
    c.cpu_key = "genuineintel-6-8f";
    c.flops.push_back({cpuroof::Isa::kScalar, cpuroof::Precision::kDp, 1, 4, 12.0, 16.0});
    c.bandwidth.push_back({"DRAM", "triad", 1, 20.0, 1u << 30});
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::string error;
    ASSERT_TRUE(cpuroof::SaveCeilings(c, path, &error)) << error;
  }

  testing::TempDir dir_;
  std::optional<std::string> old_cache_;
};

TEST_F(CpuKeyTest, MisshapenMetadataIsNoKey) {
  for (const char* metadata : {R"({"cpu_roofline":5})", R"({"cpu_roofline":{"capabilities":5}})",
                               R"({"cpu_roofline":{"capabilities":[1,2]}})",
                               R"({"cpu_roofline":{"capabilities":{"cpu_key":5}}})",
                               R"({"cpu_roofline":{"capabilities":{"cpu_key":null}}})"}) {
    SCOPED_TRACE(metadata);
    TraceReport t;
    ASSERT_NO_THROW(t = Analyze(metadata));
    ASSERT_TRUE(t.cpu_roofline.has_value());
    EXPECT_TRUE(t.cpu_roofline->roofs.empty());
  }
}

TEST_F(CpuKeyTest, GoodKeyFindsItsCeilings) {
  SaveCeilingsAt(cpuroof::CeilingsPathForKey("genuineintel-6-8f"));
  const TraceReport t =
      Analyze(R"({"cpu_roofline":{"capabilities":{"cpu_key":"genuineintel-6-8f"}}})");
  ASSERT_TRUE(t.cpu_roofline.has_value());
  EXPECT_FALSE(t.cpu_roofline->roofs.empty());
}

TEST_F(CpuKeyTest, KeyNamingAnotherFolderIsNotFollowed) {
  // "ceilings-cpu-x/../../elsewhere" would resolve to cache/elsewhere.json.
  SaveCeilingsAt(dir_.path() + "/cache/elsewhere.json");
  std::filesystem::create_directories(dir_.path() + "/cache/flopspy/ceilings-cpu-x");
  const TraceReport t =
      Analyze(R"({"cpu_roofline":{"capabilities":{"cpu_key":"x/../../elsewhere"}}})");
  ASSERT_TRUE(t.cpu_roofline.has_value());
  EXPECT_TRUE(t.cpu_roofline->roofs.empty());
}

}  // namespace
}  // namespace flopspy::tools
