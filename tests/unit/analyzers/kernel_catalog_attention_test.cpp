// Attention kernels in the catalog (analyzers/src/kernel_catalog_attention*.cpp): names, shapes
// decoded from parameter structs built with the mirrors of attention_params.h, and FLOPs and bytes
// worked out by hand in the comments (docs/kernel-catalog.md, "Attention"). Names marked [S03],
// [S01], [S06] are in tests/data/kernel_names/corpus.tsv; [FA#420] is a mangled name printed by
// ptxas in Dao-AILab/flash-attention issue 420 (FlashAttention 2.0); [C] names were constructed
// from the published sources in the spelling of the real ones.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "attention_params.h"
#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

using attention_test::AttnFa2Of;
using attention_test::AttnShape;
using attention_test::Captured;
using attention_test::Fa2Params32;
using attention_test::Fa2Params64;
using attention_test::MemEffBwdParams;
using attention_test::MemEffFwdParams;
using attention_test::Zeroed;
using trace::FigureSource;

// [S03] upstream FlashAttention 2.6+: bf16, head-dim bucket 128, Is_dropout false, Is_causal
// false, Is_local false.
constexpr char kAttnFa2Fwd[] =
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
    "false, false, false, false, true, false, false>(flash::Flash_fwd_params)";
// [C] PyTorch's copy, causal: bucket 64, Is_dropout false, Is_causal true.
constexpr char kAttnPtFwdCausal[] =
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 64, 4, "
    "false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 64, 4, "
    "cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>("
    "pytorch_flash::Flash_fwd_params)";
// [C] as kAttnFa2Fwd with Is_local true.
constexpr char kAttnFa2FwdLocal[] =
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
    "false, true, false, false, true, false, false>(flash::Flash_fwd_params)";
// [FA#420] FlashAttention 2.0 backward: fp16, bucket 128, Is_dropout true, Is_causal false.
constexpr char kAttnFa20Bwd[] =
    "_Z44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI23Flash_bwd_kernel_"
    "traitsILi128ELi64ELi128ELi8"
    "ELi2ELi4ELi2ELb0ELb0EN7cutlass6half_tE19Flash_kernel_traitsILi128ELi64ELi128ELi8ES2_EELb1ELb0E"
    "Lb0ELb0EEv16Flash_bwd_params";
constexpr char kAttnFa20DotDoO[] =
    "_Z25flash_bwd_dot_do_o_kernelILb1E23Flash_bwd_kernel_"
    "traitsILi128ELi64ELi64ELi8ELi4ELi2ELi2ELb1"
    "ELb0EN7cutlass6half_tE19Flash_kernel_traitsILi128ELi64ELi64ELi8ES2_EEEv16Flash_bwd_params";
constexpr char kAttnFa20ConvertDq[] =
    "_Z27flash_bwd_convert_dq_kernelI23Flash_bwd_kernel_"
    "traitsILi128ELi64ELi128ELi8ELi2ELi4ELi2ELb0E"
    "Lb0EN7cutlass6half_tE19Flash_kernel_traitsILi128ELi64ELi128ELi8ES2_EEEv16Flash_bwd_params";
// [C] PyTorch's split-KV forward (fp16, Is_causal true, Split true) and its combine kernel.
constexpr char kAttnPtSplitKv[] =
    "void pytorch_flash::flash_fwd_splitkv_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 64, "
    "128, 4, false, false, cutlass::half_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 4, "
    "cutlass::half_t> >, true, false, false, true, true, false, true, false>("
    "pytorch_flash::Flash_fwd_params)";
constexpr char kAttnPtSplitKvCombine[] =
    "void pytorch_flash::flash_fwd_splitkv_combine_kernel<pytorch_flash::Flash_fwd_kernel_traits<"
    "128, 64, 128, 4, false, false, cutlass::half_t, pytorch_flash::Flash_kernel_traits<128, 64, "
    "128, 4, cutlass::half_t> >, 4, 1, true>(pytorch_flash::Flash_fwd_params)";
// [C] the same split-KV kernel from upstream flash-attention (flash_attn_with_kvcache).
constexpr char kAttnFa2SplitKv[] =
    "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
    "cutlass::half_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::half_t> >, true, false, false, "
    "true, true, false, true, false>(flash::Flash_fwd_params)";
// [S01] / [S06] memory-efficient attention, float, 64 queries per block, kMaxK 64 / 32.
constexpr char kAttnMemEffFwd[] =
    "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
    "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)";
constexpr char kAttnMemEffBwd[] =
    "fmha_cutlassB_f32_aligned_64x64_k32_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<"
    "cutlass::arch::Sm80, float, true, false, false, 64, 64, 32, false>::Params)";
// Seen in a profiler table (names without their parameter list): bf16.
constexpr char kAttnMemEffFwdBf16[] = "fmha_cutlassF_bf16_aligned_64x128_rf_sm80";
// Seen in public trace tables: FlashAttention 3 (cut where the tables cut it) and cuDNN SDPA.
constexpr char kAttnFa3Fwd[] =
    "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
    "flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, "
    "cute::tuple<cute::C<64>, cute::C<128>, cute::C<128> >, 128, cutlass::bfloat16_t, float, "
    "cutlass::arch::Sm90, true, false, false, true, true, false, false, true, true, true, true, "
    "false, cutlass::bfloat16_t, 1>, flash::CollectiveEpilogueFwd<cute::tuple<cute::C<64>, "
    "cute::C<128>, cute::C<128> >, cute::tuple<cute::C";
constexpr char kAttnCudnnFprop[] = "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16";
constexpr char kAttnCudnnBprop[] = "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16";

Fa2Params32 AttnFa2Of32(const AttnShape& s) {
  return attention_test::AttnFa2ParamsOf<Fa2Params32>(s);
}

KernelEstimate AttnEstimate(const char* name, const std::vector<uint8_t>& bytes, Dim3 grid = {}) {
  LaunchFacts launch;
  launch.params = bytes;
  launch.grid = grid;
  return EstimateKernel(name, launch);
}

// --- Names --------------------------------------------------------------------------------------

TEST(AttentionNames, FlashAttention2FlagsTypesAndPasses) {
  const KernelClass fwd = ClassifyKernel(kAttnFa2Fwd);
  EXPECT_EQ(fwd.family, KernelFamily::kAttention);
  EXPECT_EQ(KernelFamilyName(fwd.family), "attention");
  EXPECT_EQ(fwd.category, KernelCategory::kAttention);
  EXPECT_EQ(fwd.functor, "attention_forward");
  EXPECT_EQ(fwd.model, KernelModel::kFlashAttention2);
  EXPECT_EQ(fwd.attention.pass, AttentionPass::kForward);
  EXPECT_EQ(fwd.attention.library, "flash_attention_2");
  EXPECT_EQ(fwd.attention.causal, false);
  EXPECT_EQ(fwd.attention.dropout, false);
  EXPECT_EQ(fwd.attention.head_dim_bucket, 128);
  EXPECT_EQ(fwd.input_types, std::vector<DataType>{DataType::kBFloat16});
  EXPECT_EQ(fwd.path, ComputePath::kBf16Tensor);

  const KernelClass causal = ClassifyKernel(kAttnPtFwdCausal);
  EXPECT_EQ(causal.attention.library, "pytorch_flash");
  EXPECT_EQ(causal.attention.causal, true);
  EXPECT_EQ(causal.attention.head_dim_bucket, 64);

  // Mangled FlashAttention 2.0 names (CUPTI's spelling): demangled first.
  const KernelClass bwd = ClassifyKernel(kAttnFa20Bwd);
  EXPECT_EQ(bwd.family, KernelFamily::kAttention);
  EXPECT_EQ(bwd.attention.pass, AttentionPass::kBackward);
  EXPECT_EQ(bwd.attention.dropout, true);
  EXPECT_EQ(bwd.attention.causal, false);
  EXPECT_EQ(bwd.path, ComputePath::kFp16Tensor);
  EXPECT_EQ(ClassifyKernel(kAttnFa20DotDoO).attention.pass, AttentionPass::kBackwardDotDoO);
  EXPECT_EQ(ClassifyKernel(kAttnFa20ConvertDq).attention.pass, AttentionPass::kBackwardConvertDq);
  EXPECT_EQ(ClassifyKernel(kAttnPtSplitKvCombine).attention.pass, AttentionPass::kSplitKvCombine);
  EXPECT_TRUE(ClassifyKernel(kAttnPtSplitKv).attention.split_kv);
  EXPECT_EQ(ClassifyKernel(kAttnPtSplitKv).attention.causal, true);

  // Sliding-window attention: the window sizes are not captured, so no figures are promised.
  const KernelClass local = ClassifyKernel(kAttnFa2FwdLocal);
  EXPECT_TRUE(local.attention.local);
  EXPECT_EQ(local.model, KernelModel::kNone);
  EXPECT_NE(local.reason.find("sliding-window"), std::string::npos);
}

TEST(AttentionNames, MemoryEfficientFlashAttention3AndCudnn) {
  const KernelClass f = ClassifyKernel(kAttnMemEffFwd);
  EXPECT_EQ(f.family, KernelFamily::kAttention);
  EXPECT_EQ(f.model, KernelModel::kMemEffAttention);
  EXPECT_EQ(f.attention.pass, AttentionPass::kForward);
  EXPECT_EQ(f.attention.queries_per_block, 64);
  EXPECT_EQ(f.attention.head_dim_bucket, 64);
  EXPECT_EQ(f.input_types, std::vector<DataType>{DataType::kFloat32});
  EXPECT_EQ(f.path, ComputePath::kFp32);
  const KernelClass b = ClassifyKernel(kAttnMemEffBwd);
  EXPECT_EQ(b.attention.pass, AttentionPass::kBackward);
  EXPECT_EQ(b.attention.head_dim_bucket, 32);
  EXPECT_EQ(b.attention.dropout, false);
  EXPECT_EQ(ClassifyKernel("fmha_cutlassB_f16_aligned_64x64_k64_dropout_sm80").attention.dropout,
            true);
  EXPECT_EQ(ClassifyKernel(kAttnMemEffFwdBf16).input_types,
            std::vector<DataType>{DataType::kBFloat16});

  // Named only: the figures stay unknown, with the reason.
  const KernelClass fa3 = ClassifyKernel(kAttnFa3Fwd);
  EXPECT_EQ(fa3.family, KernelFamily::kAttention);
  EXPECT_EQ(fa3.category, KernelCategory::kAttention);
  EXPECT_EQ(fa3.attention.library, "flash_attention_3");
  EXPECT_EQ(fa3.attention.pass, AttentionPass::kForward);
  EXPECT_EQ(fa3.model, KernelModel::kNone);
  EXPECT_NE(fa3.reason.find("FlashAttention 3"), std::string::npos);
  const KernelClass fprop = ClassifyKernel(kAttnCudnnFprop);
  EXPECT_EQ(fprop.attention.library, "cudnn");
  EXPECT_EQ(fprop.attention.pass, AttentionPass::kForward);
  EXPECT_EQ(fprop.input_types, std::vector<DataType>{DataType::kFloat16});
  EXPECT_EQ(ClassifyKernel(kAttnCudnnBprop).attention.pass, AttentionPass::kBackward);
  EXPECT_EQ(ParamBytesWanted(fa3), 0);
  EXPECT_EQ(ParamBytesWanted(fprop), 0);
}

TEST(AttentionNames, AskForTheBytesTheirLayoutsNeed) {
  // FlashAttention 2: up to d_rounded of the 2.2+ layout (204 + 4); memory-efficient forward: up
  // to use_dropout (208 + 1); backward: up to gO_strideM (208 + 8).
  EXPECT_EQ(ParamBytesWanted(kAttnFa2Fwd), 208);
  EXPECT_EQ(ParamBytesWanted(kAttnFa20ConvertDq), 208);
  EXPECT_EQ(ParamBytesWanted(kAttnMemEffFwd), 209);
  EXPECT_EQ(ParamBytesWanted(kAttnMemEffBwd), 216);
}

// --- FlashAttention 2 figures -------------------------------------------------------------------

TEST(AttentionFigures, PlainForward) {
  // b 2, h 16, s 1024, d 128, bf16. FLOPs 4 b h s^2 d = 4 x 2 x 16 x 1024^2 x 128 =
  // 17,179,869,184. Bytes: Q, K, V, O of 2 x 16 x 1024 x 128 = 4,194,304 elements x 2 bytes x 4
  // = 33,554,432, plus the float LSE 2 x 16 x 1024 x 4 = 131,072: 33,685,504.
  const auto bytes = Captured(AttnFa2Of({2, 16, 16, 1024, 1024, 128}));
  const KernelEstimate e = AttnEstimate(kAttnFa2Fwd, bytes);
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_EQ(e.bytes_source, FigureSource::kCatalog);
  EXPECT_DOUBLE_EQ(e.flops, 17179869184.0);
  EXPECT_DOUBLE_EQ(e.bytes, 33685504.0);
  EXPECT_EQ(e.confidence, Confidence::kHigh);
  EXPECT_EQ(e.path, ComputePath::kBf16Tensor);
  EXPECT_EQ(e.shape_key, "b=2,h=16,h_k=16,s_q=1024,s_k=1024,d=128,causal=0");
  EXPECT_NE(e.reason.find("softmax not counted"), std::string::npos);
}

TEST(AttentionFigures, CausalSquare) {
  // s_q = s_k = 1024: row i sees i + 1 keys, 1024 x 1025 / 2 = 524,800 pairs per head (half the
  // square plus the diagonal). FLOPs 2 b h pairs (d + d) = 2 x 2 x 16 x 524,800 x 128 =
  // 4,299,161,600: FlopCounterMode's 4 b h s^2 d = 8,589,934,592 halved, times 1025 / 1024.
  // Bytes do not shrink: 2 x 16 x 1024 x 64 x 2 bytes x 4 + 131,072 = 16,908,288.
  const auto bytes = Captured(AttnFa2Of({2, 16, 16, 1024, 1024, 64}));
  const KernelEstimate e = AttnEstimate(kAttnPtFwdCausal, bytes);
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 4299161600.0);
  EXPECT_DOUBLE_EQ(e.bytes, 16908288.0);
  EXPECT_EQ(e.shape_key, "b=2,h=16,h_k=16,s_q=1024,s_k=1024,d=64,causal=bottom_right");
  EXPECT_NE(e.reason.find("524800 of 1048576"), std::string::npos) << e.reason;
}

TEST(AttentionFigures, CausalRectangularIsBottomRightAligned) {
  // FlashAttention >= 2.1 aligns the mask to the bottom-right corner: query i sees keys
  // j <= i + s_k - s_q. s_q 256, s_k 1024: 256 x 768 + 256 x 257 / 2 = 229,504 pairs; FLOPs
  // 2 x 1 x 8 x 229,504 x 128 = 470,024,192.
  const KernelEstimate wide =
      AttnEstimate(kAttnPtFwdCausal, Captured(AttnFa2Of({1, 8, 8, 256, 1024, 64})));
  ASSERT_EQ(wide.source, FigureSource::kCatalog) << wide.reason;
  EXPECT_DOUBLE_EQ(wide.flops, 470024192.0);
  // s_q 1024, s_k 256: the first 768 queries see no key; the last 256 see 1..256: 32,896 pairs;
  // FLOPs 2 x 8 x 32,896 x 128 = 67,371,008.
  const KernelEstimate tall =
      AttnEstimate(kAttnPtFwdCausal, Captured(AttnFa2Of({1, 8, 8, 1024, 256, 64})));
  ASSERT_EQ(tall.source, FigureSource::kCatalog) << tall.reason;
  EXPECT_DOUBLE_EQ(tall.flops, 67371008.0);
}

TEST(AttentionFigures, GroupedQueryAttention) {
  // h 32 query heads on h_k 8 key/value heads, b 1, s 512, d 128. FLOPs follow the query heads:
  // 4 x 32 x 512^2 x 128 = 4,294,967,296. Bytes: Q and O 32 x 512 x 128 = 2,097,152 elements
  // each, K and V 8 x 512 x 128 = 524,288 each: (2 x 2,097,152 + 2 x 524,288) x 2 = 10,485,760,
  // plus LSE 32 x 512 x 4 = 65,536: 10,551,296.
  const KernelEstimate e =
      AttnEstimate(kAttnFa2Fwd, Captured(AttnFa2Of({1, 32, 8, 512, 512, 128})));
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 4294967296.0);
  EXPECT_DOUBLE_EQ(e.bytes, 10551296.0);
  EXPECT_EQ(e.shape_key, "b=1,h=32,h_k=8,s_q=512,s_k=512,d=128,causal=0");
}

TEST(AttentionFigures, BackwardOnTheMainKernelInThe20Layout) {
  // FlashAttention 2.0 (32-bit strides). b 4, h 8, s 512, d 128, fp16, dropout. Five products:
  // 2 b h s^2 (3d + 2d) = 10 x 4 x 8 x 512^2 x 128 = 10,737,418,240 = 2.5 x the forward.
  // Bytes: Q, K, V, O, dO, dQ, dK, dV of 4 x 8 x 512 x 128 = 2,097,152 elements x 2 bytes x 8
  // = 33,554,432, plus LSE 4 x 8 x 512 x 4 = 65,536: 33,619,968.
  const auto bytes = Captured(AttnFa2Of32({4, 8, 8, 512, 512, 128}));
  const KernelEstimate e = AttnEstimate(kAttnFa20Bwd, bytes);
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 10737418240.0);
  EXPECT_DOUBLE_EQ(e.bytes, 33619968.0);
  EXPECT_EQ(e.path, ComputePath::kFp16Tensor);
  EXPECT_EQ(e.shape_key, "b=4,h=8,h_k=8,s_q=512,s_k=512,d=128,causal=0,dropout=1");
  EXPECT_NE(e.reason.find("2.0"), std::string::npos) << e.reason;

  // The helpers: 0 FLOPs (catalog) and what they stream. dot_do_o reads dO and O and writes a
  // float per row: 2 x 2,097,152 x 2 + 65,536 = 8,454,144. convert_dq reads the float
  // accumulator and writes dQ: 2,097,152 x (4 + 2) = 12,582,912.
  const KernelEstimate dot = AttnEstimate(kAttnFa20DotDoO, bytes);
  ASSERT_EQ(dot.source, FigureSource::kCatalog) << dot.reason;
  EXPECT_EQ(dot.flops, 0);
  EXPECT_DOUBLE_EQ(dot.bytes, 8454144.0);
  const KernelEstimate convert = AttnEstimate(kAttnFa20ConvertDq, bytes);
  ASSERT_EQ(convert.source, FigureSource::kCatalog) << convert.reason;
  EXPECT_EQ(convert.flops, 0);
  EXPECT_DOUBLE_EQ(convert.bytes, 12582912.0);
}

TEST(AttentionFigures, CausalInThe20LayoutIsTopLeftAligned) {
  // FlashAttention 2.0 aligned the causal mask to the top-left corner: s_q 256, s_k 1024 gives
  // query i the keys j <= i: 256 x 257 / 2 = 32,896 pairs. A 2.0 forward name with Is_causal
  // set ([C], the 2.0 template: Traits, Is_dropout, Is_causal, Is_even_N, Is_even_K,
  // Return_softmax). FLOPs 2 x 8 x 32,896 x 128 = 67,371,008.
  constexpr char k20Causal[] =
      "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, "
      "4, false, false, cutlass::half_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, "
      "cutlass::half_t> >, false, true, true, true, false>(pytorch_flash::Flash_fwd_params)";
  const KernelEstimate e = AttnEstimate(k20Causal, Captured(AttnFa2Of32({1, 8, 8, 256, 1024, 64})));
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 67371008.0);
  EXPECT_NE(e.shape_key.find("causal=top_left"), std::string::npos);
}

TEST(AttentionFigures, SplitKvKernelGetsTheFiguresAndTheCombineNone) {
  // Decoding: b 1, h 16, s_q 1, s_k 4096, d 128, fp16, causal (bottom-right: the one query sees
  // every key). FLOPs 2 x 16 x 4096 x 256 = 33,554,432. Bytes: Q and O 16 x 128 = 2,048
  // elements each, K and V 16 x 4096 x 128 = 8,388,608 each, x 2 bytes = 33,562,624, plus
  // LSE 16 x 4 = 64: 33,562,688.
  const auto bytes = Captured(AttnFa2Of({1, 16, 16, 1, 4096, 128}));
  const KernelEstimate split = AttnEstimate(kAttnPtSplitKv, bytes);
  ASSERT_EQ(split.source, FigureSource::kCatalog) << split.reason;
  EXPECT_DOUBLE_EQ(split.flops, 33554432.0);
  EXPECT_DOUBLE_EQ(split.bytes, 33562688.0);
  EXPECT_EQ(split.confidence, Confidence::kHigh);
  // Outside PyTorch the kernel serves KV caches, whose seqlen_k is a capacity: low confidence.
  const KernelEstimate upstream = AttnEstimate(kAttnFa2SplitKv, bytes);
  EXPECT_EQ(upstream.source, FigureSource::kCatalog);
  EXPECT_EQ(upstream.confidence, Confidence::kLow);
  EXPECT_NE(upstream.reason.find("upper bound"), std::string::npos);
  // The combine kernel: 0 FLOPs from the catalog, bytes unknown (the split count is not
  // captured).
  const KernelEstimate combine = AttnEstimate(kAttnPtSplitKvCombine, bytes);
  EXPECT_EQ(combine.source, FigureSource::kCatalog) << combine.reason;
  EXPECT_EQ(combine.flops, 0);
  EXPECT_EQ(combine.bytes_source, FigureSource::kUnknown);
}

// --- Memory-efficient attention -----------------------------------------------------------------

// Bytes from a hex string (a dump of recorded launch parameters).
std::vector<uint8_t> AttnBytesOfHex(std::string_view hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

MemEffFwdParams AttnMemEffFwdOf(int b, int h, int s_q, int s_k, int d, uint8_t mask) {
  auto p = Zeroed<MemEffFwdParams>();
  p.logsumexp_ptr = reinterpret_cast<float*>(uintptr_t{0x7f0000001000});
  p.scale = 0.125f;
  p.head_dim = p.head_dim_value = d;
  p.num_queries = s_q;
  p.num_keys = p.num_keys_absolute = s_k;
  p.custom_mask_type = mask;
  p.q_strideM = p.k_strideM = p.v_strideM = p.o_strideM = h * d;
  p.q_strideH = p.k_strideH = p.v_strideH = d;
  p.q_strideB = int64_t{s_q} * h * d;
  p.k_strideB = p.v_strideB = int64_t{s_k} * h * d;
  p.num_batches = b;
  p.num_heads = h;
  return p;
}

TEST(AttentionFigures, MemoryEfficientForward) {
  // Float, b 2, h 8, s 300, d 64; grid (ceil(300 / 64) = 5, 8, 2). FLOPs 4 x 2 x 8 x 300^2 x 64
  // = 368,640,000. Bytes: 2 x 8 x 300 x 64 = 307,200 elements x 4 bytes x 4 = 4,915,200, plus
  // LSE 2 x 8 x 300 x 4 = 19,200: 4,934,400.
  const auto bytes = Captured(AttnMemEffFwdOf(2, 8, 300, 300, 64, 0));
  const KernelEstimate e = AttnEstimate(kAttnMemEffFwd, bytes, {5, 8, 2});
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 368640000.0);
  EXPECT_DOUBLE_EQ(e.bytes, 4934400.0);
  EXPECT_EQ(e.path, ComputePath::kFp32);
  // The grid must agree with the struct: another batch count is another layout, not believed.
  const KernelEstimate off = AttnEstimate(kAttnMemEffFwd, bytes, {5, 8, 3});
  EXPECT_EQ(off.source, FigureSource::kUnknown);
  EXPECT_NE(off.reason.find("unknown parameter layout"), std::string::npos) << off.reason;
}

// The bytes PyTorch 2.11 passed to its memory-efficient forward on an H200 (2026-11-28, run 9 of
// docs/validation.md): bf16, b 4, h 16, d 64, s 768 (grid 12, 16, 4) and, causal from the top
// left, s 896 (grid 14, 16, 4). Its Params layout is not the 2.2 one (fields from logsumexp on
// sit 4 or 8 bytes earlier). FLOPs 2 x 4 x 16 x 768^2 x 128 = 9,663,676,416, flop_counter's;
// causal: 896 x 897 / 2 = 401,856 pairs, 2 x 4 x 16 x 401,856 x 128 = 6,584,008,704.
TEST(AttentionFigures, MemoryEfficientForwardOfPyTorch211AsRecorded) {
  constexpr char kName[] =
      "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
      "cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)";
  const std::vector<uint8_t> plain = AttnBytesOfHex(
      "000000db907f0000000800db907f0000001000db907f00000000000000000000"
      "00000000000000000000000000000000000000000000000000000000937f0000"
      "0000808a907f000000000000000000000028f3eb907f0000000000000000003e"
      "4000000040000000000300000003000000000000007f0000000c0000000c0000"
      "000c000000000000000400004000000040000000400000000000000000000000"
      "0000240000000000000024000000000000002400000000000000000000000000"
      "0400000010000000000000000000000000");
  const KernelEstimate e = AttnEstimate(kName, plain, {12, 16, 4});
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 9663676416.0);
  EXPECT_EQ(e.shape_key, "b=4,h=16,h_k=16,s_q=768,s_k=768,d=64,causal=0");
  EXPECT_NE(e.reason.find("PyTorch 2.11"), std::string::npos) << e.reason;
  const std::vector<uint8_t> causal = AttnBytesOfHex(
      "0000c0e4907f00000008c0e4907f00000010c0e4907f00000000000000000000"
      "00000000000000000000000000000000000000000000000000000000937f0000"
      "000000de907f000000000000000000000028f3eb907f0000000000000000003e"
      "4000000040000000800300008003000000000000017f0000000c0000000c0000"
      "000c000000000000000400004000000040000000400000000000000000000000"
      "00002a000000000000002a000000000000002a00000000000000000000000000"
      "0400000010000000000000000000000000");
  const KernelEstimate c = AttnEstimate(kName, causal, {14, 16, 4});
  ASSERT_EQ(c.source, FigureSource::kCatalog) << c.reason;
  EXPECT_DOUBLE_EQ(c.flops, 6584008704.0);
  EXPECT_NE(c.shape_key.find("causal=top_left"), std::string::npos);
  // One batch more in the grid than in the struct: no layout believes it.
  EXPECT_EQ(AttnEstimate(kName, plain, {12, 16, 5}).source, FigureSource::kUnknown);
}

TEST(AttentionFigures, MemoryEfficientCausalFromTopLeft) {
  // custom_mask_type 1 (CausalFromTopLeft), s_q 1024, s_k 256: rows 0..255 see i + 1 keys
  // (32,896), rows 256..1023 all 256 (196,608): 229,504 pairs. bf16, b 1, h 4, d 64, grid
  // (16, 4, 1): FLOPs 2 x 4 x 229,504 x 128 = 235,012,096.
  const KernelEstimate e = AttnEstimate(
      kAttnMemEffFwdBf16, Captured(AttnMemEffFwdOf(1, 4, 1024, 256, 64, 1)), {16, 4, 1});
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 235012096.0);
  EXPECT_NE(e.shape_key.find("causal=top_left"), std::string::npos);
}

TEST(AttentionFigures, MemoryEfficientBackward) {
  // Float, b 3 (grid.z), h 4 (grid.y), s 128, d 32, CausalFromBottomRight: 128 x 129 / 2 = 8,256
  // pairs. FLOPs 2 x 3 x 4 x 8,256 x (3 x 32 + 2 x 32) = 31,703,040. Bytes: 3 x 4 x 128 x 32 =
  // 49,152 elements x 4 bytes x 8 tensors = 1,572,864, plus LSE 3 x 4 x 128 x 4 = 6,144:
  // 1,579,008.
  auto p = Zeroed<MemEffBwdParams>();
  p.scale = 0.17f;
  p.head_dim = p.head_dim_value = 32;
  p.num_queries = p.num_keys = 128;
  p.num_heads = 4;
  p.q_heads_per_kv = 1;
  p.custom_mask_type = 2;
  p.q_strideM = p.k_strideM = p.v_strideM = p.gO_strideM = 4 * 32;
  const KernelEstimate e = AttnEstimate(kAttnMemEffBwd, Captured(p), {1, 4, 3});
  ASSERT_EQ(e.source, FigureSource::kCatalog) << e.reason;
  EXPECT_DOUBLE_EQ(e.flops, 31703040.0);
  EXPECT_DOUBLE_EQ(e.bytes, 1579008.0);
  EXPECT_EQ(e.shape_key, "b=3,h=4,h_k=4,s_q=128,s_k=128,d=32,causal=bottom_right");
}

// --- What stays unknown -------------------------------------------------------------------------

TEST(AttentionUnknown, GarbageBytesAreAnUnknownLayout) {
  std::vector<uint8_t> noise(255);
  uint32_t state = 7;
  for (uint8_t& byte : noise) {
    state = state * 1664525u + 1013904223u;
    byte = static_cast<uint8_t>(state >> 24);
  }
  for (const char* name : {kAttnFa2Fwd, kAttnFa20Bwd, kAttnMemEffFwd, kAttnMemEffBwd}) {
    const KernelEstimate e = AttnEstimate(name, noise, {4, 4, 4});
    EXPECT_EQ(e.source, FigureSource::kUnknown) << name;
    EXPECT_EQ(e.bytes_source, FigureSource::kUnknown);
    EXPECT_NE(e.reason.find("unknown parameter layout"), std::string::npos) << e.reason;
    EXPECT_TRUE(e.shape_key.empty());
  }
  // A plausible struct whose head counts disagree (h not a multiple of h_k) is refused too.
  auto p = AttnFa2Of({2, 16, 16, 1024, 1024, 128});
  p.h_k = 6;
  const KernelEstimate e = AttnEstimate(kAttnFa2Fwd, Captured(p));
  EXPECT_EQ(e.source, FigureSource::kUnknown);
  EXPECT_NE(e.reason.find("head counts"), std::string::npos) << e.reason;
}

TEST(AttentionUnknown, TruncatedParameterBytesSaySoAndAreNeverReadShort) {
  // The first launches of a kernel keep the default 20 bytes until the flusher has classified it;
  // 207 bytes would still reach the 2.0 layout's fields, but a short capture is never decoded.
  const auto p = AttnFa2Of({2, 16, 16, 1024, 1024, 128});
  for (size_t n : {size_t{0}, size_t{20}, size_t{160}, size_t{207}}) {
    const KernelEstimate e = AttnEstimate(kAttnFa2Fwd, Captured(p, n));
    EXPECT_EQ(e.source, FigureSource::kUnknown);
    EXPECT_NE(e.reason.find("needs 208 bytes, have " + std::to_string(n)), std::string::npos)
        << e.reason;
  }
  EXPECT_EQ(AttnEstimate(kAttnFa2Fwd, Captured(p, 208)).source, FigureSource::kCatalog);
}

TEST(AttentionUnknown, VariableLengthBatchesAreNotGuessed) {
  // mha_varlen_fwd leaves the batch strides 0 and passes b x max_seqlen: only a bound.
  auto p = AttnFa2Of({4, 16, 16, 1024, 1024, 128});
  p.q_batch_stride = p.k_batch_stride = p.v_batch_stride = 0;
  const KernelEstimate e = AttnEstimate(kAttnFa2Fwd, Captured(p));
  EXPECT_EQ(e.source, FigureSource::kUnknown);
  EXPECT_NE(e.reason.find("variable-length"), std::string::npos) << e.reason;
  // The 2.0 layout says it with cu_seqlens_q; the memory-efficient kernels with seqstart_q.
  auto p32 = AttnFa2Of32({4, 8, 8, 512, 512, 128});
  p32.cu_seqlens_q = reinterpret_cast<int*>(uintptr_t{0x7f0000002000});
  EXPECT_EQ(AttnEstimate(kAttnFa20Bwd, Captured(p32)).source, FigureSource::kUnknown);
  auto m = AttnMemEffFwdOf(2, 8, 300, 300, 64, 0);
  m.seqstart_q_ptr = reinterpret_cast<int32_t*>(uintptr_t{0x7f0000003000});
  EXPECT_EQ(AttnEstimate(kAttnMemEffFwd, Captured(m), {5, 8, 2}).source, FigureSource::kUnknown);
}

TEST(AttentionUnknown, ACapturedLayoutTooSmallForTheStructIsRefused) {
  // cuFuncGetParamInfo says parameter 0 is 16 bytes: not a Flash_fwd_params.
  const auto bytes = Captured(AttnFa2Of({2, 16, 16, 1024, 1024, 128}));
  LaunchFacts launch;
  launch.params = bytes;
  launch.layout.count = 1;
  launch.layout.slots[0] = {0, 16};
  const KernelEstimate e = EstimateKernel(kAttnFa2Fwd, launch);
  EXPECT_EQ(e.source, FigureSource::kUnknown);
  launch.layout.slots[0] = {0, 600};
  EXPECT_EQ(EstimateKernel(kAttnFa2Fwd, launch).source, FigureSource::kCatalog);
}

}  // namespace
}  // namespace flopspy::analyzers
