// The rollup's categories and the operation names of uncatalogued functors
// (analyzers/src/kernel_category.cpp).
#include <gtest/gtest.h>

#include <string>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

std::string CategoryOf(const std::string& name) {
  return std::string(KernelCategoryName(ClassifyKernel(name).category));
}

TEST(KernelCategory, NamesLibraryKernelsTheCatalogDoesNotModel) {
  EXPECT_EQ(CategoryOf("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_gelu"), "gemm");
  EXPECT_EQ(CategoryOf("ampere_sgemm_128x64_nn"), "gemm");
  EXPECT_EQ(CategoryOf("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, "
                       "4, false, false, cublasGemvParamsEx<int, float const*, float const*, "
                       "float*, float> >(float, float)"),
            "gemm");
  EXPECT_EQ(CategoryOf("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>("
                       "cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4::Params)"),
            "gemm");
  EXPECT_EQ(CategoryOf("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            "collective");
  EXPECT_EQ(CategoryOf("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, "
                       "4, false, false, cutlass::half_t> >(Flash_fwd_params)"),
            "attention");
  EXPECT_EQ(CategoryOf("fmha_cutlassF_f32_aligned_64x64_rf_sm80"), "attention");
  EXPECT_EQ(CategoryOf("triton_poi_fused_add_mul_0"), "triton");
  // Nothing to go on: unknown, never a guess.
  EXPECT_EQ(CategoryOf("my_custom_kernel(float*, int)"), "unknown");
  EXPECT_EQ(CategoryOf(""), "unknown");
}

TEST(KernelCategory, FollowsTheCatalogFamilies) {
  EXPECT_EQ(CategoryOf("void at::native::vectorized_elementwise_kernel<4, "
                       "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, "
                       "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"),
            "elementwise");
  EXPECT_EQ(CategoryOf("void at::native::vectorized_elementwise_kernel<4, "
                       "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
                       "at::native::FillFunctor<float>, std::array<char*, 1ul>)"),
            "copy");
  EXPECT_EQ(CategoryOf("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, "
                       "float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>("
                       "float*, float const*, int)"),
            "normalization");
  EXPECT_EQ(CategoryOf("void at::native::some_new_kernel<float>(float*, int)"), "other");
}

TEST(KernelCategory, EveryCategoryHasADistinctName) {
  for (int i = 0; i < kKernelCategoryCount; ++i) {
    for (int j = i + 1; j < kKernelCategoryCount; ++j) {
      EXPECT_NE(KernelCategoryName(static_cast<KernelCategory>(i)),
                KernelCategoryName(static_cast<KernelCategory>(j)));
    }
  }
}

TEST(FunctorOpName, KeepsTheNameOfAnUncataloguedFunctor) {
  EXPECT_EQ(FunctorOpName("at::native::GeluFunctor<float>"), "gelu");
  EXPECT_EQ(FunctorOpName("at::native::BinaryFunctor<float, float, float, "
                          "at::native::binary_internal::SubFunctor<float> >"),
            "sub");
  EXPECT_EQ(FunctorOpName("at::native::LogSigmoidFunctor<c10::Half>"), "log_sigmoid");
  EXPECT_EQ(FunctorOpName("at::native::CUDAFunctorOnSelf_add<float>"), "add");
  EXPECT_EQ(FunctorOpName("at::native::(anonymous namespace)::launch_log_sigmoid_forward_kernel("
                          "at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()"
                          "#3}::operator()() const::{lambda(float)#1}"),
            "log_sigmoid_forward");
  EXPECT_EQ(FunctorOpName("float"), "");
}

TEST(FunctorOpName, ClassificationShowsItEvenWithoutAModel) {
  const KernelClass kc = ClassifyKernel(
      "void at::native::vectorized_elementwise_kernel<4, at::native::GeluFunctor<float>, "
      "std::array<char*, 2ul> >(int, at::native::GeluFunctor<float>, std::array<char*, 2ul>)");
  EXPECT_EQ(kc.functor, "");  // the catalog has no model for it
  EXPECT_EQ(kc.op, "gelu");
  EXPECT_EQ(kc.category, KernelCategory::kElementwise);
  // A catalogued functor's op is its catalog name; an inductor kernel's, its kind and operations.
  EXPECT_EQ(ClassifyKernel("void at::native::vectorized_elementwise_kernel<4, "
                           "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, "
                           "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)")
                .op,
            "add");
  EXPECT_EQ(ClassifyKernel("triton_poi_fused_add_mul_0").op, "pointwise add+mul");
}

TEST(SplitFunctionName, NeverShortensToABracketOnly) {
  const FunctionNameParts p = SplitFunctionName("vectorized_elementwise_kernel [6]");
  EXPECT_EQ(p.base, "vectorized_elementwise_kernel [6]");
  EXPECT_EQ(p.return_type, "");
}

}  // namespace
}  // namespace flopspy::analyzers
