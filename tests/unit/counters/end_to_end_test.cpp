// FLOPSPY_COUNTERS=1 in a real process, with the fake libcuda.so.1 and libcudart.so.13 of
// tests/fakes/cuda (no GPU, no working CUPTI): one line says counters are unavailable, the trace
// records the same launches as without counter mode, and the program's output and exit status
// are untouched.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "flopspy/trace/reader.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

#if defined(RUNTIME_APP13)

struct Seen {
  ChildResult child;
  size_t launches = 0;
  size_t metrics = 0;
  std::vector<std::pair<trace::WarningCode, std::string>> warnings;
  nlohmann::json metadata = nlohmann::json::object();
};

Seen RunApp(const std::vector<std::string>& argv, bool counters, bool preload = true) {
  TempDir dir;
  ChildOptions options;
  options.env["LD_LIBRARY_PATH"] = std::string(FAKECUDA_DRIVER_DIR) + ":" + FAKECUDA_RUNTIME13_DIR;
  if (preload) {
    options.env["LD_PRELOAD"] = FLOPSPY_LIBRARY_PATH;
    options.env["FLOPSPY_OUT"] = dir.path();
    options.env["FLOPSPY_FLUSH_MS"] = "10";
    options.env["FLOPSPY_GPU_TIMING"] = "off";  // the fake driver cannot host CUPTI
    options.env["FLOPSPY_CPU_ROOFLINE"] = "off";
    if (counters) options.env["FLOPSPY_COUNTERS"] = "1";
  } else {
    options.unset.push_back("LD_PRELOAD");
  }
  Seen seen;
  seen.child = RunChild(argv, options);
  const auto files = dir.Files(".fspy");
  if (!preload || files.size() != 1) return seen;
  trace::TraceReader reader = trace::TraceReader::OpenFile(files.front());
  std::vector<std::pair<trace::WarningCode, uint32_t>> warnings;
  reader.ForEachRecord([&](const trace::RecordView& r) {
    switch (r.type) {
      case trace::RecordType::kKernelLaunch:
        ++seen.launches;
        break;
      case trace::RecordType::kKernelMetrics:
        ++seen.metrics;
        break;
      case trace::RecordType::kWarning: {
        const auto w = r.As<trace::WarningRecord>();
        warnings.emplace_back(static_cast<trace::WarningCode>(w.code), w.message);
        break;
      }
      case trace::RecordType::kMetadata: {
        const auto block = r.As<trace::MetadataBlock>();
        const auto j = nlohmann::json::parse(r.Text(sizeof(trace::MetadataBlock), block.length),
                                             nullptr, false);
        if (j.is_object()) seen.metadata.update(j);
        break;
      }
      default:
        break;
    }
  });
  for (const auto& [code, id] : warnings) {
    seen.warnings.emplace_back(code, std::string(reader.String(id)));
  }
  return seen;
}

std::vector<std::string> FlopspyLines(const std::string& err, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  }
  return lines;
}

TEST(CountersEndToEnd, WithoutAWorkingCuptiOneLineAndEveryLaunchStillRecorded) {
  const std::vector<std::string> argv = {RUNTIME_APP13, "all"};
  const Seen plain = RunApp(argv, false, /*preload=*/false);
  const Seen without = RunApp(argv, false);
  const Seen with = RunApp(argv, true);
  ASSERT_TRUE(plain.child.exited);
  ASSERT_TRUE(with.child.exited) << with.child.err;
  EXPECT_EQ(with.child.exit_code, plain.child.exit_code);
  EXPECT_EQ(with.child.out, without.child.out);  // the program saw the same results

  const auto lines = FlopspyLines(with.child.err, "flopspy: GPU counters");
  ASSERT_EQ(lines.size(), 1u) << with.child.err;
  EXPECT_NE(lines[0].find("flopspy: GPU counters unavailable: "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("; FLOPs from the catalog only"), std::string::npos) << lines[0];
  EXPECT_TRUE(FlopspyLines(without.child.err, "flopspy: GPU counters").empty());

  EXPECT_GT(without.launches, 5u);
  EXPECT_EQ(with.launches, without.launches);
  EXPECT_EQ(with.metrics, 0u);
  int counter_warnings = 0;
  for (const auto& [code, message] : with.warnings) {
    if (message.rfind("GPU counters", 0) == 0) {
      ++counter_warnings;
      EXPECT_EQ(code, trace::WarningCode::kCountersUnavailable);
      EXPECT_EQ("flopspy: " + message, lines[0]);
    }
  }
  EXPECT_EQ(counter_warnings, 1);
  ASSERT_TRUE(with.metadata.contains("gpu_counters")) << with.metadata.dump();
  EXPECT_FALSE(with.metadata["gpu_counters"]["available"].get<bool>());
  EXPECT_FALSE(without.metadata.contains("gpu_counters"));
}

TEST(CountersEndToEnd, DriverOnlyProgramsToo) {
  const std::vector<std::string> argv = {DRIVER_APP, "triton"};
  const Seen without = RunApp(argv, false);
  const Seen with = RunApp(argv, true);
  ASSERT_TRUE(with.child.exited) << with.child.err;
  EXPECT_EQ(with.child.exit_code, without.child.exit_code);
  EXPECT_EQ(with.child.out, without.child.out);
  EXPECT_EQ(with.launches, without.launches);
  EXPECT_EQ(FlopspyLines(with.child.err, "flopspy: GPU counters").size(), 1u) << with.child.err;
}

#else
TEST(CountersEndToEnd, NeedsTheFakeCudaPrograms) {
  GTEST_SKIP() << "tests/launch programs were not built";
}
#endif

}  // namespace
}  // namespace flopspy::testing
