// cuBLAS, cuBLASLt and cuDNN rows through every output of flopspy-report: calls that differ only in
// C's data type or in the scale type are rows of their own with their own types,
// cuBLASLt pointer attributes are in the JSON, and bytes and epilogue FLOPs are columns of the
// HTML and CSV tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dnn_tensors.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/dnn_formulas.h"
#include "html_check.h"
#include "subprocess.h"
#include "test_programs.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

using analyzers::cuda_type::kR16BF;
using analyzers::cuda_type::kR16F;
using analyzers::cuda_type::kR32F;
using nlohmann::json;

// A GemmEx of 256 x 512 x 128 from FP16 A and B into C and D of type `c`, as the hook and the
// flusher write it: 2mnk FLOPs, A and B read, D written (beta = 0).
trace::LibraryCallRecord GemmEx(uint8_t c_type, uint8_t scale_type) {
  trace::LibraryCallRecord r{};
  r.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kGemm);
  r.enter_ns = 1'000'000;
  r.exit_ns = 1'010'000;
  r.m = 256, r.n = 512, r.k = 128;
  r.batch = 1;
  r.lda = 256, r.ldb = 128, r.ldc = r.ldd = 256;
  r.type_a = r.type_b = kR16F;
  r.type_c = r.type_d = c_type;
  r.compute_type = analyzers::compute_type::k32F;
  r.scale_type = scale_type;
  r.side = r.uplo = r.diag = analyzers::kNotApplicable;
  r.epilogue = analyzers::lt_epilogue::kDefault;
  r.flags = trace::kLibBetaKnown;
  r.name = 1;
  r.flops = 2.0 * 256 * 512 * 128;
  r.bytes = 2.0 * (256 * 128 + 128 * 512) + analyzers::DataTypeBytes(c_type) * 256 * 512;
  r.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
  return r;
}

// A cuDNN forward convolution as its hook writes it: FP32 8x64x56x56 by 128 3x3 filters.
trace::LibraryCallRecord Convolution() {
  trace::LibraryCallRecord r = GemmEx(kR32F, kR32F);
  analyzers::DnnConvolution conv;
  const auto tensor = [](std::initializer_list<int64_t> dims) {
    return PackedDnnTensor(kR32F, dims);
  };
  conv.x = tensor({8, 64, 56, 56});
  conv.w = tensor({128, 64, 3, 3});
  conv.y = tensor({8, 128, 56, 56});
  conv.beta_known = true;
  analyzers::DescribeConvolution(conv, r);
  r.scale_type = analyzers::kNotApplicable;
  r.name = 3;
  return r;
}

class LibraryCallsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    TraceBuilder b;
    b.String(1, "cublasGemmEx").String(2, "cublasLtMatmul").String(3, "cudnnConvolutionForward");
    b.Chunk(trace::ChunkSource::kThread, 7);
    b.Add(GemmEx(kR32F, kR32F)).Add(GemmEx(kR16BF, kR32F)).Add(GemmEx(kR16BF, kR32F));
    // The same call with BF16 C, but a different scale type: a row of its own too.
    b.Add(GemmEx(kR16BF, analyzers::cuda_type::kR64F));
    // cuBLASLt with a bias epilogue and its bias pointer, and FP8-style scale pointers.
    trace::LibraryCallRecord lt = GemmEx(kR16BF, kR32F);
    lt.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kLtMatmul);
    lt.name = 2;
    lt.epilogue = analyzers::lt_epilogue::kBias;
    lt.flags |= trace::kLibBiasPresent | trace::kLibScalePointers;
    lt.epilogue_flops = 256.0 * 512;  // one add per element of D
    b.Add(lt);
    b.Add(Convolution());
    const std::string path = dir_->path() + "/lib.fspy";
    b.WriteTo(path);
    const auto r = RunChild({kReport, path, "--json", "--html", dir_->path() + "/r.html", "--csv",
                             dir_->path() + "/csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    model_ = new json(json::parse(r.out));
  }
  static void TearDownTestSuite() {
    delete model_;
    delete dir_;
  }
  static const json& Calls() { return (*model_)["traces"][0]["library_calls"]; }
  static const json* Find(const std::string& routine, const std::string& c,
                          const std::string& scale) {
    for (const json& call : Calls()) {
      if (call["routine"] == routine && call["types"][2] == c && call["scale_type"] == scale)
        return &call;
    }
    return nullptr;
  }

  static TempDir* dir_;
  static json* model_;
};
TempDir* LibraryCallsTest::dir_ = nullptr;
json* LibraryCallsTest::model_ = nullptr;

TEST_F(LibraryCallsTest, CallsThatDifferInCOrScaleTypeAreRowsWithTheirOwnTypes) {
  ASSERT_EQ(Calls().size(), 5u) << Calls().dump(1);  // four cuBLAS rows, one cuDNN row
  const json* f32 = Find("cublasGemmEx", "R_32F", "R_32F");
  const json* bf16 = Find("cublasGemmEx", "R_16BF", "R_32F");
  const json* f64_scale = Find("cublasGemmEx", "R_16BF", "R_64F");
  ASSERT_NE(f32, nullptr);
  ASSERT_NE(bf16, nullptr);
  ASSERT_NE(f64_scale, nullptr);
  EXPECT_EQ((*f32)["calls"], 1);
  EXPECT_EQ((*bf16)["calls"], 2);
  EXPECT_EQ((*f64_scale)["calls"], 1);
  EXPECT_EQ((*bf16)["types"], json({"R_16F", "R_16F", "R_16BF", "R_16BF"}));
  // Bytes follow C's type: A and B in FP16 (2 x 98,304 B) and D in FP32 (524,288 B) or in
  // BF16 (262,144 B), per call.
  EXPECT_DOUBLE_EQ((*f32)["bytes"].get<double>(), 196608 + 524288);
  EXPECT_DOUBLE_EQ((*bf16)["bytes"].get<double>(), 2 * (196608 + 262144));
  EXPECT_TRUE((*f32)["lt_attributes"].is_null());  // not a cuBLASLt call
}

TEST_F(LibraryCallsTest, LtPointerAttributesAreInTheJson) {
  const json* lt = Find("cublasLtMatmul", "R_16BF", "R_32F");
  ASSERT_NE(lt, nullptr);
  const json& a = (*lt)["lt_attributes"];
  ASSERT_TRUE(a.is_object()) << lt->dump(1);
  EXPECT_EQ(a["bias_pointer"], true);
  EXPECT_EQ(a["scale_pointers"], true);
  EXPECT_EQ(a["aux_pointer"], false);
  EXPECT_EQ(a["amax_pointer"], false);
  EXPECT_EQ((*lt)["epilogue"], "BIAS");
  EXPECT_DOUBLE_EQ((*lt)["epilogue_flops"].get<double>(), 256.0 * 512);
}

TEST_F(LibraryCallsTest, HtmlTableHasBytesAndEpilogueFlops) {
  const HtmlDocument doc = ParseHtml(ReadAll(dir_->path() + "/r.html"));
  for (const auto& p : doc.problems) ADD_FAILURE() << p;
  const HtmlNode* table = ById(*doc.root, "t0-library");
  ASSERT_NE(table, nullptr);
  std::vector<std::string> headers;
  for (const HtmlNode* th : ByTag(*table, "th")) headers.push_back(th->Text());
  const auto column = [&](const std::string& name) {
    const auto it = std::find(headers.begin(), headers.end(), name);
    EXPECT_NE(it, headers.end()) << name;
    return static_cast<size_t>(it - headers.begin());
  };
  const size_t routine = column("routine"), bytes = column("bytes");
  const size_t epilogue = column("epilogue FLOPs"), types = column("types");
  size_t rows = 0;
  for (const HtmlNode* tr : ByTag(*table, "tr")) {
    const auto cells = ByTag(*tr, "td");
    if (cells.empty()) continue;
    ++rows;
    if (cells[routine]->Text() == "cublasLtMatmul") {
      EXPECT_EQ(cells[epilogue]->Text(), "131 k");  // 256 x 512 = 131,072
      EXPECT_EQ(cells[bytes]->Text(), "459 kB");    // 196,608 + 262,144
      EXPECT_NE(tr->Text().find("R_16BF"), std::string::npos);
    } else {
      EXPECT_EQ(cells[epilogue]->Text(), "-");
    }
    EXPECT_FALSE(cells[types]->Text().empty());
  }
  EXPECT_EQ(rows, 5u);
}

// A cuDNN row is worded as the text report words it, in the JSON and in the HTML table.
TEST_F(LibraryCallsTest, ConvolutionRowShowsItsImagesAndFilter) {
  const std::string shape = "N8 C64 56x56 -> K128 56x56, filter 3x3";
  bool found = false;
  for (const json& c : Calls()) {
    if (c["routine"] != "cudnnConvolutionForward") continue;
    found = true;
    EXPECT_EQ(c["family"], "conv_forward");
    EXPECT_EQ(c["shape_text"], shape);
    EXPECT_DOUBLE_EQ(c["flops"].get<double>(), 3699376128.0);  // 2 x 8 x 128 x 64 x 9 x 3136
  }
  EXPECT_TRUE(found);
  const HtmlDocument doc = ParseHtml(ReadAll(dir_->path() + "/r.html"));
  const HtmlNode* table = ById(*doc.root, "t0-library");
  ASSERT_NE(table, nullptr);
  EXPECT_NE(table->Text().find(shape), std::string::npos) << table->Text();
}

}  // namespace
}  // namespace flopspy::testing
