// The launch-overhead section of flopspy-report, text and JSON, for a small synthetic trace:
// the text is compared whole (a golden test), the JSON by its documented fields.
#include "report/launch_overhead_section.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace flopspy::tools {
namespace {

using analyzers::LaunchOverheadAnalyzer;
using analyzers::LaunchOverheadReport;
using trace::Api;

constexpr uint64_t kUs = 1000;
constexpr uint64_t kT0 = 1'000'000'000;

class Feed {
 public:
  Feed() {
    strings_ = [this](uint32_t id) -> std::string_view {
      const auto it = texts_.find(id);
      return it == texts_.end() ? std::string_view() : std::string_view(it->second);
    };
  }
  template <class T>
  void Add(T record, uint32_t thread_id, trace::ChunkSource source) {
    record.h = trace::MakeHeader<T>(record.h.flags);
    std::vector<uint8_t> bytes(sizeof(T));
    std::memcpy(bytes.data(), &record, sizeof(T));
    analyzer_.Add({T::kType, record.h.flags, bytes, thread_id, source, 0}, strings_);
  }
  void Signature(uint32_t id, const std::string& name, uint32_t grid_x, uint32_t block_x) {
    texts_[100 + id] = name;
    trace::KernelSignatureDef def{};
    def.id = id;
    def.name = 100 + id;
    def.grid[0] = grid_x;
    def.grid[1] = def.grid[2] = 1;
    def.block[0] = block_x;
    def.block[1] = def.block[2] = 1;
    Add(def, 0, trace::ChunkSource::kProcess);
  }
  void Stream(uint32_t id, uint64_t handle) {
    trace::StreamDef def{};
    def.id = id;
    def.handle = handle;
    Add(def, 0, trace::ChunkSource::kProcess);
  }
  void Launch(uint64_t corr, uint32_t sig, uint64_t enter, uint64_t cost) {
    trace::KernelLaunchRecord l{};
    l.api = static_cast<uint16_t>(Api::kCudaLaunchKernel);
    l.enter_ns = enter;
    l.duration_ns = static_cast<uint32_t>(cost);
    l.correlation = corr;
    l.signature = sig;
    l.stream = 1;
    Add(l, 11, trace::ChunkSource::kThread);
  }
  void Gpu(uint64_t corr, uint32_t sig, uint64_t start, uint64_t end) {
    trace::GpuActivityRecord g{};
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    g.start_ns = start;
    g.end_ns = end;
    g.correlation = corr;
    g.stream = 7;
    g.signature = sig;
    Add(g, 0, trace::ChunkSource::kGpuActivity);
  }
  LaunchOverheadReport Finish() { return analyzer_.Finish(); }

 private:
  LaunchOverheadAnalyzer analyzer_;
  std::unordered_map<uint32_t, std::string> texts_;
  analyzers::StringLookup strings_;
};

// 100 iterations, one every 40 us on one thread and one stream: an elementwise kernel
// (launch [40i, 40i+5] us, GPU [40i+3, 40i+5]) then a GEMM-like kernel (launch [40i+5, 40i+11],
// GPU [40i+9, 40i+29]).
//   window  3 .. 3989 us = 3986 us; busy 100 x 22 = 2200 us (55.2%)
//   gaps    [40i+5, 40i+9] before the GEMM, whose launch returns at 40i+11: starved, 100 x 4 us;
//           [40i+29, 40i+43] before the next add, launch returns at 40i+45: starved, 99 x 14 us
//           starved 1786 us = 44.8%; launch-bound kernels (add: 2 < 5 us) 200 us = 5.0%;
//           44.8% + 5.0% < 50%: partly overhead bound
//   graphs  at 1 us per node: min(4, 6 - 1) x 100 + min(14, 5 - 1) x 99 = 796 us (20.0%)
LaunchOverheadReport SmallTrace() {
  Feed f;
  f.Signature(1, "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_10AddFunctorIfEEEEviT0_",
              1024, 128);
  f.Signature(2, "_Z4gemmPKfS0_Pfiii", 64, 256);
  f.Stream(1, 0x5599aa00);
  for (uint64_t i = 0; i < 100; ++i) {
    const uint64_t t = kT0 + 40 * kUs * i;
    f.Launch(2 * i + 1, 1, t, 5 * kUs);
    f.Launch(2 * i + 2, 2, t + 5 * kUs, 6 * kUs);
  }
  for (uint64_t i = 0; i < 100; ++i) {
    const uint64_t t = kT0 + 40 * kUs * i;
    f.Gpu(2 * i + 1, 1, t + 3 * kUs, t + 5 * kUs);
    f.Gpu(2 * i + 2, 2, t + 9 * kUs, t + 29 * kUs);
  }
  return f.Finish();
}

void ExpectFitsHundredColumns(const std::string& text) {
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    EXPECT_LE(end - start, 100u) << text.substr(start, end - start);
  }
}

TEST(LaunchOverheadSection, TextGolden) {
  std::ostringstream out;
  WriteLaunchOverheadText(SmallTrace(), {}, out);
  const std::string text = out.str();
  ExpectFitsHundredColumns(text);
  // The section starts with the blank line that parts it from the one before.
  const std::string expected = R"(
  Launch overhead
  verdict   partly overhead bound: the GPU waited for kernel launches 44.8% of its 3.99 ms window
            and was busy 55.2%
  launches  200 kernel launches, 50,365/s; cost mean 5.5 us, p50 5.02 us, p95 5.98 us
  queue     launch call to GPU start: mean 3.5 us, p50 3 us, p95 4 us
  graphs    estimate: at 1 us per kernel node instead of 5.5 us per launch, CUDA graphs
            would remove 796 us of starved idle time (20.0% of the GPU window)
  devices   GPU      window   busy  starved      gaps synchronised      gaps    other      gaps
            0       3.99 ms  55.2%    44.8%       199         0.0%         0     0.0%         0
  streams   GPU    stream  handle                 busy    kernels   copies
            0           7  0x5599aa00            55.2%        200        0
  bound     1 of 2 signatures launch-bound: 100 launches, 200 us of GPU time
  kernels   top 2 of 2 by launch excess, then GPU time; * launch-bound
    grid/block  calls  gpu tot   mean    p50    p95  launch     kernel
    1024/128      100   200 us   2 us   2 us   2 us    5 us  *
        vectorized_elementwise_kernel<4, AddFunctor<float>>
    64/256        100     2 ms  20 us  20 us  20 us    6 us     gemm
)";
  EXPECT_EQ(text, expected) << text;
}

TEST(LaunchOverheadSection, JsonCarriesTheNumbers) {
  const nlohmann::json j = LaunchOverheadJson(SmallTrace());
  const auto& v = j.at("verdict");
  EXPECT_EQ(v.at("verdict"), "partly_overhead_bound");
  EXPECT_EQ(v.at("rule"), "partly_starved");
  EXPECT_EQ(v.at("window_ns"), 3986 * kUs);
  EXPECT_EQ(v.at("busy_ns"), 2200 * kUs);
  EXPECT_EQ(v.at("starved_ns"), 1786 * kUs);
  EXPECT_EQ(v.at("launch_bound_gpu_ns"), 200 * kUs);
  EXPECT_NEAR(v.at("starved_fraction").get<double>(), 1786.0 / 3986.0, 1e-12);
  EXPECT_EQ(j.at("launches").at("kernel_launches"), 200);
  EXPECT_EQ(j.at("launches").at("launch_cost").at("mean_ns"), 5500.0);
  EXPECT_EQ(j.at("gpu").at("gpu_times"), true);
  ASSERT_EQ(j.at("devices").size(), 1u);
  EXPECT_EQ(j.at("devices")[0].at("gaps").at("starved").at("count"), 199);
  EXPECT_EQ(j.at("devices")[0].at("gaps").at("synchronised").at("ns"), 0);
  ASSERT_EQ(j.at("signatures").size(), 2u);
  const auto& add = j.at("signatures")[0];
  EXPECT_EQ(add.at("launch_bound"), true);
  EXPECT_EQ(add.at("overhead_reason"), "shorter_than_launch");
  EXPECT_EQ(add.at("grid"), nlohmann::json({1024, 1, 1}));
  EXPECT_EQ(add.at("gpu").at("p95_ns"), 2000.0);
  EXPECT_EQ(add.at("launch_excess_ns"), 300.0 * kUs);  // 100 x (5 - 2) us
  EXPECT_NE(add.at("name").get<std::string>().find("vectorized_elementwise_kernel"),
            std::string::npos);
  EXPECT_EQ(j.at("graphs_estimate").at("estimate"), true);
  EXPECT_EQ(j.at("graphs_estimate").at("saved_ns"), 796.0 * kUs);
  EXPECT_EQ(LaunchOverheadJson(SmallTrace(), 1).at("signatures").size(), 1u);
  EXPECT_EQ(LaunchOverheadJson(SmallTrace(), 1).at("signatures_total"), 2);
}

TEST(LaunchOverheadSection, WithoutGpuRecordsSaysSoPlainly) {
  Feed f;
  f.Signature(1, "_Z4tinyPf", 1, 32);
  for (uint64_t i = 0; i < 10; ++i) f.Launch(i + 1, 1, kT0 + 10 * kUs * i, 4 * kUs);
  const LaunchOverheadReport r = f.Finish();
  std::ostringstream out;
  WriteLaunchOverheadText(r, {}, out);
  const std::string text = out.str();
  ExpectFitsHundredColumns(text);
  EXPECT_NE(text.find("verdict   cannot tell: the trace has no GPU times"), std::string::npos)
      << text;
  EXPECT_NE(text.find("10 kernel launches, 106,383/s; cost mean 4 us"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU times are missing"), std::string::npos) << text;
  EXPECT_EQ(text.find("graphs    estimate"), std::string::npos) << text;
  const nlohmann::json j = LaunchOverheadJson(r);
  EXPECT_EQ(j.at("verdict").at("verdict"), "unknown");
  EXPECT_EQ(j.at("gpu").at("gpu_times"), false);
  EXPECT_TRUE(j.at("graphs_estimate").is_null());
  EXPECT_TRUE(j.at("signatures")[0].at("gpu").is_null());
}

TEST(LaunchOverheadSection, NothingForATraceWithoutLaunches) {
  std::ostringstream out;
  WriteLaunchOverheadText(LaunchOverheadReport{}, {}, out);
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace flopspy::tools
