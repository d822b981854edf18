#include "flopspy/analyzers/demangle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flopspy::analyzers {
namespace {

using ::testing::ElementsAre;

// From tests/data/kernel_names (S20): CUDAFunctor_add<float> in the vectorized loop.
constexpr char kMangledAdd[] =
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_"
    "addIfEESt5arrayIPcLm3EEEEviT0_"
    "T1_";
constexpr char kDemangledAdd[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";

TEST(Demangle, DemanglesItaniumNames) {
  EXPECT_EQ(Demangle(kMangledAdd), kDemangledAdd);
  EXPECT_TRUE(IsMangledName(kMangledAdd));
}

TEST(Demangle, ReturnsOtherTextUnchanged) {
  EXPECT_EQ(Demangle("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  EXPECT_EQ(Demangle("ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(Demangle(kDemangledAdd), kDemangledAdd);
  // Looks mangled, is not: the demangler rejects it and the text comes back as it was.
  EXPECT_EQ(Demangle("_Z_not_really"), "_Z_not_really");
  EXPECT_EQ(Demangle(""), "");
}

TEST(SplitFunctionName, SplitsAnElementwiseKernel) {
  const FunctionNameParts p = SplitFunctionName(kDemangledAdd);
  EXPECT_EQ(p.return_type, "void");
  EXPECT_EQ(p.qualified, "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(p.base, "vectorized_elementwise_kernel");
  EXPECT_THAT(p.template_args,
              ElementsAre("4", "at::native::CUDAFunctor_add<float>", "std::array<char*, 3ul>"));
  EXPECT_TRUE(p.has_params);
  EXPECT_THAT(p.params,
              ElementsAre("int", "at::native::CUDAFunctor_add<float>", "std::array<char*, 3ul>"));
}

TEST(SplitFunctionName, KeepsLambdasAndAnonymousNamespacesWhole) {
  const std::string name =
      "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
      "(anonymous namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar "
      "const&)::{lambda()"
      "#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float, bool)#1}>(at::"
      "TensorIteratorBase&, at::native::(anonymous namespace)::masked_fill_kernel(at::"
      "TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#7}::"
      "operator()() const::{lambda(float, bool)#1} const&)::{lambda(int)#1}>(int, X)";
  const FunctionNameParts p = SplitFunctionName(name);
  EXPECT_EQ(p.base, "elementwise_kernel");
  ASSERT_EQ(p.template_args.size(), 3u);
  EXPECT_EQ(p.template_args[0], "128");
  EXPECT_TRUE(p.template_args[2].starts_with("at::native::gpu_kernel_impl_nocast<"));
  EXPECT_TRUE(p.template_args[2].ends_with("::{lambda(int)#1}"));
  EXPECT_THAT(p.params, ElementsAre("int", "X"));
}

TEST(SplitFunctionName, HandlesAnonymousNamespaceAtTheFront) {
  const FunctionNameParts p = SplitFunctionName(
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false>(float*, "
      "float const*, int, int, int)");
  EXPECT_EQ(p.return_type, "void");
  EXPECT_EQ(p.qualified, "(anonymous namespace)::softmax_warp_forward");
  EXPECT_EQ(p.base, "softmax_warp_forward");
  EXPECT_EQ(p.template_args.size(), 5u);
  EXPECT_THAT(p.params, ElementsAre("float*", "float const*", "int", "int", "int"));
}

TEST(SplitFunctionName, DropsTheRocmCloneSuffix) {
  const FunctionNameParts p = SplitFunctionName(
      "void at::native::vectorized_elementwise_kernel<16, at::native::FillFunctor<bool>, "
      "std::array<char*, 1ul> >(int, at::native::FillFunctor<bool>, std::array<char*, 1ul>) "
      "[clone .kd]");
  EXPECT_EQ(p.base, "vectorized_elementwise_kernel");
  EXPECT_EQ(p.params.size(), 3u);
}

TEST(SplitFunctionName, AcceptsNamesWithoutParametersOrTemplates) {
  FunctionNameParts p = SplitFunctionName("triton_red_fused_div_mm_21");
  EXPECT_EQ(p.base, "triton_red_fused_div_mm_21");
  EXPECT_FALSE(p.has_params);
  EXPECT_TRUE(p.template_args.empty());
  p = SplitFunctionName(
      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(p.base, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  EXPECT_THAT(p.params, ElementsAre("ncclDevKernelArgsStorage<4096ul>"));
  // A return type with templates and parentheses of its own.
  p = SplitFunctionName(
      "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, float>(int, float)");
  EXPECT_EQ(p.return_type, "std::enable_if<!(false), void>::type");
  EXPECT_EQ(p.qualified, "internal::gemvx::kernel");
}

TEST(SplitTopLevel, SplitsOnlyAtDepthZero) {
  EXPECT_THAT(SplitTopLevel("float, std::pair<int, int>, {lambda(float, float)#1}, f(a, b)"),
              ElementsAre("float", "std::pair<int, int>", "{lambda(float, float)#1}", "f(a, b)"));
  EXPECT_TRUE(SplitTopLevel("  ").empty());
  EXPECT_THAT(SplitTopLevel("x"), ElementsAre("x"));
}

TEST(ParseTemplateId, ReadsNameArgumentsAndRest) {
  auto id = ParseTemplateId("at::native::(anonymous namespace)::CompareFunctor<float>");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->name, "at::native::(anonymous namespace)::CompareFunctor");
  EXPECT_THAT(id->args, ElementsAre("float"));
  EXPECT_TRUE(id->rest.empty());

  id = ParseTemplateId(
      "at::native::pow_tensor_scalar_kernel_impl<float, float>(at::"
      "TensorIteratorBase&, float)::{lambda(float)#1}");
  ASSERT_TRUE(id.has_value());
  EXPECT_THAT(id->args, ElementsAre("float", "float"));
  EXPECT_EQ(id->rest, "(at::TensorIteratorBase&, float)::{lambda(float)#1}");

  // A function call before any template argument list: not a template-id.
  EXPECT_FALSE(ParseTemplateId("at::native::sin_kernel_cuda(at::TensorIteratorBase&)::{lambda("
                               "float)#1}")
                   .has_value());
  EXPECT_FALSE(ParseTemplateId("plain_name").has_value());
  EXPECT_FALSE(ParseTemplateId("broken<a, b").has_value());
}

TEST(LastComponent, IgnoresScopesInsideBrackets) {
  EXPECT_EQ(LastComponent("at::native::(anonymous namespace)::Foo"), "Foo");
  EXPECT_EQ(LastComponent("a::b<c::d>::e"), "e");
  EXPECT_EQ(LastComponent("Foo"), "Foo");
}

TEST(LastLambdaParams, ReadsTheInnermostLambda) {
  const auto params = LastLambdaParams(
      "at::native::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::operator()() const::{"
      "lambda()#11}::operator()() const::{lambda(bool, float, float)#1}");
  ASSERT_TRUE(params.has_value());
  EXPECT_THAT(*params, ElementsAre("bool", "float", "float"));
  const auto none = LastLambdaParams("f()::{lambda()#2}");
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(LastLambdaParams("at::native::FillFunctor<float>").has_value());
}

TEST(NormalizeDemangledName, RewritesNvidiaSpellings) {
  // [S29] as Nsight Systems printed it, and what GNU __cxa_demangle prints for the same kernel.
  EXPECT_EQ(NormalizeDemangledName(
                "void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_"
                "impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_"
                "internal::MulFunctor<float>>>(at::TensorIteratorBase &, const T1 &)::[lambda(int) "
                "(instance 1)]>(int, T3)"),
            "void at::native::elementwise_kernel<128, 2, void at::native::gpu_kernel_impl_nocast<"
            "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::"
            "MulFunctor<float>>>(at::TensorIteratorBase&, const T1&)::{lambda(int)#1}>(int, T3)");
  EXPECT_EQ(NormalizeDemangledName("std::array<char *, (unsigned long)3>"),
            "std::array<char*, 3ul>");
  EXPECT_EQ(NormalizeDemangledName("f<(bool)1, (bool)0, (long)-2>"), "f<true, false, -2l>");
  EXPECT_EQ(NormalizeDemangledName("at::native::<unnamed>::k()::[lambda() (instance 12)]::operator "
                                   "()() const"),
            "at::native::(anonymous namespace)::k()::{lambda()#12}::operator()() const");
  // GNU names, C names and text that only looks similar pass unchanged.
  for (const char* same : {"void at::native::vectorized_elementwise_kernel<4, at::native::"
                           "CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::"
                           "CUDAFunctor_add<float>, std::array<char*, 3ul>)",
                           "triton_poi_fused_add_0", "f(int)::{lambda(int)#1}", "[lambda(", "(int)",
                           "x [lambda(float) (instance )]", ""}) {
    EXPECT_EQ(NormalizeDemangledName(same), same);
  }
}

}  // namespace
}  // namespace flopspy::analyzers
