// The terminal table of flopspy-report --diff: it fits 100 columns, long names keep both ends
// so that rows stay told apart, shares of the roof are one column per run, and a side without
// GPU records shows its launches and an unknown time.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "report/diff_report.h"

namespace flopspy::tools {
namespace {

using analyzers::DiffFigures;
using analyzers::DiffPresence;
using analyzers::DiffRow;

size_t Width(const std::string& line) {
  return static_cast<size_t>(
      std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

DiffFigures Figures(uint64_t count, double gpu_ns, std::optional<double> pct) {
  DiffFigures f;
  f.present = true;
  f.count = f.executions = f.launches = count;
  f.gpu_time_known = true;
  f.gpu_ns = gpu_ns;
  f.mean_ns = gpu_ns / static_cast<double>(count);
  f.flops_per_s = 2.15e12;
  f.pct_of_roof = pct;
  f.models = 1;
  return f;
}

// Two kernels whose 140-character names differ only in their last characters (the catalog's
// shape), as templated PyTorch kernels do.
std::string LongName(const std::string& shape) {
  return "at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
         "float, at::native::binary_internal::MulFunctor<float> > > [" +
         shape + "]";
}

std::string DiffText(std::vector<DiffRow> rows) {
  analyzers::RunDiff diff;
  diff.kernels = std::move(rows);
  diff.summary = "Kernel GPU time: A 2 ms, B 3 ms (+50.0%).";
  DiffRun a, b;
  a.path = "a.fspy";
  b.path = "b.fspy";
  std::ostringstream out;
  WriteDiffText(a, b, diff, out);
  return out.str();
}

TEST(DiffText, FitsOneHundredColumnsAndKeepsLongNamesApart) {
  DiffRow r1;
  r1.label = LongName("n=1000000");
  r1.a = Figures(1'234'567, 1.5e9, 53.0);
  r1.b = Figures(1'234'567, 2.25e9, 3.21);
  r1.change_ns = 0.75e9;
  r1.change_pct = 50;
  r1.mean_change_pct = 50;
  r1.rank_ns = 0.75e9;  // per call: (1.82 - 1.22 us) x 1.23 M
  DiffRow r2 = r1;
  r2.label = LongName("n=4000000");
  r2.a.pct_of_roof = 0.434;
  r2.b.pct_of_roof.reset();
  const std::string text = DiffText({r1, r2});
  std::istringstream lines(text);
  std::set<std::string> label_lines;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(Width(line), 100u) << line;
    if (line.find("vectorized_elementwise_kernel") != std::string::npos) label_lines.insert(line);
  }
  // Each long name on a line of its own, shortened: both shapes are readable.
  ASSERT_EQ(label_lines.size(), 2u) << text;
  EXPECT_NE(text.find("+750 ms  +50%"), std::string::npos) << text;
  EXPECT_NE(text.find("[n=1000000]"), std::string::npos) << text;
  EXPECT_NE(text.find("[n=4000000]"), std::string::npos) << text;
  // One share-of-roof column per run, each a percentage; no "53>3" pairs.
  EXPECT_NE(text.find("roof A  roof B"), std::string::npos) << text;
  EXPECT_NE(text.find("53%    3.2%"), std::string::npos) << text;
  EXPECT_NE(text.find("0.43%       -"), std::string::npos) << text;
  EXPECT_EQ(text.find("53>"), std::string::npos) << text;
  EXPECT_EQ(text.find(">-"), std::string::npos) << text;
  EXPECT_NE(text.find("1.23 M"), std::string::npos) << text;  // a 7-digit count, narrow
}

TEST(DiffText, SideWithoutGpuRecordsShowsLaunchesAndUnknownTime) {
  DiffRow r;
  r.label = "mul [n=1000]";
  r.a = Figures(10, 2000, std::nullopt);
  r.b.present = true;
  r.b.count = r.b.launches = 10;
  r.b.gpu_time_known = false;
  r.change_known = false;
  const std::string text = DiffText({r});
  // change ?, % ?, mean A 200 ns, mean B ?, count 10 and 10.
  EXPECT_NE(text.find("       ?  ?  200 ns       ?       10       10"), std::string::npos) << text;
  EXPECT_NE(text.find("?: GPU time unknown"), std::string::npos);
}

TEST(DiffText, GemmNamesKeepTheTileSizesThatTellThemApart) {
  const auto gemm = [](const std::string& tile) {
    return "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize" + tile +
           "_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas_with_a_longer_tail";
  };
  DiffRow r1;
  r1.label = gemm("128x256x64");
  r1.a = Figures(100, 1e6, 50.0);
  r1.b = Figures(100, 2e6, 25.0);
  r1.rank_ns = 1e6;
  DiffRow r2 = r1;
  r2.label = gemm("256x128x64");
  r2.rank_ns = 0.5e6;
  const std::string text = DiffText({r1, r2});
  EXPECT_NE(text.find("128x256x64"), std::string::npos) << text;
  EXPECT_NE(text.find("256x128x64"), std::string::npos) << text;
  EXPECT_EQ(text.find("(#"), std::string::npos) << text;  // told apart without row numbers
}

TEST(DiffText, MiddleCutKeepsBothEnds) {
  EXPECT_EQ(MiddleCut("short", 10), "short");
  EXPECT_EQ(MiddleCut("abcdefghijklmnopqrstuvwxyz", 11), "abcd...wxyz");
  EXPECT_EQ(MiddleCut("αβγδεζηθικλμ", 7), "αβ...λμ");  // characters, not bytes
}

}  // namespace
}  // namespace flopspy::tools
