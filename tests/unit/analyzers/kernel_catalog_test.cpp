// FLOP and byte figures of the catalog's models, computed by hand from packed parameter bytes.
// Kernel names are real (tests/data/kernel_names/corpus.tsv, source in brackets) unless a comment
// says a name was constructed; constructed names follow the shape of a real one.
#include "flopspy/analyzers/kernel_catalog.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;

// Packed kernel parameter bytes, written field by field at explicit offsets.
class Params {
 public:
  template <class T>
  Params& At(size_t offset, T value) {
    if (bytes_.size() < offset + sizeof(T)) bytes_.resize(offset + sizeof(T), 0);
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
    return *this;
  }
  Params& Size(size_t n) {
    bytes_.resize(n, 0);
    return *this;
  }
  LaunchFacts Launch(uint32_t grid_x = 1) const {
    LaunchFacts l;
    l.params = bytes_;
    l.grid = {grid_x, 1, 1};
    l.block = {128, 1, 1};
    return l;
  }

 private:
  std::vector<uint8_t> bytes_;
};

// (int N, functor, std::array<char*, K>): N is parameter 0, an int32 at offset 0.
LaunchFacts ElementwiseLaunch(int32_t n) {
  static Params p;  // keeps the bytes alive for the returned span
  p = Params();
  p.At<int32_t>(0, n).At<uint64_t>(8, 0x7f0000000000).At<uint64_t>(16, 0x7f0000100000);
  return p.Launch();
}

// The seed workload (jovsa/scalify flops.py): 8192 x 8192 fp32 tensors.
constexpr int32_t kElements = 8192 * 8192;  // 67,108,864 elements
constexpr double kDN = 67108864.0;

// [S06] torch.ones -> fill_.
constexpr char kFillFloat[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)";
// [S14] a * b, two fp32 tensors.
constexpr char kMulFloat[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
    "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, "
    "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> "
    ">, std::array<char*, 3ul>)";
// [S05] a * 0.5: the scalar lives in the functor, two streamed tensors.
constexpr char kMulScalarFloat[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, "
    "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, "
    "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> "
    ">, std::array<char*, 2ul>)";
// [S01] a + b.
constexpr char kAddFloat[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
// [S15] sin.
constexpr char kSinFloat[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::sin_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{"
    "lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::sin_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{"
    "lambda(float)#1}, std::array<char*, 2ul>)";
// [S17] sigmoid, mangled as nvprof printed it (PyTorch 1.9-era at::detail::Array).
constexpr char kSigmoidMangled[] =
    "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_19sigmoid_kernel_cudaERNS_"
    "18TensorIteratorBaseEENKUlvE_clEvENKUlvE2_clEvEUlfE_NS_6detail5ArrayIPcLi2EEEEEviT0_T1_";
// Constructed: the sqrt and log10 kernels have the same shape as sin (one unary lambda per dtype
// in UnaryOpsKernel.cu / UnaryLogKernels.cu); no full real fp32 spelling was found.
constexpr char kSqrtFloat[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::sqrt_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{"
    "lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::sqrt_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{"
    "lambda(float)#1}, std::array<char*, 2ul>)";
constexpr char kLog10Float[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::log10_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{"
    "lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::log10_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{"
    "lambda(float)#1}, std::array<char*, 2ul>)";
// [S05] pow(x, 2) is lambda #1 of pow_tensor_scalar_kernel_impl. Constructed from it: lambda #4,
// the general exponent that torch.pow(x, 3.14159) takes.
constexpr char kSquareFloat[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
    "pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#1}"
    ", std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_"
    "impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#1}, std::array<char*, "
    "2ul>)";
constexpr char kPowFloat[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
    "pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#4}"
    ", std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_"
    "impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#4}, std::array<char*, "
    "2ul>)";

void ExpectModelled(const KernelEstimate& e) {
  EXPECT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_EQ(e.bytes_source, FigureSource::kCatalog) << e.reason;
  EXPECT_NE(e.confidence, Confidence::kNone);
}

// --- The seed workload -----------------------------------------------------------------------

TEST(KernelCatalogSeed, FillWritesOnly) {
  const KernelEstimate e = EstimateKernel(kFillFloat, ElementwiseLaunch(kElements));
  ExpectModelled(e);
  EXPECT_EQ(e.family, KernelFamily::kFill);
  EXPECT_EQ(e.loop, ElementwiseLoop::kVectorized);
  EXPECT_EQ(e.operands, 1);
  ASSERT_TRUE(e.elements.has_value());
  EXPECT_EQ(*e.elements, 67108864);
  EXPECT_EQ(e.flops, 0);
  EXPECT_DOUBLE_EQ(e.bytes, 268435456.0);  // N x 4 (one float32 write)
  EXPECT_EQ(e.confidence, Confidence::kHigh);
  EXPECT_EQ(e.shape_key, "n=67108864");
}

TEST(KernelCatalogSeed, MulOfTwoTensors) {
  const KernelEstimate e = EstimateKernel(kMulFloat, ElementwiseLaunch(kElements));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "mul");
  EXPECT_EQ(e.operands, 3);
  EXPECT_DOUBLE_EQ(e.flops, 67108864.0);  // N x 1 multiply
  EXPECT_EQ(e.special_ops, 0);
  EXPECT_DOUBLE_EQ(e.bytes, 805306368.0);  // N x (4 + 4 read + 4 written) = N x 12
  EXPECT_EQ(e.path, ComputePath::kFp32);
  EXPECT_EQ(e.confidence, Confidence::kHigh);
}

TEST(KernelCatalogSeed, MulByScalarStreamsTwoTensors) {
  const KernelEstimate e = EstimateKernel(kMulScalarFloat, ElementwiseLaunch(kElements));
  ExpectModelled(e);
  EXPECT_EQ(e.operands, 2);
  EXPECT_DOUBLE_EQ(e.flops, 67108864.0);   // N x 1
  EXPECT_DOUBLE_EQ(e.bytes, 536870912.0);  // N x (4 read + 4 written) = N x 8
}

TEST(KernelCatalogSeed, Add) {
  const KernelEstimate e = EstimateKernel(kAddFloat, ElementwiseLaunch(kElements));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "add");
  EXPECT_DOUBLE_EQ(e.flops, 67108864.0);   // N x 1 (alpha = 1; counters see an FFMA = 2)
  EXPECT_DOUBLE_EQ(e.bytes, 805306368.0);  // N x 12
}

TEST(KernelCatalogSeed, TranscendentalsCostOneFlopAndOneSpecialOp) {
  for (const char* name : {kSinFloat, kSqrtFloat, kLog10Float, kPowFloat}) {
    SCOPED_TRACE(name);
    const KernelEstimate e = EstimateKernel(name, ElementwiseLaunch(kElements));
    ExpectModelled(e);
    EXPECT_DOUBLE_EQ(e.flops, kDN);          // N x 1
    EXPECT_DOUBLE_EQ(e.special_ops, kDN);    // N x 1, reported apart
    EXPECT_DOUBLE_EQ(e.bytes, 536870912.0);  // N x 8: the same bytes as a scalar multiply
    EXPECT_EQ(e.path, ComputePath::kFp32);
  }
  EXPECT_EQ(ClassifyKernel(kSinFloat).functor, "sin");
  EXPECT_EQ(ClassifyKernel(kSqrtFloat).functor, "sqrt");
  EXPECT_EQ(ClassifyKernel(kLog10Float).functor, "log10");
  EXPECT_EQ(ClassifyKernel(kPowFloat).functor, "pow");
}

TEST(KernelCatalogSeed, SigmoidIsThreeFlopsWithOneExp) {
  const KernelEstimate e = EstimateKernel(kSigmoidMangled, ElementwiseLaunch(kElements));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "sigmoid");
  EXPECT_EQ(e.kernel, "vectorized_elementwise_kernel");
  EXPECT_DOUBLE_EQ(e.flops, 201326592.0);  // N x 3: exp, add, div
  EXPECT_DOUBLE_EQ(e.special_ops, kDN);    // N x 1 (the exp)
  EXPECT_DOUBLE_EQ(e.bytes, 536870912.0);  // N x 8
}

TEST(KernelCatalogSeed, SquareIsOneMultiply) {
  const KernelEstimate e = EstimateKernel(kSquareFloat, ElementwiseLaunch(kElements));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "square");
  EXPECT_DOUBLE_EQ(e.flops, kDN);  // x * x
  EXPECT_EQ(e.special_ops, 0);
  EXPECT_EQ(e.confidence, Confidence::kMedium);  // lambda numbering follows one source version
}

TEST(KernelCatalogSeed, SumReducesEveryElementOnce) {
  // [S06] torch.sum: ReduceOp<float, func_wrapper_t<float, sum lambda>, uint32, float, 4, 4>.
  // ReduceOp starts `ops_t ops; arg_t ident; ReduceConfig config;`: two empty lambdas (2 bytes),
  // float ident at 4, config at 8 = {element_size_bytes = sizeof(float), num_inputs, num_outputs}.
  const char* name =
      "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
      "at::native::func_wrapper_t"
      "<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{"
      "lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::"
      "native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::"
      "TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)";
  Params p;
  p.Size(200).At<float>(4, 0.0f).At<int32_t>(8, 4).At<int32_t>(12, kElements).At<int32_t>(16, 1);
  const KernelEstimate e = EstimateKernel(name, p.Launch(1));
  ExpectModelled(e);
  EXPECT_EQ(e.family, KernelFamily::kReduce);
  EXPECT_EQ(e.functor, "sum");
  EXPECT_EQ(*e.elements, 67108864);
  EXPECT_DOUBLE_EQ(e.flops, kDN);          // one add per input
  EXPECT_DOUBLE_EQ(e.bytes, 268435460.0);  // N x 4 read + 1 x 4 written
  EXPECT_EQ(e.shape_key, "inputs=67108864,outputs=1");
}

// --- Reading N --------------------------------------------------------------------------------

TEST(KernelCatalogParams, NComesFromParameterZero) {
  for (int32_t n : {1, 4096, 1 << 20, 2147483647}) {
    const KernelEstimate e = EstimateKernel(kAddFloat, ElementwiseLaunch(n));
    ASSERT_TRUE(e.elements.has_value());
    EXPECT_EQ(*e.elements, n);
    EXPECT_DOUBLE_EQ(e.bytes, 12.0 * n);
  }
}

TEST(KernelCatalogParams, UsesTheCapturedLayoutWhenThereIsOne) {
  // FunctionDef layout of (int, CUDAFunctor_add<float> {float alpha}, std::array<char*, 3>).
  Params p;
  p.At<int32_t>(0, 1000).At<float>(4, 1.0f).At<uint64_t>(8, 1).At<uint64_t>(16, 2).At<uint64_t>(24,
                                                                                                3);
  LaunchFacts launch = p.Launch();
  launch.layout.count = 3;
  launch.layout.slots[0] = {0, 4};
  launch.layout.slots[1] = {4, 4};
  launch.layout.slots[2] = {8, 24};
  const KernelEstimate e = EstimateKernel(kAddFloat, launch);
  ExpectModelled(e);
  EXPECT_EQ(*e.elements, 1000);
  EXPECT_DOUBLE_EQ(e.bytes, 12000.0);  // 1000 x 12
}

TEST(KernelCatalogParams, RejectsALayoutThatDisagreesWithTheSignature) {
  Params p;
  p.At<int64_t>(0, 1000);
  LaunchFacts launch = p.Launch();
  launch.layout.count = 1;
  launch.layout.slots[0] = {0, 8};  // the name says int
  const KernelEstimate e = EstimateKernel(kAddFloat, launch);
  EXPECT_EQ(e.source, FigureSource::kUnknown);
  EXPECT_EQ(e.bytes_source, FigureSource::kUnknown);
  EXPECT_FALSE(e.elements.has_value());
  EXPECT_NE(e.reason.find("disagrees"), std::string::npos) << e.reason;
  EXPECT_EQ(e.functor, "add");  // still named
}

TEST(KernelCatalogParams, TruncatedBytesLeaveFiguresUnknown) {
  Params p;
  p.Size(2);
  const KernelEstimate e = EstimateKernel(kAddFloat, p.Launch());
  EXPECT_EQ(e.source, FigureSource::kUnknown);
  EXPECT_FALSE(e.elements.has_value());
  EXPECT_NE(e.reason.find("not captured"), std::string::npos) << e.reason;
}

TEST(KernelCatalogParams, ShapeKeySeparatesSizes) {
  const std::string a = EstimateKernel(kAddFloat, ElementwiseLaunch(1024)).shape_key;
  const std::string b = EstimateKernel(kAddFloat, ElementwiseLaunch(2048)).shape_key;
  const std::string c = EstimateKernel(kAddFloat, ElementwiseLaunch(1024)).shape_key;
  EXPECT_NE(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a, "n=1024");
}

TEST(KernelCatalogParams, ClassifyOnceEstimateMany) {
  const KernelClass kc = ClassifyKernel(kMulFloat);
  EXPECT_EQ(kc.model, KernelModel::kElementwise);
  EXPECT_EQ(EstimateKernel(kc, ElementwiseLaunch(10)).flops, 10);
  EXPECT_EQ(EstimateKernel(kc, ElementwiseLaunch(20)).flops, 20);
}

// --- Elementwise details ----------------------------------------------------------------------

TEST(KernelCatalogElementwise, LegacyLoopOnBfloat16ComputesInFloat) {
  // [S03] BinaryFunctor<bf16, bf16, bf16, MulFunctor<float>> in elementwise_kernel<128, 4, ...>.
  const char* name =
      "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
      "BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::"
      "MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, "
      "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{"
      "lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::"
      "BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >("
      "at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::"
      "BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})";
  const KernelEstimate e = EstimateKernel(name, ElementwiseLaunch(1 << 20));
  ExpectModelled(e);
  EXPECT_EQ(e.family, KernelFamily::kElementwiseLegacy);
  EXPECT_EQ(e.operands, 3);  // inferred from the functor: two inputs and the output
  EXPECT_DOUBLE_EQ(e.bytes, 6.0 * (1 << 20));  // N x (2 + 2 + 2)
  EXPECT_DOUBLE_EQ(e.flops, 1 << 20);
  EXPECT_EQ(e.path, ComputePath::kFp32);         // opmath: bf16 is computed in float
  EXPECT_EQ(e.confidence, Confidence::kMedium);  // strided or broadcast operands
}

TEST(KernelCatalogElementwise, DtypeConversionCopy) {
  // [S04] float32 -> bfloat16 conversion copy.
  const char* name =
      "void at::native::vectorized_elementwise_kernel<8, at::native::bfloat16_copy_kernel_cuda(at::"
      "TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
      "bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, "
      "2ul>)";
  const KernelEstimate e = EstimateKernel(name, ElementwiseLaunch(1000));
  ExpectModelled(e);
  EXPECT_EQ(e.family, KernelFamily::kCopy);
  EXPECT_EQ(e.output_type, DataType::kBFloat16);
  EXPECT_EQ(e.flops, 0);
  EXPECT_DOUBLE_EQ(e.bytes, 6000.0);  // 1000 x (4 read + 2 written)
}

TEST(KernelCatalogElementwise, DynamicCastingIsLowConfidence) {
  // [S04] direct copy through LoadWithCast: the source dtype is a runtime value.
  const char* name =
      "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
      "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{"
      "lambda(float)#1}, std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, unsigned int>, "
      "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::"
      "memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&"
      ")::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
      "std::array<char*, 2ul>, TrivialOffsetCalculator<1, unsigned int>, "
      "TrivialOffsetCalculator<1, "
      "unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)";
  const KernelEstimate e = EstimateKernel(name, ElementwiseLaunch(1000));
  ExpectModelled(e);
  EXPECT_EQ(e.confidence, Confidence::kLow);
  EXPECT_DOUBLE_EQ(e.bytes, 8000.0);  // assumes float32 in and out
  EXPECT_NE(e.reason.find("dynamic casting"), std::string::npos);
}

TEST(KernelCatalogElementwise, IntegerArithmeticIsNotFlops) {
  // [S07] tensor + scalar on int32.
  const char* name =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<int>, "
      "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<int>, std::array<char*, "
      "2ul>)";
  const KernelEstimate e = EstimateKernel(name, ElementwiseLaunch(100));
  ExpectModelled(e);
  EXPECT_EQ(e.flops, 0);
  EXPECT_DOUBLE_EQ(e.bytes, 800.0);  // 100 x (4 + 4)
  EXPECT_EQ(e.path, ComputePath::kUnknown);
}

TEST(KernelCatalogElementwise, WhereReadsThreeInputs) {
  // [S07] where(cond, a, b) on float32.
  const char* name =
      "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::where_"
      "kernel_impl(at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda()#11}::"
      "operator()() const::{lambda(bool, float, float)#1}, std::array<char*, 4ul> >(int, at::"
      "native::(anonymous namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::"
      "operator()() const::{lambda()#11}::operator()() const::{lambda(bool, float, float)#1}, "
      "std::array<char*, 4ul>) [clone .kd]";
  const KernelEstimate e = EstimateKernel(name, ElementwiseLaunch(10));
  ExpectModelled(e);
  EXPECT_EQ(e.operands, 4);
  EXPECT_EQ(e.flops, 0);
  EXPECT_DOUBLE_EQ(e.bytes, 130.0);  // 10 x (1 + 4 + 4 read + 4 written)
}

TEST(KernelCatalogElementwise, GeluFormsDiffer) {
  // [S03] tanh form (lambda #1) and [S01] erf form (lambda #2).
  const KernelClass tanh_form = ClassifyKernel(
      "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
      "TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#4}"
      "::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::"
      "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()"
      "() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, "
      "2ul>)");
  EXPECT_EQ(tanh_form.functor, "gelu_tanh");
  EXPECT_EQ(tanh_form.flops_per_element, 9);
  EXPECT_EQ(tanh_form.special_per_element, 1);
  EXPECT_EQ(tanh_form.input_types, std::vector<DataType>{DataType::kBFloat16});
  const KernelClass erf_form = ClassifyKernel(
      "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
      "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}"
      "::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
      "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()"
      "() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)");
  EXPECT_EQ(erf_form.functor, "gelu_erf");
  EXPECT_EQ(erf_form.flops_per_element, 5);
}

TEST(KernelCatalogElementwise, UnknownFunctorStillHasBytes) {
  // Constructed: entr (-x log x) is not in the functor table. Operand types and N are still
  // known.
  const char* name =
      "void at::native::vectorized_elementwise_kernel<4, at::native::entr_kernel_cuda(at::"
      "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{"
      "lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::entr_kernel_cuda(at::"
      "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{"
      "lambda(float)#1}, std::array<char*, 2ul>)";
  const KernelEstimate e = EstimateKernel(name, ElementwiseLaunch(100));
  EXPECT_EQ(e.family, KernelFamily::kElementwiseVectorized);
  EXPECT_EQ(e.functor, "");
  EXPECT_EQ(e.source, FigureSource::kUnknown);  // FLOPs: no model
  EXPECT_EQ(e.flops, 0);
  EXPECT_EQ(e.bytes_source, FigureSource::kCatalog);
  EXPECT_DOUBLE_EQ(e.bytes, 800.0);  // 100 x (4 + 4)
  EXPECT_NE(e.reason.find("FLOPs unknown"), std::string::npos);
}

TEST(KernelCatalogElementwise, ComplexArithmeticFollowsLawn41) {
  // Constructed from CUDAFunctor_add<float> [S01] with complex element types.
  const KernelEstimate add = EstimateKernel(
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::complex<"
      "float> >, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::complex<float> >, "
      "std::array<char*, 3ul>)",
      ElementwiseLaunch(10));
  EXPECT_DOUBLE_EQ(add.flops, 20.0);   // 10 x 2 real adds
  EXPECT_DOUBLE_EQ(add.bytes, 240.0);  // 10 x (8 + 8 + 8)
  const KernelEstimate mul = EstimateKernel(
      "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::complex<"
      "float>, c10::complex<float>, c10::complex<float>, at::native::binary_internal::MulFunctor<"
      "c10::complex<float> > >, std::array<char*, 3ul> >(int, at::native::BinaryFunctor<c10::"
      "complex<float>, c10::complex<float>, c10::complex<float>, at::native::binary_internal::"
      "MulFunctor<c10::complex<float> > >, std::array<char*, 3ul>)",
      ElementwiseLaunch(10));
  EXPECT_DOUBLE_EQ(mul.flops, 60.0);  // 10 x 6 (4 mul + 2 add)
}

// --- Reductions -------------------------------------------------------------------------------

TEST(KernelCatalogReduce, MeanOnHalfWithFloatAccumulation) {
  // [S12] ReduceOp<Half, MeanOps<Half, float, float, Half>, uint32, Half, 4, 8>: ops holds a
  // float factor (4 bytes), ident float at 4, config at 8.
  const char* name =
      "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<c10::Half, at::native::MeanOps<"
      "c10::Half, float, float, c10::Half>, unsigned int, c10::Half, 4, 8> >(at::native::ReduceOp<"
      "c10::Half, at::native::MeanOps<c10::Half, float, float, c10::Half>, unsigned int, c10::Half,"
      " 4, 8>)";
  Params p;
  p.Size(216).At<float>(0, 1.0f / 4096).At<int32_t>(8, 4).At<int32_t>(12, 4096).At<int32_t>(16, 32);
  const KernelEstimate e = EstimateKernel(name, p.Launch(32));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "mean");
  EXPECT_EQ(*e.elements, 131072);       // 4096 x 32
  EXPECT_DOUBLE_EQ(e.flops, 131104.0);  // 131072 adds + 32 scalings
  EXPECT_DOUBLE_EQ(e.bytes, 262208.0);  // 131072 x 2 read + 32 x 2 written
  EXPECT_EQ(e.path, ComputePath::kFp32);
}

TEST(KernelCatalogReduce, ArgmaxWritesInt64) {
  // [S10] ArgMaxOps<float>: arg_t is pair<float, int64_t> (16 bytes, 8-aligned), so ident sits at
  // 8 and config at 24.
  const char* name =
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<"
      "float>, unsigned int, long, 4>>(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, "
      "unsigned int, long, 4>)";
  Params p;
  p.Size(232).At<int32_t>(24, 16).At<int32_t>(28, 32000).At<int32_t>(32, 64);
  const KernelEstimate e = EstimateKernel(name, p.Launch(64));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "argmax");
  EXPECT_EQ(e.flops, 0);                 // comparisons only
  EXPECT_DOUBLE_EQ(e.bytes, 8192512.0);  // 2,048,000 x 4 read + 64 x 8 written
  EXPECT_EQ(e.output_type, DataType::kInt64);
}

TEST(KernelCatalogReduce, AWrongLayoutIsRejectedNotGuessed) {
  const KernelClass kc = ClassifyKernel(
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<"
      "float>, unsigned int, long, 4>>(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, "
      "unsigned int, long, 4>)");
  Params p;
  p.Size(232).At<int32_t>(24, 4).At<int32_t>(28, 32000).At<int32_t>(32, 64);  // size 4 != 16
  const KernelEstimate e = EstimateKernel(kc, p.Launch());
  EXPECT_EQ(e.source, FigureSource::kUnknown);
  EXPECT_NE(e.reason.find("check failed"), std::string::npos) << e.reason;
  Params short_bytes;
  short_bytes.Size(20);
  EXPECT_EQ(EstimateKernel(kc, short_bytes.Launch()).source, FigureSource::kUnknown);
}

// --- Softmax and layer norm --------------------------------------------------------------------

TEST(KernelCatalogSoftmax, BlockSoftmaxRowsFromTheGrid) {
  // [S05] cunn_SoftMaxForward<8, Half, float, Half, SoftMaxForwardEpilogue>(Half*, Half const*,
  // int classes): one block per row, classes at offset 16.
  const char* name =
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::Half, float, c10::Half,"
      " at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::Half*, c10::Half const*, "
      "int)";
  Params p;
  p.At<uint64_t>(0, 1).At<uint64_t>(8, 2).At<int32_t>(16, 32000);
  const KernelEstimate e = EstimateKernel(name, p.Launch(4096));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "softmax");
  EXPECT_EQ(*e.elements, 131072000);           // 4096 rows x 32000
  EXPECT_DOUBLE_EQ(e.flops, 524288000.0);      // x 4: sub, exp, add, div
  EXPECT_DOUBLE_EQ(e.special_ops, 131072000);  // one exp per element
  EXPECT_DOUBLE_EQ(e.bytes, 524288000.0);      // x (2 read + 2 written)
  EXPECT_EQ(e.shape_key, "rows=4096,cols=32000");
}

TEST(KernelCatalogSoftmax, WarpSoftmaxReadsBatchAndCount) {
  // [S01] softmax_warp_forward<float, float, float, 4, true, false>(dst, src, int batch, int
  // stride, int element_count, ...): batch at 16, count at 24.
  const char* name =
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>("
      "float*, float const*, int, int, int, bool const*, int, bool)";
  Params p;
  p.At<int32_t>(16, 1024).At<int32_t>(20, 16).At<int32_t>(24, 16).Size(48);
  const KernelEstimate e = EstimateKernel(name, p.Launch(64));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "log_softmax");
  EXPECT_EQ(*e.elements, 16384);        // 1024 x 16
  EXPECT_DOUBLE_EQ(e.flops, 65536.0);   // x 4
  EXPECT_DOUBLE_EQ(e.bytes, 131072.0);  // x 8
}

TEST(KernelCatalogSoftmax, BackwardReadsTwoTensors) {
  // [S08] cunn_SoftMaxBackward<8, Half, float, Half, LogSoftMaxBackwardEpilogue>(gI, output,
  // gradOutput, long classes): classes at 24.
  const char* name =
      "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<8, c10::Half, float, c10::"
      "Half, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(c10::Half*, c10::Half "
      "const*, c10::Half const*, long)";
  Params p;
  p.At<int64_t>(24, 1000);
  const KernelEstimate e = EstimateKernel(name, p.Launch(10));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "log_softmax_backward");
  EXPECT_DOUBLE_EQ(e.bytes, 60000.0);  // 10 x 1000 x (2 + 2 read + 2 written)
  EXPECT_DOUBLE_EQ(e.flops, 40000.0);  // x 4
}

TEST(KernelCatalogLayerNorm, FusedLayerNormWithAffine) {
  // [S03] vectorized_layer_norm_kernel<BFloat16, float, false>(int N, float eps, X, gamma, beta,
  // mean, rstd, Y): rows = grid.x = 8192, N = 4096, gamma and beta present.
  const char* name =
      "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, "
      "false>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, "
      "float*, "
      "float*, c10::BFloat16*)";
  Params p;
  p.At<int32_t>(0, 4096)
      .At<float>(4, 1e-5f)
      .At<uint64_t>(8, 0x1000)
      .At<uint64_t>(16, 0x2000)
      .At<uint64_t>(24, 0x3000)
      .At<uint64_t>(32, 0x4000)
      .At<uint64_t>(40, 0x5000)
      .At<uint64_t>(48, 0x6000);
  const KernelEstimate e = EstimateKernel(name, p.Launch(8192));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "layer_norm");
  EXPECT_EQ(*e.elements, 33554432);  // 8192 x 4096
  // 33,554,432 x 8 (mean 1, variance 3, normalise 2, gamma 1, beta 1) + 8192 rsqrt.
  EXPECT_DOUBLE_EQ(e.flops, 268443648.0);
  EXPECT_DOUBLE_EQ(e.special_ops, 8192.0);
  // X read + Y written: 33,554,432 x 2 x 2 = 134,217,728; gamma + beta: 2 x 4096 x 2 = 16,384;
  // mean + rstd: 8192 x 2 x 4 = 65,536.
  EXPECT_DOUBLE_EQ(e.bytes, 134299648.0);
  EXPECT_EQ(e.shape_key, "rows=8192,n=4096,gamma=1,beta=1");
}

TEST(KernelCatalogLayerNorm, RmsNormWithoutBeta) {
  // [S03] the rms_norm instantiation; beta and mean pointers are null.
  const char* name =
      "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, "
      "true>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, "
      "float*, c10::BFloat16*)";
  Params p;
  p.At<int32_t>(0, 4096)
      .At<uint64_t>(8, 0x1000)
      .At<uint64_t>(16, 0x2000)
      .At<uint64_t>(24, 0)
      .At<uint64_t>(32, 0)
      .At<uint64_t>(40, 0x5000)
      .At<uint64_t>(48, 0x6000);
  const KernelEstimate e = EstimateKernel(name, p.Launch(8192));
  ExpectModelled(e);
  EXPECT_EQ(e.functor, "rms_norm");
  // 33,554,432 x 4 (square 1, sum 1, scale 1, gamma 1) + 8192 rsqrt.
  EXPECT_DOUBLE_EQ(e.flops, 134225920.0);
  // 134,217,728 streamed + gamma 8192 + rstd 8192 x 4 = 32,768.
  EXPECT_DOUBLE_EQ(e.bytes, 134258688.0);
}

TEST(KernelCatalogLayerNorm, GammaBetaBackwardIsNamedButNotModelled) {
  const KernelEstimate e = EstimateKernel(
      "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<float, float, "
      "32u, 1u, 32u, true, true, false>(long, long, float const*, float const*, float const*, "
      "float const*, float*, float*)",
      Params().Size(64).Launch(100));
  EXPECT_EQ(e.family, KernelFamily::kLayerNorm);
  EXPECT_EQ(e.source, FigureSource::kUnknown);
  EXPECT_EQ(e.bytes_source, FigureSource::kUnknown);
}

// --- Indexing ---------------------------------------------------------------------------------

TEST(KernelCatalogIndex, GatherRowsIsExact) {
  // [S06] vectorized_gather_kernel<16, long>(out, inp, idx, int num_ind, long slice_bytes, ...).
  const char* name =
      "void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, "
      "long, long, bool)";
  Params p;
  p.At<int32_t>(24, 2048).At<int64_t>(32, 8192).At<int64_t>(40, 32000).Size(72);
  const KernelEstimate e = EstimateKernel(name, p.Launch(2048));
  ExpectModelled(e);
  EXPECT_EQ(e.confidence, Confidence::kHigh);
  EXPECT_DOUBLE_EQ(e.bytes, 33570816.0);  // 2048 rows x (8192 read + 8192 written + 8 index)
  EXPECT_EQ(e.flops, 0);
}

TEST(KernelCatalogIndex, IndexSelectSizesFromTheDestinationTensorInfo) {
  // [S05] indexSelectLargeIndex<Half, long, uint32, ...>: parameter 0 is TensorInfo<Half, uint32>
  // = {Half* data; uint32 sizes[25]; uint32 strides[25]; int dims}: sizes at 8, dims at 208.
  const char* name =
      "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::Half, long, unsigned "
      "int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::Half, unsigned int>, at::cuda::"
      "detail::TensorInfo<c10::Half const, unsigned int>, at::cuda::detail::TensorInfo<long const, "
      "unsigned int>, int, int, unsigned int, unsigned int, long)";
  Params p;
  p.At<uint32_t>(8, 2048).At<uint32_t>(12, 768).At<int32_t>(208, 2).Size(255);
  const KernelEstimate e = EstimateKernel(name, p.Launch(1));
  ExpectModelled(e);
  EXPECT_EQ(*e.elements, 1572864);       // 2048 x 768
  EXPECT_DOUBLE_EQ(e.bytes, 6291456.0);  // x (2 read + 2 written)
  // Without the bytes that hold dims, nothing is claimed.
  EXPECT_EQ(EstimateKernel(name, Params().Size(200).Launch(1)).source, FigureSource::kUnknown);
}

TEST(KernelCatalogIndex, IndexAndScatterKernels) {
  // [S07] index with OpaqueType<4>: N is an int64 parameter 0.
  const KernelEstimate index = EstimateKernel(
      "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::"
      "index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, "
      "c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBase&, c10::"
      "ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::OpaqueType<4>"
      " >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char "
      "const*, long)#1} const&, bool)::{lambda(int)#1}>(long, at::native::gpu_index_kernel<at::"
      "native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::"
      "ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::"
      "TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl"
      "<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<"
      "long>)::{lambda(char*, char const*, long)#1} const&, bool)::{lambda(int)#1}) [clone .kd]",
      Params().At<int64_t>(0, 1000000).Launch());
  ExpectModelled(index);
  EXPECT_EQ(index.confidence, Confidence::kLow);
  EXPECT_DOUBLE_EQ(index.bytes, 16000000.0);  // 1e6 x (4 read + 4 written + 8 index)

  // [S07] scatter (TensorAssign) with OpaqueType<4> and int64 indices; N is an int32.
  const KernelEstimate scatter = EstimateKernel(
      "void at::native::_scatter_gather_elementwise_kernel<256, 4, at::native::_cuda_scatter_"
      "gather_internal_kernel<true, at::native::OpaqueType<4>, long>::operator()<at::native::"
      "TensorAssign>(at::TensorIterator&, long, long, long, at::native::TensorAssign const&)::{"
      "lambda(int)#1}>(int, at::native::_cuda_scatter_gather_internal_kernel<true, at::native::"
      "OpaqueType<4>, long>::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, "
      "long, at::native::TensorAssign const&)::{lambda(int)#1}) [clone .kd]",
      Params().At<int32_t>(0, 1000).Launch());
  ExpectModelled(scatter);
  EXPECT_EQ(scatter.functor, "scatter");
  EXPECT_DOUBLE_EQ(scatter.bytes, 16000.0);  // 1000 x (4 + 4 + 8)
}

// --- What stays unknown -----------------------------------------------------------------------

TEST(KernelCatalogUnknown, LibraryAndTritonKernelsAreNeverModelled) {
  const Params p = Params().At<int32_t>(0, 4096).Size(255);
  for (const char* name : {"ampere_sgemm_128x64_nn", "triton_poi_fused_relu_5",
                           "nvjet_tst_256x128_64x5_2x2_2cta_h_bz_bias_TNT",
                           "void phi::funcs::VectorizedElementwiseKernel<float>(int, float*)",
                           "vectorized_elementwise_kernel", ""}) {
    SCOPED_TRACE(name);
    const KernelEstimate e = EstimateKernel(name, p.Launch(100));
    EXPECT_EQ(e.source, FigureSource::kUnknown);
    EXPECT_EQ(e.bytes_source, FigureSource::kUnknown);
    EXPECT_EQ(e.flops, 0);
    EXPECT_EQ(e.bytes, 0);
    EXPECT_EQ(e.confidence, Confidence::kNone);
    EXPECT_FALSE(e.reason.empty());
  }
  EXPECT_EQ(ClassifyKernel("triton_red_fused_div_mm_21").family, KernelFamily::kTriton);
  EXPECT_EQ(ClassifyKernel("triton_red_fused_div_mm_21").functor, "reduction");
}

// --- The tables -------------------------------------------------------------------------------

TEST(KernelCatalogTables, RulesAreWellFormed) {
  std::set<std::string_view> patterns;
  for (const FunctorRule& r : ElementwiseFunctorRules()) {
    SCOPED_TRACE(r.pattern);
    EXPECT_TRUE(patterns.insert(r.pattern).second) << "duplicate pattern";
    EXPECT_FALSE(r.name.empty());
    EXPECT_FALSE(r.note.empty());
    EXPECT_GE(r.flops, r.special) << "special ops are counted inside flops";
    EXPECT_GE(r.special, 0);
    EXPECT_NE(r.confidence, Confidence::kNone);
    EXPECT_EQ(r.pattern.front(), '*');
    if (r.output == OutputRule::kFixed) {
      EXPECT_NE(r.fixed_output, DataType::kUnknown);
    }
  }
  for (const ReduceRule& r : ReduceRules()) {
    SCOPED_TRACE(r.pattern);
    EXPECT_FALSE(r.name.empty());
    EXPECT_GE(r.flops, r.special);
  }
}

TEST(KernelCatalogTables, SpecificRulesWinOverGeneralOnes) {
  // "bfloat16_copy" contains "float16_copy"; "nansum_functor" contains "sum_functor".
  const KernelClass copy = ClassifyKernel(
      "void at::native::vectorized_elementwise_kernel<4, at::native::float16_copy_kernel_cuda(at::"
      "TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
      "float16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, "
      "2ul>)");
  EXPECT_EQ(copy.output_type, DataType::kFloat16);
  const KernelClass bcopy = ClassifyKernel(
      "void at::native::vectorized_elementwise_kernel<8, at::native::bfloat16_copy_kernel_cuda(at::"
      "TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
      "bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, "
      "2ul>)");
  EXPECT_EQ(bcopy.output_type, DataType::kBFloat16);
}

TEST(KernelCatalogTypes, SpellingsAndNames) {
  EXPECT_EQ(DataTypeFromCpp("c10::BFloat16 const"), DataType::kBFloat16);
  EXPECT_EQ(DataTypeFromCpp("long"), DataType::kInt64);
  EXPECT_EQ(DataTypeFromCpp("at::native::(anonymous namespace)::OpaqueType<2u>"),
            DataType::kOpaque2);
  EXPECT_EQ(DataTypeFromCpp("c10::complex<float>"), DataType::kComplexFloat);
  EXPECT_FALSE(DataTypeFromCpp("at::native::FillFunctor<float>").has_value());
  for (int i = 0; i < static_cast<int>(DataType::kCount); ++i) {
    const auto t = static_cast<DataType>(i);
    EXPECT_EQ(DataTypeFromName(DataTypeName(t)), t);
  }
  for (int i = 0; i < kKernelFamilyCount; ++i) {
    const auto f = static_cast<KernelFamily>(i);
    EXPECT_EQ(KernelFamilyFromName(KernelFamilyName(f)), f);
  }
}

TEST(KernelCatalogTypes, LayoutFromAFunctionDef) {
  trace::FunctionDef def{};
  def.layout_count = 3;
  def.param_offset[0] = 0;
  def.param_size[0] = 4;
  def.param_offset[1] = 4;
  def.param_size[1] = 1;
  def.param_offset[2] = 8;
  def.param_size[2] = 16;
  const ParamLayout layout = ParamLayout::FromFunctionDef(def);
  EXPECT_EQ(layout.count, 3);
  EXPECT_EQ(layout.slots[2].offset, 8);
  EXPECT_EQ(layout.slots[2].size, 16);
}

}  // namespace
}  // namespace flopspy::analyzers
