// The models added by the catalog's audit (fused dropout, the reductions MaxOps, MaxNanFunctor,
// NanSumOps and a double mean, flopspy-demo's kernels) and ParamBytesWanted, which tells the
// interposer how many leading parameter bytes each model reads. Figures are worked out by hand
// in the comments. Names come from tests/data/kernel_names/corpus.tsv (source in brackets;
// C01 names were constructed from the ATen sources, see SOURCES.md).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;

class Bytes {
 public:
  template <class T>
  Bytes& At(size_t offset, T value) {
    if (bytes_.size() < offset + sizeof(T)) bytes_.resize(offset + sizeof(T), 0);
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
    return *this;
  }
  Bytes& Size(size_t n) {
    bytes_.resize(n, 0);
    return *this;
  }
  LaunchFacts Launch(uint32_t grid_x = 1) const {
    LaunchFacts l;
    l.params = bytes_;
    l.grid = {grid_x, 1, 1};
    l.block = {256, 1, 1};
    return l;
  }
  size_t size() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

// --- Reductions ---------------------------------------------------------------------------------

// [S28] max(dim): MaxOps<float> keeps values with their indices, arg_t = pair<float, int64_t>
// (16 bytes, 8-aligned). ReduceOp = {MaxOps ops (1 byte); pair ident @8; ReduceConfig @24}.
constexpr char kMaxOps[] =
    "at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MaxOps<float>, "
    "unsigned int, float, 4, 4>>";
// [C01] amax / max(): func_wrapper_t<float, MaxNanFunctor<float>>, arg_t = float.
constexpr char kMaxNan[] =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<"
    "float, at::native::MaxNanFunctor<float> >, unsigned int, float, 4, 4> >(at::native::ReduceOp<"
    "float, at::native::func_wrapper_t<float, at::native::MaxNanFunctor<float> >, unsigned int, "
    "float, 4, 4>)";
// [C01] nansum: NanSumOps<float, float>, arg_t = float.
constexpr char kNanSum[] =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::NanSumOps<float, "
    "float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::NanSumOps<float, "
    "float>, unsigned int, float, 4, 4>)";
// [C01] mean of doubles: MeanOps<double...> holds a double factor; ident @8; ReduceConfig @16.
constexpr char kMeanDouble[] =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<double, "
    "at::native::MeanOps<double, "
    "double, double, double>, unsigned int, double, 4, 4> >(at::native::ReduceOp<double, "
    "at::native::MeanOps<double, double, double, double>, unsigned int, double, 4, 4>)";

TEST(KernelCatalogReduceLayouts, MaxWithIndicesReadsConfigAt24) {
  const KernelClass kc = ClassifyKernel(kMaxOps);
  EXPECT_EQ(kc.functor, "max");
  EXPECT_EQ(kc.reduce_config_offset, 24);
  EXPECT_EQ(kc.reduce_arg_bytes, 16);
  EXPECT_EQ(ParamBytesWanted(kc), 36);
  // 1024 outputs of 512 inputs each: bytes 512 x 1024 x 4 read + 1024 x 4 written, 0 FLOPs.
  const Bytes b = Bytes().At<int32_t>(24, 16).At<int32_t>(28, 512).At<int32_t>(32, 1024).Size(400);
  const KernelEstimate e = EstimateKernel(kc, b.Launch());
  EXPECT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_EQ(e.elements, 512 * 1024);
  EXPECT_DOUBLE_EQ(e.bytes, 512.0 * 1024 * 4 + 1024 * 4);
  EXPECT_EQ(e.flops, 0);
  // The layout the catalog used before (arg_t = float, config @8) fails the size check there.
  const Bytes wrong = Bytes().At<int32_t>(8, 4).At<int32_t>(12, 512).At<int32_t>(16, 1024).Size(36);
  EXPECT_EQ(EstimateKernel(kc, wrong.Launch()).source, FigureSource::kUnknown);
}

TEST(KernelCatalogReduceLayouts, MaxNanFunctorAndNanSum) {
  for (const char* name : {kMaxNan, kNanSum}) {
    const KernelClass kc = ClassifyKernel(name);
    EXPECT_EQ(kc.acc_type, DataType::kFloat32) << name;
    EXPECT_EQ(kc.reduce_config_offset, 8) << name;  // ops (1 byte), float ident @4, config @8
    EXPECT_EQ(ParamBytesWanted(kc), 20) << name;
    const Bytes b = Bytes().At<int32_t>(8, 4).At<int32_t>(12, 1000).At<int32_t>(16, 10);
    const KernelEstimate e = EstimateKernel(kc, b.Launch());
    EXPECT_EQ(e.source, FigureSource::kCatalog) << e.reason;
    EXPECT_DOUBLE_EQ(e.bytes, 10000.0 * 4 + 10 * 4);
  }
  EXPECT_EQ(ClassifyKernel(kMaxNan).functor, "max");
  EXPECT_EQ(ClassifyKernel(kNanSum).functor, "nansum");
  EXPECT_EQ(ClassifyKernel(kNanSum).flops_per_element, 1);
}

TEST(KernelCatalogReduceLayouts, DoubleMeanNeedsTwentyEightBytes) {
  const KernelClass kc = ClassifyKernel(kMeanDouble);
  EXPECT_EQ(kc.reduce_config_offset, 16);
  EXPECT_EQ(ParamBytesWanted(kc), 28);
  const Bytes b = Bytes()
                      .At<double>(0, 1.0 / 4096)
                      .At<int32_t>(16, 8)
                      .At<int32_t>(20, 4096)
                      .At<int32_t>(24, 16);
  // 16 x 4096 doubles in, 16 out: 65536 adds + 16 scalings.
  const KernelEstimate e = EstimateKernel(kc, b.Launch());
  EXPECT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 65536 + 16);
  EXPECT_DOUBLE_EQ(e.bytes, 65536.0 * 8 + 16 * 8);
  EXPECT_EQ(e.path, ComputePath::kFp64);
  // The default 20 bytes stop short of num_outputs: unknown, and the reason says how many.
  LaunchFacts cut = b.Launch();
  cut.params = cut.params.first(20);
  const KernelEstimate u = EstimateKernel(kc, cut);
  EXPECT_EQ(u.source, FigureSource::kUnknown);
  EXPECT_NE(u.reason.find("needs 28 bytes"), std::string::npos) << u.reason;
}

// --- Fused dropout
// --------------------------------------------------------------------------------

// [S02] PyTorch 1.x spelling; the mask is TensorInfo<unsigned char, unsigned int>.
constexpr char kDropout[] =
    "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, "
    "1, 4>(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float, "
    "unsigned int>, at::cuda::detail::TensorInfo<unsigned char, unsigned int>, unsigned int, "
    "float, std::pair<unsigned long, unsigned long>)";

TEST(KernelCatalogDropout, ElementsFromTheInputTensorInfo) {
  const KernelClass kc = ClassifyKernel(kDropout);
  EXPECT_EQ(kc.functor, "dropout");
  EXPECT_EQ(kc.element_bytes, 1);  // the mask
  EXPECT_EQ(ParamBytesWanted(kc), 212);
  // TensorInfo {float* data @0; sizes[25] @8; strides[25] @108; int dims @208}: 64 x 4096.
  const Bytes b = Bytes()
                      .At<uint64_t>(0, 0x7f0000000000)
                      .At<uint32_t>(8, 64)
                      .At<uint32_t>(12, 4096)
                      .At<int32_t>(208, 2)
                      .Size(212);
  const KernelEstimate e = EstimateKernel(kc, b.Launch(80));
  EXPECT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_EQ(e.elements, 262144);
  EXPECT_DOUBLE_EQ(e.flops, 262144.0 * 2);            // x * mask * scale
  EXPECT_DOUBLE_EQ(e.bytes, 262144.0 * (4 + 4 + 1));  // input, output, mask
  EXPECT_EQ(e.confidence, Confidence::kMedium);
  EXPECT_EQ(e.shape_key, "elements=262144");
  // One byte short of dims: unknown.
  LaunchFacts cut = b.Launch(80);
  cut.params = cut.params.first(211);
  EXPECT_EQ(EstimateKernel(kc, cut).source, FigureSource::kUnknown);
}

// --- flopspy-demo
// ---------------------------------------------------------------------------------

// [S27] demo/src/gpu_kernels.cuh, the seed workload at 8192 x 8192.
constexpr int32_t kModelElements = 8192 * 8192;

LaunchFacts DemoLaunch(int32_t n, uint32_t grid_x = 4224) {
  static Bytes b;
  b = Bytes().At<int32_t>(0, n).At<float>(4, 2.0f).At<uint64_t>(8, 0x7f00).At<uint64_t>(16, 0x7f10);
  return b.Launch(grid_x);
}

TEST(KernelCatalogDemo, UnaryOpsMoveEightBytesPerElement) {
  struct Op {
    const char* name;
    const char* functor;
    double flops, special;
  };
  for (const Op& op :
       {Op{"SinOp", "sin", 1, 1}, Op{"SqrtOp", "sqrt", 1, 1}, Op{"Log10Op", "log10", 1, 1},
        Op{"PowOp", "pow", 1, 1}, Op{"SigmoidOp", "sigmoid", 3, 1}}) {
    const std::string name = std::string("void flopspy_demo::unary_kernel<flopspy_demo::") +
                             op.name + ">(int, flopspy_demo::" + op.name +
                             ", float const*, float*)";
    SCOPED_TRACE(name);
    const KernelEstimate e = EstimateKernel(name, DemoLaunch(kModelElements));
    EXPECT_EQ(e.family, KernelFamily::kDemo);
    EXPECT_EQ(e.functor, op.functor);
    EXPECT_EQ(e.source, FigureSource::kCatalog) << e.reason;
    EXPECT_DOUBLE_EQ(e.bytes, 8.0 * kModelElements);  // 536,870,912: one read, one write of fp32
    EXPECT_DOUBLE_EQ(e.flops, op.flops * kModelElements);
    EXPECT_DOUBLE_EQ(e.special_ops, op.special * kModelElements);
    EXPECT_EQ(e.path, ComputePath::kFp32);
  }
}

TEST(KernelCatalogDemo, MulFillAndSum) {
  const KernelEstimate mul = EstimateKernel(
      "_ZN12flopspy_demo13binary_kernelINS_5MulOpEEEviT_PKfS4_Pf", DemoLaunch(kModelElements));
  EXPECT_EQ(mul.functor, "mul");
  EXPECT_EQ(mul.operands, 3);
  EXPECT_DOUBLE_EQ(mul.bytes, 12.0 * kModelElements);
  EXPECT_DOUBLE_EQ(mul.flops, kModelElements);

  const KernelEstimate fill =
      EstimateKernel("flopspy_demo::fill_kernel(int, float, float*)", DemoLaunch(kModelElements));
  EXPECT_EQ(fill.functor, "fill");
  EXPECT_EQ(fill.source, FigureSource::kCatalog) << fill.reason;
  EXPECT_DOUBLE_EQ(fill.bytes, 4.0 * kModelElements);
  EXPECT_EQ(fill.flops, 0);

  // sum_kernel<256>: n reads and adds, one partial written per block (4224 blocks).
  const KernelEstimate sum =
      EstimateKernel("void flopspy_demo::sum_kernel<256>(int, float const*, float*)",
                     DemoLaunch(kModelElements, 4224));
  EXPECT_EQ(sum.functor, "sum");
  EXPECT_DOUBLE_EQ(sum.flops, kModelElements);
  EXPECT_DOUBLE_EQ(sum.bytes, 4.0 * kModelElements + 4.0 * 4224);
  EXPECT_EQ(ParamBytesWanted("void flopspy_demo::sum_kernel<256>(int, float const*, float*)"), 4);
}

TEST(KernelCatalogDemo, OtherProgramsKernelsStayUnknown) {
  // A kernel that merely looks like the demo's, in another namespace, is not modelled.
  EXPECT_EQ(ClassifyKernel("void mylib::unary_kernel<mylib::SinOp>(int, mylib::SinOp, float "
                           "const*, float*)")
                .family,
            KernelFamily::kUnknown);
  const KernelClass odd = ClassifyKernel("void flopspy_demo::other_kernel(int, float*)");
  EXPECT_EQ(odd.family, KernelFamily::kDemo);
  EXPECT_EQ(odd.model, KernelModel::kNone);
  EXPECT_FALSE(odd.reason.empty());
}

// --- ParamBytesWanted
// -----------------------------------------------------------------------------

TEST(KernelCatalogParamBytes, WhatEachModelReads) {
  struct Row {
    const char* what;
    const char* name;
    int bytes;
  };
  const Row rows[] = {
      // [S01] elementwise: N only; never more than the default 20.
      {"elementwise",
       "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_"
       "add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, "
       "std::array<char*, 3ul>)",
       4},
      // [S01] float sum: ReduceConfig @8, 12 bytes.
      {"sum",
       "void at::native::reduce_kernel<256, 2, at::native::ReduceOp<float, at::native::func_"
       "wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::"
       "TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::"
       "ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, "
       "float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned "
       "int, float, 4>)",
       20},
      // [S01] softmax_warp_forward(dst*, src*, int batch, int stride, int count, ...): count @24.
      {"softmax warp",
       "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, "
       "true, false>(float*, float const*, int, int, int, bool const*, int, bool)",
       28},
      // [S01] vectorized_layer_norm_kernel(int N, float eps, X*, gamma*, beta*, mean*, ...):
      // mean @32, 8 bytes.
      {"layer norm",
       "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, "
       "float>(int, float, float const*, float const*, float const*, float*, float*, "
       "float*)",
       40},
      // [S01] indexSelectSmallIndex: the destination TensorInfo's dims end at 212.
      {"index_select",
       "void at::native::(anonymous namespace)::indexSelectSmallIndex<float, long, "
       "unsigned int, 2, 2, -2>(at::cuda::detail::TensorInfo<float, unsigned int>, "
       "at::cuda::detail::TensorInfo<float const, unsigned int>, at::cuda::detail::"
       "TensorInfo<long const, unsigned int>, int, int, unsigned int, long)",
       212},
      // [S02-style, PyTorch <= 1.9] WelfordOps<float, float, int, float, pair>: ops {bool, bool},
      // arg {float mean, m2; int n; float nf} = 16 bytes, ident @4, ReduceConfig @20.
      {"var (1.9)",
       "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
       "at::native::WelfordOps<float, float, int, float, thrust::pair<float, float> "
       ">, unsigned int, float, 2> >(at::native::ReduceOp<float, at::native::"
       "WelfordOps<float, float, int, float, thrust::pair<float, float> >, unsigned "
       "int, float, 2>)",
       32},
      // Constructed, PyTorch 2.x: ops {float correction; bool} = 8 bytes, ident @8, config @24.
      {"var",
       "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::"
       "WelfordOps<float, float, int, thrust::pair<float, float> >, unsigned int, float, 2> "
       ">(at::native::ReduceOp<float, at::native::WelfordOps<float, float, int, thrust::"
       "pair<float, float> >, unsigned int, float, 2>)",
       36},
      // Double: ops {double; bool} = 16, arg {double, double, int, double} = 32, config @48.
      {"var double",
       "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<double, at::"
       "native::WelfordOps<double, double, int, thrust::pair<double, double> >, "
       "unsigned int, double, 2> >(at::native::ReduceOp<double, at::native::"
       "WelfordOps<double, double, int, thrust::pair<double, double> >, unsigned "
       "int, double, 2>)",
       60},
      {"triton", "triton_poi_fused_add_0", 0},
      {"cuBLAS", "ampere_sgemm_128x64_nn", 0},
  };
  for (const Row& r : rows) EXPECT_EQ(ParamBytesWanted(r.name), r.bytes) << r.what;
}

}  // namespace
}  // namespace flopspy::analyzers
