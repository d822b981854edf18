// The functor audit: every elementwise operation the audit listed and the common training ops
// beyond it, each with the FLOPs and special-function operations per element the counting
// convention of docs/kernel-catalog.md gives. Names are built in the exact shape of real ones
// (tests/data/kernel_names/corpus.tsv: S01, S03, S05): the functor text of a
// vectorized_elementwise_kernel, with ATen's nested dispatch lambdas. The functor texts follow
// the ATen sources (aten/src/ATen/native/cuda/*.cu); where a name was seen in a public profile
// the corpus holds it too.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

// "void at::native::vectorized_elementwise_kernel<4, F, std::array<char*, Kul> >(int, F, ...)".
std::string Vectorized(const std::string& functor, int operands) {
  const std::string array = "std::array<char*, " + std::to_string(operands) + "ul>";
  return "void at::native::vectorized_elementwise_kernel<4, " + functor + ", " + array +
         " >(int, " + functor + ", " + array + ")";
}

// ATen's dispatch nesting: "ns::fn(args)::{lambda()#1}::operator()() const::{lambda()#2}::
// operator()() const::{lambda(T...)#1}".
std::string Lambda(const std::string& qualified_fn, const std::string& args,
                   const std::string& lambda_params) {
  return qualified_fn + "(" + args +
         ")::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(" +
         lambda_params + ")#1}";
}
std::string Unary(const std::string& fn, const std::string& type = "float") {
  return Lambda("at::native::" + fn, "at::TensorIteratorBase&", type);
}
std::string Binary(const std::string& fn, const std::string& type = "float") {
  return Lambda("at::native::" + fn, "at::TensorIteratorBase&", type + ", " + type);
}
std::string WrapBinary(const std::string& op, const std::string& type = "float") {
  return "at::native::BinaryFunctor<" + type + ", " + type + ", " + type + ", " + op + ">";
}

struct Case {
  const char* what;  // the operation, as a user writes it
  std::string functor_text;
  int operands;
  const char* functor;  // the catalog's name
  double flops;         // per element
  double special;       // per element, inside flops
};

std::vector<Case> Cases() {
  const std::string mul = "at::native::binary_internal::MulFunctor<float>";
  const std::string div = "at::native::binary_internal::DivFunctor<float>";
  return {
      // Issue 5.1's list.
      {"a + b", "at::native::CUDAFunctor_add<float>", 3, "add", 1, 0},
      {"a - b (add with alpha -1)", "at::native::CUDAFunctor_add<float>", 3, "add", 1, 0},
      {"a * b", WrapBinary(mul), 3, "mul", 1, 0},
      {"a / b", WrapBinary(div), 3, "div", 1, 0},
      {"-a", Unary("neg_kernel_cuda"), 2, "neg", 0, 0},
      {"abs(a)", "at::native::AbsFunctor<float>", 2, "abs", 0, 0},
      {"fill_", "at::native::FillFunctor<float>", 1, "fill", 0, 0},
      {"copy_", Lambda("at::native::direct_copy_kernel_cuda", "at::TensorIteratorBase&", "float"),
       2, "copy", 0, 0},
      {"to(bfloat16)",
       "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}", 2,
       "copy", 0, 0},
      {"relu (clamp_min 0)",
       Lambda("at::native::(anonymous namespace)::launch_clamp_scalar",
              "at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits",
              "float"),
       2, "clamp", 0, 0},
      {"where",
       Lambda("at::native::(anonymous namespace)::where_kernel_impl", "at::TensorIterator&",
              "bool, float, float"),
       4, "where", 0, 0},
      {"addcmul",
       Lambda("at::native::addcmul_cuda_kernel", "at::TensorIteratorBase&, c10::Scalar const&",
              "float, float, float"),
       4, "addcmul", 3, 0},
      {"lerp",
       Lambda("at::native::(anonymous namespace)::lerp_kernel_scalar_weight",
              "at::TensorIteratorBase&, c10::Scalar const&", "float, float"),
       3, "lerp", 3, 0},
      {"pow(a, 2)",
       "void at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::"
       "TensorIteratorBase&, float)::{lambda(float)#1}",
       2, "square", 1, 0},
      {"pow(a, 3.14159)",
       "void at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::"
       "TensorIteratorBase&, float)::{lambda(float)#4}",
       2, "pow", 1, 1},
      {"exp", Unary("exp_kernel_cuda"), 2, "exp", 1, 1},
      {"log", Unary("log_kernel_cuda"), 2, "log", 1, 1},
      {"log10", Unary("log10_kernel_cuda"), 2, "log10", 1, 1},
      {"sin (anonymous namespace form)",
       Lambda("at::native::(anonymous namespace)::sin_kernel_cuda", "at::TensorIteratorBase&",
              "float"),
       2, "sin", 1, 1},
      {"cos", Unary("cos_kernel_cuda"), 2, "cos", 1, 1},
      {"tanh", Unary("tanh_kernel_cuda"), 2, "tanh", 1, 1},
      {"sigmoid", Unary("sigmoid_kernel_cuda"), 2, "sigmoid", 3, 1},
      {"sqrt", Unary("sqrt_kernel_cuda"), 2, "sqrt", 1, 1},
      {"rsqrt", Unary("rsqrt_kernel_cuda"), 2, "rsqrt", 1, 1},
      {"gelu (tanh)",
       "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}"
       "::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}",
       2, "gelu_tanh", 9, 1},
      {"gelu (erf)",
       "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}"
       "::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}",
       2, "gelu_erf", 5, 1},
      {"silu",
       Lambda("at::native::(anonymous namespace)::silu_kernel", "at::TensorIteratorBase&", "float"),
       2, "silu", 3, 1},

      // Scalars folded into the functor: one streamed input.
      {"a * 0.5", "at::native::AUnaryFunctor<float, float, float, " + mul + ">", 2, "mul", 1, 0},
      {"a + 1 (CUDAFunctorOnSelf_add)", "at::native::CUDAFunctorOnSelf_add<float>", 2, "add", 1, 0},
      {"a / 2 (BUnaryFunctor)", "at::native::BUnaryFunctor<float, float, float, " + div + ">", 2,
       "div", 1, 0},
      {"a // b",
       "at::native::BinaryFunctor<float, float, float, " +
           Binary("binary_internal::div_floor_kernel_cuda") + ">",
       3, "div_floor", 1, 0},
      {"trunc division", Binary("binary_internal::div_trunc_kernel_cuda"), 3, "div_trunc", 1, 0},
      {"remainder", Binary("remainder_kernel_cuda"), 3, "remainder", 3, 0},
      {"pow(a, b)", Binary("pow_tensor_tensor_kernel"), 3, "pow", 1, 1},
      {"reciprocal", Unary("reciprocal_kernel_cuda"), 2, "reciprocal", 1, 0},
      {"erf", Unary("erf_kernel_cuda"), 2, "erf", 1, 1},
      {"erfinv", Unary("erfinv_kernel_cuda"), 2, "erfinv", 1, 1},
      {"log1p", Unary("log1p_kernel_cuda"), 2, "log1p", 1, 1},
      {"expm1", Unary("expm1_kernel_cuda"), 2, "expm1", 1, 1},
      {"exp2", Unary("exp2_kernel_cuda"), 2, "exp2", 1, 1},
      {"atan2", Binary("atan2_kernel_cuda"), 3, "atan2", 1, 1},
      {"hypot", WrapBinary(Binary("hypot_kernel_cuda")), 3, "hypot", 4, 1},
      {"mish",
       Lambda("at::native::(anonymous namespace)::mish_kernel", "at::TensorIteratorBase&", "float"),
       2, "mish", 4, 3},
      {"hardswish",
       Lambda("at::native::(anonymous namespace)::hardswish_kernel", "at::TensorIterator&",
              "float"),
       2, "hardswish", 3, 0},
      {"leaky_relu",
       Lambda("at::native::(anonymous namespace)::leaky_relu_kernel",
              "at::TensorIteratorBase&, c10::Scalar const&", "float"),
       2, "leaky_relu", 1, 0},
      {"elu",
       Lambda("at::native::(anonymous namespace)::elu_kernel",
              "at::TensorIteratorBase&, c10::Scalar const&, c10::Scalar const&, c10::Scalar "
              "const&",
              "float"),
       2, "elu", 5, 1},
      {"softplus",
       Lambda("at::native::(anonymous namespace)::softplus_kernel",
              "at::TensorIteratorBase&, c10::Scalar const&, c10::Scalar const&", "float"),
       2, "softplus", 4, 2},
      {"threshold_backward (relu backward)",
       WrapBinary("at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::"
                  "TensorIteratorBase&, float, float)::{lambda(float, float)#1}"),
       3, "threshold", 0, 0},
      {"gelu_backward (erf)",
       "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{"
       "lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, "
       "float)#1}",
       3, "gelu_erf_backward", 11, 2},
      {"silu_backward",
       Lambda("at::native::(anonymous namespace)::silu_backward_kernel", "at::TensorIteratorBase&",
              "float, float"),
       3, "silu_backward", 8, 1},
      {"sigmoid_backward", Binary("sigmoid_backward_kernel_cuda"), 3, "sigmoid_backward", 3, 0},
      {"tanh_backward", Binary("tanh_backward_kernel_cuda"), 3, "tanh_backward", 3, 0},
      {"dropout (mask given)",
       "void at::native::(anonymous namespace)::masked_scale_kernel<bool, float, "
       "float>(at::Tensor&, "
       "at::Tensor const&, at::Tensor const&, float)::{lambda(float, bool)#1}",
       3, "dropout_scale", 2, 0},
      {"masked_fill",
       Lambda("at::native::(anonymous namespace)::masked_fill_kernel",
              "at::TensorIterator&, c10::Scalar const&", "float, bool"),
       3, "masked_fill", 0, 0},
      {"bitwise_and", "at::native::BitwiseAndFunctor<long>", 3, "bitwise", 0, 0},
      {"a == b", "at::native::(anonymous namespace)::CompareEqFunctor<float>", 3, "eq", 0, 0},
      {"a < b", "at::native::(anonymous namespace)::CompareFunctor<float>", 3, "compare", 0, 0},
      {"logical_and", Binary("logical_and_kernel_cuda", "bool"), 3, "logical_and", 0, 0},
      // isnan is a != a: CompareEqFunctor with the NE op type, a runtime value the name does not
      // carry, so eq and ne share the row.
      {"isnan (a != a)", "at::native::(anonymous namespace)::CompareEqFunctor<float>", 3, "eq", 0,
       0},
      {"nan_to_num",
       Lambda("at::native::nan_to_num_kernel_cuda",
              "at::TensorIteratorBase&, std::optional<double>, std::optional<double>, "
              "std::optional<double>",
              "float"),
       2, "nan_to_num", 0, 0},
      {"clamp_max",
       Lambda("at::native::(anonymous namespace)::clamp_max_scalar_kernel_impl",
              "at::TensorIteratorBase&, c10::Scalar", "float"),
       2, "clamp", 0, 0},
      {"maximum", Binary("maximum_kernel_cuda"), 3, "maximum", 0, 0},
      {"minimum", Binary("minimum_kernel_cuda"), 3, "minimum", 0, 0},
      {"sign", Unary("sign_kernel_cuda"), 2, "sign", 0, 0},
      {"floor", Unary("floor_kernel_cuda"), 2, "floor", 0, 0},
      {"ceil", Unary("ceil_kernel_cuda"), 2, "ceil", 0, 0},
      {"round", Unary("round_kernel_cuda"), 2, "round", 0, 0},
      {"trunc", Unary("trunc_kernel_cuda"), 2, "trunc", 0, 0},
      {"frac", Unary("frac_kernel_cuda"), 2, "frac", 1, 0},
      {"logaddexp", Binary("logaddexp_kernel_cuda"), 3, "logaddexp", 4, 2},
      {"xlogy", Binary("xlogy_kernel_cuda"), 3, "xlogy", 2, 1},
      {"mse_loss", Binary("mse_kernel_cuda"), 3, "mse", 2, 0},
      {"glu",
       Lambda("at::native::(anonymous namespace)::glu_kernel", "at::TensorIteratorBase&",
              "float, float"),
       3, "glu", 4, 1},
      {"logsigmoid", Unary("launch_log_sigmoid_forward_kernel"), 2, "log_sigmoid", 3, 2},
      {"lgamma", Unary("lgamma_kernel_cuda"), 2, "lgamma", 1, 1},
      {"prelu", Lambda("at::native::prelu_kernel", "at::TensorIterator&", "float, float"), 3,
       "prelu", 1, 0},
  };
}

TEST(KernelCatalogFunctors, EveryAuditedOperationHasItsCount) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.what);
    const KernelClass kc = ClassifyKernel(Vectorized(c.functor_text, c.operands));
    EXPECT_EQ(kc.family == KernelFamily::kCopy || kc.family == KernelFamily::kFill ||
                  kc.family == KernelFamily::kElementwiseVectorized,
              true)
        << KernelFamilyName(kc.family);
    EXPECT_EQ(kc.functor, c.functor) << kc.reason;
    EXPECT_EQ(kc.operands, c.operands);
    EXPECT_TRUE(kc.flops_known) << kc.reason;
    EXPECT_EQ(kc.flops_per_element, c.flops);
    EXPECT_EQ(kc.special_per_element, c.special);
    EXPECT_NE(kc.confidence, Confidence::kNone);
  }
}

TEST(KernelCatalogFunctors, IntegerOperandsAreNeverFlops) {
  // The same functor rows on int64: the arithmetic is real, but not floating-point.
  for (const std::string& f : {std::string("at::native::CUDAFunctor_add<long>"),
                               WrapBinary("at::native::binary_internal::MulFunctor<long>", "long"),
                               Binary("remainder_kernel_cuda", "long")}) {
    const KernelClass kc = ClassifyKernel(Vectorized(f, 3));
    EXPECT_TRUE(kc.flops_known) << f;
    EXPECT_EQ(kc.flops_per_element, 0) << f;
    EXPECT_EQ(kc.path, ComputePath::kUnknown) << f;
  }
}

TEST(KernelCatalogFunctors, HalfAndBfloat16ComputeOnTheFp32Path) {
  const KernelClass half = ClassifyKernel(Vectorized(Unary("sin_kernel_cuda", "c10::Half"), 2));
  EXPECT_EQ(half.functor, "sin");
  EXPECT_EQ(half.input_types, std::vector<DataType>{DataType::kFloat16});
  EXPECT_EQ(half.path, ComputePath::kFp32);
  const KernelClass bf = ClassifyKernel(
      Vectorized(WrapBinary("at::native::binary_internal::MulFunctor<float>", "c10::BFloat16"), 3));
  EXPECT_EQ(bf.functor, "mul");
  EXPECT_EQ(bf.output_type, DataType::kBFloat16);
  EXPECT_EQ(bf.path, ComputePath::kFp32);
  const KernelClass dbl = ClassifyKernel(Vectorized(Unary("exp_kernel_cuda", "double"), 2));
  EXPECT_EQ(dbl.path, ComputePath::kFp64);
}

TEST(KernelCatalogFunctors, ComparisonsWriteBool) {
  for (const std::string& f : {std::string("at::native::(anonymous namespace)::CompareEqFunctor<"
                                           "float>"),
                               Binary("logical_or_kernel_cuda", "float")}) {
    const KernelClass kc = ClassifyKernel(Vectorized(f, 3));
    EXPECT_EQ(kc.output_type, DataType::kBool) << f;
  }
}

TEST(KernelCatalogFunctors, NvidiaDemanglerSpellingMatchesTheSameRows) {
  // Nsight Systems prints "[lambda(float) (instance 1)]", "(int)4", "char *" and "<unnamed>".
  const KernelClass kc = ClassifyKernel(
      "void at::native::vectorized_elementwise_kernel<(int)4, at::native::<unnamed>::sin_kernel_"
      "cuda(at::TensorIteratorBase &)::[lambda() (instance 1)]::operator ()() const::[lambda() "
      "(instance 2)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, "
      "(unsigned long)2>>(int, T2, T3)");
  EXPECT_EQ(kc.family, KernelFamily::kElementwiseVectorized);
  EXPECT_EQ(kc.functor, "sin");
  EXPECT_EQ(kc.operands, 2);
  EXPECT_EQ(kc.input_types, std::vector<DataType>{DataType::kFloat32});
  EXPECT_EQ(kc.flops_per_element, 1);
  // N is still parameter 0 ("int"), so the figures come from the bytes as usual.
  int32_t n = 1000;
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &n, 4);
  LaunchFacts launch;
  launch.params = bytes;
  const KernelEstimate e = EstimateKernel(kc, launch);
  EXPECT_EQ(e.source, trace::FigureSource::kCatalog);
  EXPECT_DOUBLE_EQ(e.bytes, 8000);
}

}  // namespace
}  // namespace flopspy::analyzers
