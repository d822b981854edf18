// Grouped GEMMs whose groups differ in every output: exact FLOPs and bytes (no "lower bound"),
// their groups in words, a damaged groups record refused in the warnings while the call's figures
// stand, a format-1 call said to be described by its first group only, and an unknown cuBLAS
// routine shown as unknown.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/trace/crc32c.h"
#include "flopspy/trace/library_groups.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "report/trace_report.h"
#include "subprocess.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

using testing::TraceBuilder;

constexpr uint32_t kThread = 7;

trace::LibraryGroupShape Group(int64_t m, int64_t n, int64_t k, int64_t count) {
  trace::LibraryGroupShape g{};
  g.m = m, g.n = n, g.k = k, g.count = count;
  g.lda = m, g.ldb = k, g.ldc = m;
  return g;
}

// A call of `entry` as a hook fills it, named by string `name`.
trace::LibraryCallRecord Call(const char* entry, uint32_t name, uint64_t correlation) {
  trace::LibraryCallRecord c{};
  c.type_a = c.type_b = c.type_c = c.type_d = analyzers::kNotApplicable;
  c.compute_type = c.scale_type = analyzers::kNotApplicable;
  c.side = c.uplo = c.diag = analyzers::kNotApplicable;
  if (const analyzers::BlasEntryPoint* e = analyzers::FindBlasEntryPoint(entry)) {
    analyzers::ApplyEntryPointDefaults(*e, c);
  }
  c.trans_a = c.trans_b = 0;
  c.epilogue = analyzers::lt_epilogue::kDefault;
  c.batch = 1;
  c.flags = trace::kLibBetaKnown;
  c.name = name;
  c.correlation = correlation;
  c.enter_ns = 1'000'000 + correlation * 1000;
  c.exit_ns = c.enter_ns + 500;
  return c;
}

// SgemmGroupedBatched with groups (64, 32, 16, 3) and (8, 8, 8, 1), beta zero, figures as the
// flusher writes them: 197632 FLOPs, 43872 bytes (blas_formulas_test: by hand).
trace::LibraryCallRecord TwoGroupCall(uint64_t correlation,
                                      std::span<const trace::LibraryGroupShape> groups) {
  trace::LibraryCallRecord c = Call("cublasSgemmGroupedBatched", 1, correlation);
  c.m = 64, c.n = 32, c.k = 16, c.batch = 2;
  c.flags |= trace::kLibGrouped | trace::kLibGroupsFollow | trace::kLibBatchedPointers;
  analyzers::FillBlasFigures(c, groups, trace::LibraryGroupsCut{});
  return c;
}

class GroupedGemmReportTest : public ::testing::Test {
 protected:
  std::string Write(TraceBuilder& b, int format_version = trace::kFormatVersion) {
    std::vector<uint8_t> bytes = b.Bytes();
    trace::FileHeader h;
    std::memcpy(&h, bytes.data(), sizeof h);
    h.format_version = static_cast<uint16_t>(format_version);
    h.header_crc = trace::Crc32c(&h, offsetof(trace::FileHeader, header_crc));
    std::memcpy(bytes.data(), &h, sizeof h);
    const std::string path = dir_.path() + "/grouped" + std::to_string(files_++) + ".fspy";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  static std::string Text(const TraceReport& t) {
    std::ostringstream out;
    WriteTextReport({t}, {}, out);
    return out.str();
  }
  static const nlohmann::json* Row(const nlohmann::json& j, const std::string& routine) {
    for (const auto& row : j["traces"][0]["library_calls"]) {
      if (row["routine"] == routine) return &row;
    }
    return nullptr;
  }
  testing::TempDir dir_;
  int files_ = 0;
};

TEST_F(GroupedGemmReportTest, ExactFiguresAndGroupsInTextAndJson) {
  const trace::LibraryGroupShape groups[] = {Group(64, 32, 16, 3), Group(8, 8, 8, 1)};
  TraceBuilder b;
  b.String(1, "cublasSgemmGroupedBatched").String(2, "cublasSomethingNew");
  b.Chunk(trace::ChunkSource::kThread, kThread);
  b.GroupedCall(TwoGroupCall(1, groups), groups, {});
  b.GroupedCall(TwoGroupCall(2, groups), groups, {});
  // A routine this flopspy does not know: recorded, never given figures.
  trace::LibraryCallRecord unknown = Call("cublasSgemm_v2", 2, 3);
  unknown.routine = 0;
  unknown.flags |= trace::kLibUnknownRoutine;
  analyzers::FillBlasFigures(unknown);
  b.Add(unknown);
  const TraceReport t = AnalyzeTrace(Write(b));
  ASSERT_TRUE(t.usable());
  EXPECT_TRUE(t.summary.warnings.empty());

  ASSERT_EQ(t.run.libraries.size(), 2u);
  const analyzers::LibraryGroup& g = t.run.libraries[0].routine == "cublasSgemmGroupedBatched"
                                         ? t.run.libraries[0]
                                         : t.run.libraries[1];
  EXPECT_EQ(g.calls, 2u);
  EXPECT_EQ(g.source, trace::FigureSource::kAnalytic);
  EXPECT_DOUBLE_EQ(g.flops, 2 * 197632.0);
  EXPECT_DOUBLE_EQ(g.bytes, 2 * 43872.0);
  EXPECT_TRUE(g.groups_known);
  EXPECT_FALSE(g.groups_vary);
  ASSERT_EQ(g.groups.size(), 2u);

  const std::string text = Text(t);
  EXPECT_NE(text.find("cublasSgemmGroupedBatched 2 groups, 4 problems: 64x32x16 b3, 8x8x8 R_32F"),
            std::string::npos)
      << text;
  // 2 * 197632 FLOPs and 2 * 43872 bytes, analytic; the unknown routine has no figures ("?").
  EXPECT_NE(text.find("      2    -     -  395 k        0   87.7 k     4.5"), std::string::npos)
      << text;
  EXPECT_NE(text.find("      1    -     -      -         -       -       -"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("lower bound"), std::string::npos) << text;
  EXPECT_EQ(text.find("first group"), std::string::npos) << text;
  EXPECT_NE(text.find("cublasSomethingNew"), std::string::npos) << text;

  const nlohmann::json j = BuildJsonReport({t});
  const nlohmann::json* row = Row(j, "cublasSgemmGroupedBatched");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ((*row)["source"], "analytic");
  EXPECT_DOUBLE_EQ((*row)["flops"].get<double>(), 2 * 197632.0);
  EXPECT_DOUBLE_EQ((*row)["bytes"].get<double>(), 2 * 43872.0);
  const nlohmann::json& gj = (*row)["groups"];
  EXPECT_EQ(gj["count"], 2);
  EXPECT_EQ(gj["known"], true);
  EXPECT_EQ(gj["problems"], 4);
  EXPECT_EQ(gj["vary"], false);
  ASSERT_EQ(gj["listed"].size(), 2u);
  EXPECT_EQ(gj["listed"][0]["m"], 64);
  EXPECT_EQ(gj["listed"][0]["count"], 3);
  EXPECT_EQ(gj["listed"][1]["beta"], "zero");
  EXPECT_EQ(gj["unlisted"]["groups"], 0);
  EXPECT_EQ(gj["summary"], "2 groups, 4 problems: 64x32x16 b3, 8x8x8");

  const nlohmann::json* other = Row(j, "cublasSomethingNew");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ((*other)["source"], "unknown");
  EXPECT_EQ((*other)["flops"], 0);
  EXPECT_TRUE((*other)["groups"].is_null());
}

TEST_F(GroupedGemmReportTest, CallsWithOtherGroupsShareARowThatSaysSo) {
  const trace::LibraryGroupShape first[] = {Group(64, 32, 16, 3), Group(8, 8, 8, 1)};
  const trace::LibraryGroupShape second[] = {Group(64, 32, 16, 1), Group(8, 8, 8, 5)};
  TraceBuilder b;
  b.String(1, "cublasSgemmGroupedBatched");
  b.Chunk(trace::ChunkSource::kThread, kThread);
  b.GroupedCall(TwoGroupCall(1, first), first, {});
  b.GroupedCall(TwoGroupCall(2, second), second, {});
  const TraceReport t = AnalyzeTrace(Write(b));
  ASSERT_EQ(t.run.libraries.size(), 1u);
  const analyzers::LibraryGroup& g = t.run.libraries[0];
  EXPECT_TRUE(g.groups_vary);
  // The second call: 2*64*32*16 + 5*2*8*8*8 = 65536 + 5120 = 70656 FLOPs.
  EXPECT_DOUBLE_EQ(g.flops, 197632.0 + 70656.0);
  EXPECT_NE(Text(t).find("64x32x16 b3, 8x8x8 (first call; others differ)"), std::string::npos)
      << Text(t);
}

// The groups record of the first call is cut short: a warning says where, the call keeps the
// exact figures written with it, and the next call's groups are read.
TEST_F(GroupedGemmReportTest, CutShortGroupsRecordIsAWarningAndTheRestReads) {
  const trace::LibraryGroupShape groups[] = {Group(64, 32, 16, 3), Group(8, 8, 8, 1)};
  TraceBuilder b;
  b.String(1, "cublasSgemmGroupedBatched");
  b.Chunk(trace::ChunkSource::kThread, kThread);
  b.Add(TwoGroupCall(1, groups));
  trace::LibraryGroupsRecord cut_short = trace::MakeLibraryGroupsRecords(groups, {})[0];
  cut_short.h.size8 = 136 / 8;  // header, cut and one group of the two
  b.AddRaw(&cut_short, 136);
  b.GroupedCall(TwoGroupCall(2, groups), groups, {});
  const TraceReport t = AnalyzeTrace(Write(b));
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk);
  ASSERT_EQ(t.summary.warnings.size(), 1u);
  const std::string& w = t.summary.warnings[0].message;
  // The record follows the 192-byte call: their offsets are 192 apart.
  const size_t at = w.find("damaged trace: the LibraryGroups record at byte ");
  ASSERT_NE(at, std::string::npos) << w;
  const uint64_t groups_at = std::stoull(w.substr(at + 48));
  EXPECT_NE(w.find(" is cut short (136 of 576 bytes); the groups of the grouped call at byte " +
                   std::to_string(groups_at - sizeof(trace::LibraryCallRecord)) +
                   " are left out (its FLOPs and bytes, written with it, stand)"),
            std::string::npos)
      << w;
  ASSERT_EQ(t.run.libraries.size(), 1u);
  EXPECT_EQ(t.run.libraries[0].calls, 2u);
  EXPECT_DOUBLE_EQ(t.run.libraries[0].flops, 2 * 197632.0);
  EXPECT_TRUE(t.run.libraries[0].groups_known);  // from the second call
  EXPECT_NE(Text(t).find("is cut short (136 of 576 bytes)"), std::string::npos);
  const nlohmann::json j = BuildJsonReport({t});
  EXPECT_NE(j["traces"][0]["warnings"][0]["message"].get<std::string>().find("cut short"),
            std::string::npos);
}

// A format-1 trace: the grouped call holds its first group and the group count only, so its
// figures are unknown, and the report says what the shape shown is.
TEST_F(GroupedGemmReportTest, FormatOneGroupedCallIsDescribedByItsFirstGroup) {
  TraceBuilder b;
  b.String(1, "cublasSgemmGroupedBatched");
  trace::LibraryCallRecord c = Call("cublasSgemmGroupedBatched", 1, 1);
  c.m = c.n = c.k = 8;
  c.batch = 3;
  c.flags |= trace::kLibGrouped | trace::kLibBatchedPointers;
  analyzers::FillBlasFigures(c);
  b.Chunk(trace::ChunkSource::kThread, kThread).Add(c);
  const TraceReport t = AnalyzeTrace(Write(b, 1));
  ASSERT_TRUE(t.usable());
  EXPECT_TRUE(t.summary.warnings.empty());
  ASSERT_EQ(t.run.libraries.size(), 1u);
  EXPECT_EQ(t.run.libraries[0].source, trace::FigureSource::kUnknown);
  EXPECT_FALSE(t.run.libraries[0].groups_known);
  EXPECT_NE(Text(t).find("cublasSgemmGroupedBatched 3 groups, the first 8x8x8"), std::string::npos)
      << Text(t);
  const nlohmann::json j = BuildJsonReport({t});
  const nlohmann::json& gj = j["traces"][0]["library_calls"][0]["groups"];
  EXPECT_EQ(gj["known"], false);
  EXPECT_TRUE(gj["problems"].is_null());
  EXPECT_EQ(j["traces"][0]["library_calls"][0]["source"], "unknown");
}

}  // namespace
}  // namespace flopspy::tools
