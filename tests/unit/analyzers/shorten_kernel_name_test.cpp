// ShortenKernelName (display_text.h) on names as CUPTI reports them: what is left tells rows
// apart (function, tile sizes, dtypes, functors), and nothing is wider than asked.
#include <gtest/gtest.h>

#include <string>

#include "flopspy/analyzers/display_text.h"

namespace flopspy::analyzers {
namespace {

constexpr char kAdd[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
constexpr char kGelu[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::"
    "operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, "
    "2ul> >(int, at::native::(anonymous namespace)::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(float)#1}, std::array<char*, 2ul>)";
constexpr char kMulUnrolled[] =
    "void at::native::unrolled_elementwise_kernel<at::native::BinaryFunctor<c10::BFloat16, "
    "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, "
    "std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, "
    "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, "
    "at::native::memory::StoreWithCast<1> >(int, at::native::BinaryFunctor<c10::BFloat16, "
    "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, "
    "std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, "
    "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, "
    "at::native::memory::StoreWithCast<1>)";
constexpr char kCutlass[] =
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
    "int>, "
    "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized"
    "<4, cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, "
    "cutlass::gemm::KernelTmaWarpSpecializedCooperative>, cute::tuple<cute::C<128>, cute::C<256>, "
    "cute::C<64> >, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>, cutlass::bfloat16_t> "
    "> >(cutlass::gemm::kernel::GemmUniversal<...>::Params)";
constexpr char kFlash[] =
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 64, 4, cutlass::bfloat16_t> >, true, "
    "false, false, false, true, true, false>(flash::Flash_fwd_params)";
constexpr char kCublas128[] =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_"
    "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";
constexpr char kCublas64[] =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64_"
    "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";

// Columns on a terminal: "…" is one.
size_t Columns(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

TEST(ShortenKernelName, DropsReturnTypeNamespacesParamsAndPlumbing) {
  EXPECT_EQ(ShortenKernelName(kAdd, 200),
            "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>>");
  EXPECT_EQ(ShortenKernelName(kMulUnrolled, 200),
            "unrolled_elementwise_kernel<BinaryFunctor<BFloat16, BFloat16, BFloat16, "
            "MulFunctor<float>>>");
}

TEST(ShortenKernelName, NamesALambdaByTheFunctionHoldingIt) {
  EXPECT_EQ(ShortenKernelName(kGelu, 200), "vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>");
}

TEST(ShortenKernelName, WritesNumberTemplatesAsTileSizes) {
  const std::string s = ShortenKernelName(kCutlass, 300);
  EXPECT_TRUE(s.starts_with("GemmUniversal<")) << s;
  EXPECT_NE(s.find("128x256x64"), std::string::npos) << s;
  EXPECT_NE(s.find("2x1x1"), std::string::npos) << s;
  EXPECT_NE(s.find("bfloat16_t"), std::string::npos) << s;
  EXPECT_EQ(s.find("cute"), std::string::npos) << s;
  EXPECT_EQ(s.find("Params"), std::string::npos) << s;
}

TEST(ShortenKernelName, KeepsFlashAttentionShapeAndFlags) {
  EXPECT_EQ(ShortenKernelName(kFlash, 200),
            "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, bfloat16_t, "
            "Flash_kernel_traits<128, 64, 64, 4, bfloat16_t>>, true, false, false, false, true, "
            "true, false>");
}

TEST(ShortenKernelName, LeavesShortCStyleNamesAlone) {
  EXPECT_EQ(ShortenKernelName("triton_poi_fused_add_mul_0", 40), "triton_poi_fused_add_mul_0");
  EXPECT_EQ(ShortenKernelName("ampere_sgemm_128x64_nn", 40), "ampere_sgemm_128x64_nn");
}

TEST(ShortenKernelName, CutNamesFitAndKeepTheTileSize) {
  for (const char* name : {kAdd, kGelu, kMulUnrolled, kCutlass, kFlash, kCublas128}) {
    for (size_t width : {16, 24, 40, 64}) {
      EXPECT_LE(Columns(ShortenKernelName(name, width)), width) << name << " @" << width;
    }
  }
  // Two cuBLAS kernels that differ only by tile size stay two rows when cut.
  const std::string a = ShortenKernelName(kCublas128, 40);
  const std::string b = ShortenKernelName(kCublas64, 40);
  EXPECT_NE(a, b);
  EXPECT_NE(a.find("128x256x64"), std::string::npos) << a;
  EXPECT_NE(b.find("64x128x64"), std::string::npos) << b;
  EXPECT_TRUE(a.starts_with("sm90_xmma_gemm")) << a;
}

TEST(ShortenKernelName, KeepsTheFunctorWhenCut) {
  // Too long with its dtypes: the functor stays, the dtypes beside it go.
  EXPECT_EQ(ShortenKernelName(kMulUnrolled, 64),
            "unrolled_elementwise_kernel<BinaryFunctor<MulFunctor<float>>>");
}

}  // namespace
}  // namespace flopspy::analyzers
