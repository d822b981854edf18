// The parameter structs attention kernels take by value, one table row per layout version, each
// with the sanity checks that must pass before its fields are believed. The first row that
// passes wins; when none does, the figures stay unknown ("unknown parameter layout"): a wrong
// row would give wrong figures, so no row is ever guessed.
//
// Offsets follow the C++ layout of the structs (natural alignment; a derived struct's members
// start after its base). Sources, as published:
//  - FlashAttention 2 Flash_fwd_params / Flash_bwd_params (csrc/flash_attn/src/flash.h, and
//    aten/src/ATen/native/transformers/cuda/flash_attn/flash.h in PyTorch). Flash_bwd_params
//    derives from Flash_fwd_params, so the fields read here sit at the same offsets in both.
//  - PyTorch's memory-efficient attention AttentionKernel<...>::Params and
//    AttentionBackwardKernel<...>::Params (aten/src/ATen/native/transformers/cuda/
//    mem_eff_attention/kernel_forward.h, kernel_backward.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernel_catalog_attention.h"
#include "kernel_catalog_internal.h"

namespace flopspy::analyzers::catalog_detail {
namespace {

constexpr int64_t kAttnMaxBatch = int64_t{1} << 24;
constexpr int64_t kAttnMaxSeq = int64_t{1} << 26;
constexpr int64_t kAttnMaxHeads = 1 << 16;
constexpr int64_t kAttnMaxHeadDim = 1024;
constexpr int64_t kAttnMaxStride = int64_t{1} << 44;

// FlashAttention 2. Fields: q/k/v batch, row and head strides (in that order, 9 values), then
// h, h_k, h_h_k_ratio; later b, seqlen_q, seqlen_k, [seqlen_knew,] d, seqlen_q_rounded,
// seqlen_k_rounded, d_rounded.
struct Fa2Layout {
  std::string_view name;
  int stride_bytes;      // index_t: int64_t (8) or uint32_t (4)
  int heads_at;          // h
  int dims_at;           // b
  bool has_seqlen_knew;  // seqlen_knew between seqlen_k and d
  int cu_seqlens_q_at;   // -1: a variable-length batch shows as batch strides of 0
  bool bottom_right;     // Is_causal aligns the mask to the bottom-right corner (2.1 and later)
};

constexpr int kFa2StridesAt = 24;  // after q_ptr, k_ptr, v_ptr

constexpr Fa2Layout kFa2Layouts[] = {
    // 2.2 and later (split-KV and KV-cache fields: oaccum_ptr, softmax_lseaccum_ptr, seqlen_knew,
    // rotary_dim, ...), upstream and PyTorch 2.2 on. set_params_fprop leaves the batch strides 0
    // for a variable-length batch.
    {"flash-attention 2.2+ (64-bit strides)", 8, 96, 176, true, -1, true},
    // 2.0 as vendored in PyTorch 2.1: 32-bit strides, no split-KV fields.
    {"flash-attention 2.0 (32-bit strides, PyTorch 2.1)", 4, 60, 112, false, 152, false},
};

int Fa2LayoutEnd(const Fa2Layout& l) {
  const int dims_end = l.dims_at + 4 * (l.has_seqlen_knew ? 8 : 7);
  return std::max(dims_end, l.cu_seqlens_q_at < 0 ? 0 : l.cu_seqlens_q_at + 8);
}

std::optional<int64_t> AttnInt(const LaunchFacts& launch, int at, int size = 4) {
  return LoadSigned(launch, static_cast<size_t>(at), size);
}
std::optional<uint64_t> AttnUnsigned(const LaunchFacts& launch, int at, int size) {
  return LoadUnsigned(launch, static_cast<size_t>(at), size);
}

bool AttnInRange(int64_t v, int64_t lo, int64_t hi) {
  return v >= lo && v <= hi;
}

// A padded size: FlashAttention rounds seqlen to 128 and d to 32 (64 above 128 in some versions).
bool AttnRoundedOk(int64_t value, int64_t rounded, int64_t multiple, int64_t slack) {
  return rounded >= value && rounded % multiple == 0 && rounded - value < slack;
}

std::optional<AttentionShape> TryFa2(const Fa2Layout& l, const KernelClass& kc,
                                     const LaunchFacts& launch, std::string* why) {
  AttentionShape s;
  s.layout = l.name;
  s.bottom_right = l.bottom_right;
  int64_t stride[9] = {};
  for (int i = 0; i < 9; ++i) {
    const auto v = AttnUnsigned(launch, kFa2StridesAt + i * l.stride_bytes, l.stride_bytes);
    if (!v) return std::nullopt;
    stride[i] = static_cast<int64_t>(*v);
  }
  const auto h = AttnInt(launch, l.heads_at), h_k = AttnInt(launch, l.heads_at + 4),
             ratio = AttnInt(launch, l.heads_at + 8);
  int at = l.dims_at;
  const auto b = AttnInt(launch, at), s_q = AttnInt(launch, at + 4), s_k = AttnInt(launch, at + 8);
  at += l.has_seqlen_knew ? 16 : 12;
  const auto d = AttnInt(launch, at), s_q_r = AttnInt(launch, at + 4),
             s_k_r = AttnInt(launch, at + 8), d_r = AttnInt(launch, at + 12);
  if (!h || !h_k || !ratio || !b || !s_q || !s_k || !d || !s_q_r || !s_k_r || !d_r) {
    return std::nullopt;
  }
  auto fail = [&](std::string_view check) {
    *why = std::string(l.name) + ": " + std::string(check);
    return std::nullopt;
  };
  if (!AttnInRange(*b, 1, kAttnMaxBatch) || !AttnInRange(*s_q, 1, kAttnMaxSeq) ||
      !AttnInRange(*s_k, 1, kAttnMaxSeq)) {
    return fail("batch or sequence length out of range");
  }
  if (!AttnInRange(*d, 1, kAttnMaxHeadDim) ||
      (kc.attention.head_dim_bucket > 0 && *d > kc.attention.head_dim_bucket)) {
    return fail("head dimension out of range or above the kernel's bucket");
  }
  if (!AttnInRange(*h_k, 1, kAttnMaxHeads) || !AttnInRange(*h, *h_k, kAttnMaxHeads) ||
      *h % *h_k != 0 || *ratio != *h / *h_k) {
    return fail("head counts inconsistent (h, h_k, h / h_k)");
  }
  if (!AttnRoundedOk(*s_q, *s_q_r, 16, 256) || !AttnRoundedOk(*s_k, *s_k_r, 16, 256) ||
      !AttnRoundedOk(*d, *d_r, 8, 64)) {
    return fail("rounded sizes inconsistent");
  }
  // Rows of a (b, s, h, d) tensor with a contiguous last dimension are at least d apart; the
  // batch stride is 0 (variable-length batch) or a real stride.
  for (int t = 0; t < 3; ++t) {
    const int64_t batch = stride[t], row = stride[3 + t];
    const int64_t len = t == 0 ? *s_q : *s_k;
    if ((len > 1 && !AttnInRange(row, *d, kAttnMaxStride)) || batch > kAttnMaxStride ||
        (*b > 1 && batch != 0 && batch < *d)) {
      return fail("strides inconsistent with the shape");
    }
  }
  if (l.cu_seqlens_q_at >= 0) {
    const auto cu = AttnUnsigned(launch, l.cu_seqlens_q_at, 8);
    if (!cu) return std::nullopt;
    s.varlen = *cu != 0;
  } else {
    s.varlen = stride[0] == 0 && *b > 1;
  }
  s.b = *b;
  s.h = *h;
  s.h_k = *h_k;
  s.s_q = *s_q;
  s.s_k = *s_k;
  s.d = s.d_v = *d;
  return s;
}

// Memory-efficient forward, AttentionKernel<...>::Params. PyTorch 2.2 and later: query, key,
// value, attn_bias, seqstart_q, seqstart_k, causal_diagonal, seqlen_k pointers;
// causal_diagonal_offset; output, output_accum, logsumexp pointers @72..95; scale @96; head_dim
// @100, head_dim_value, num_queries, num_keys, num_keys_absolute; custom_mask_type (uint8) @120;
// q/k/v/bias/o strideM (int32) @124..143; q/k/v strideH (int32) @144..155; bias_strideH, q/k/v/
// bias strideB (int64) @160..199; num_batches @200, num_heads @204; use_dropout (bool) @208.
// PyTorch 2.11, read from the bytes an H200 recorded (2026-11-28, docs/validation.md run 9):
// logsumexp @80, scale @92, head_dim @96 ... custom_mask_type @116, strideM @120.., strideH
// @140.., four strideB @160..191, num_batches @192, num_heads @196; use_dropout taken at @200
// (zero in every launch recorded, so its place is inferred from the pattern, not seen).
struct MemEffFwdLayout {
  std::string_view name;
  int lse_at;       // logsumexp pointer
  int head_dim_at;  // head_dim, head_dim_value, num_queries, num_keys follow (int32)
  int mask_at;      // custom_mask_type (uint8)
  int stride_m_at;  // q, k, v strideM (int32)
  int stride_h_at;  // q strideH; k and v follow (int32)
  int batches_at;   // num_batches, num_heads (int32)
  int dropout_at;   // use_dropout (bool)
};
constexpr MemEffFwdLayout kMemEffFwdLayouts[] = {
    {"memory-efficient forward (PyTorch 2.2+)", 88, 100, 120, 124, 144, 200, 208},
    {"memory-efficient forward (PyTorch 2.11)", 80, 96, 116, 120, 140, 192, 200},
};
int MemEffFwdEnd(const MemEffFwdLayout& l) {
  return l.dropout_at + 1;
}

std::optional<AttentionShape> TryMemEffForward(const MemEffFwdLayout& l, const KernelClass& kc,
                                               const LaunchFacts& launch, std::string* why) {
  const std::string_view kName = l.name;
  AttentionShape s;
  s.layout = kName;
  const auto seqstart_q = AttnUnsigned(launch, 32, 8);
  const auto lse = AttnUnsigned(launch, l.lse_at, 8);
  const auto d = AttnInt(launch, l.head_dim_at), d_v = AttnInt(launch, l.head_dim_at + 4),
             s_q = AttnInt(launch, l.head_dim_at + 8), s_k = AttnInt(launch, l.head_dim_at + 12);
  const auto mask = AttnUnsigned(launch, l.mask_at, 1);
  const auto q_m = AttnInt(launch, l.stride_m_at), k_m = AttnInt(launch, l.stride_m_at + 4),
             v_m = AttnInt(launch, l.stride_m_at + 8);
  const auto k_h = AttnInt(launch, l.stride_h_at + 4), v_h = AttnInt(launch, l.stride_h_at + 8);
  const auto batches = AttnInt(launch, l.batches_at), heads = AttnInt(launch, l.batches_at + 4);
  const auto dropout = AttnUnsigned(launch, l.dropout_at, 1);
  if (!seqstart_q || !lse || !d || !d_v || !s_q || !s_k || !mask || !q_m || !k_m || !v_m || !k_h ||
      !v_h || !batches || !heads || !dropout) {
    return std::nullopt;
  }
  auto fail = [&](std::string_view check) {
    *why = std::string(kName) + ": " + std::string(check);
    return std::nullopt;
  };
  // The grid is (ceil(num_queries / kQueriesPerBlock), num_heads, num_batches).
  const int64_t qpb = kc.attention.queries_per_block;
  if (!AttnInRange(*heads, 1, kAttnMaxHeads) || !AttnInRange(*batches, 1, kAttnMaxBatch) ||
      launch.grid.y != static_cast<uint64_t>(*heads) ||
      launch.grid.z != static_cast<uint64_t>(*batches)) {
    return fail("heads and batches disagree with the grid");
  }
  if (!AttnInRange(*s_q, 1, kAttnMaxSeq) || !AttnInRange(*s_k, 1, kAttnMaxSeq) || qpb <= 0 ||
      launch.grid.x != static_cast<uint64_t>((*s_q + qpb - 1) / qpb)) {
    return fail("query count disagrees with the grid");
  }
  const int64_t max_k =
      kc.attention.head_dim_bucket > 0 ? kc.attention.head_dim_bucket : kAttnMaxHeadDim;
  if (!AttnInRange(*d, 1, max_k) || !AttnInRange(*d_v, 1, max_k) || *mask > 2 || *dropout > 1) {
    return fail("head dimensions, mask type or dropout flag out of range");
  }
  if ((*s_q > 1 && !AttnInRange(*q_m, *d, kAttnMaxStride)) ||
      (*s_k > 1 && !AttnInRange(*k_m, *d, kAttnMaxStride)) ||
      (*s_k > 1 && !AttnInRange(*v_m, *d_v, kAttnMaxStride)) || *k_h < 0 || *v_h < 0) {
    return fail("strides inconsistent with the shape");
  }
  s.b = *batches;
  s.h = *heads;
  s.h_k = *k_h == 0 && *v_h == 0 ? 1 : *heads;  // key/value heads broadcast with stride 0 (MQA)
  s.s_q = *s_q;
  s.s_k = *s_k;
  s.d = *d;
  s.d_v = *d_v;
  s.causal = *mask != 0;
  s.bottom_right = *mask == 2;
  s.dropout = *dropout != 0;
  s.varlen = *seqstart_q != 0;
  s.lse = *lse != 0;
  return s;
}

// Memory-efficient backward, AttentionBackwardKernel<...>::Params: query, key, value, bias,
// logsumexp, output, grad_output, delta, cu_seqlens_q @64, cu_seqlens_k, grad_query, grad_key,
// grad_value, grad_bias, workspace, workspace_gv, workspace_gq pointers; window_size @136;
// scale @140; head_dim @144, head_dim_value, num_queries, num_keys, num_heads, [q_heads_per_kv,]
// custom_mask_type (uint8); then q, k, v, bias, gO strideM (int64). The batch count lies far
// beyond the captured bytes; the grid is (num_splits_key, num_heads, num_batches).
struct MemEffBwdLayout {
  std::string_view name;
  bool q_heads_per_kv;  // GQA field between num_heads and custom_mask_type
  int mask_at;
  int strides_at;  // q_strideM; k, v, bias, gO follow
};
constexpr MemEffBwdLayout kMemEffBwdLayouts[] = {
    {"memory-efficient backward (with q_heads_per_kv)", true, 168, 176},
    {"memory-efficient backward (without q_heads_per_kv)", false, 164, 168},
};
int MemEffBwdEnd(const MemEffBwdLayout& l) {
  return l.strides_at + 5 * 8;
}

std::optional<AttentionShape> TryMemEffBackward(const MemEffBwdLayout& l, const KernelClass& kc,
                                                const LaunchFacts& launch, std::string* why) {
  AttentionShape s;
  s.layout = l.name;
  const auto cu_q = AttnUnsigned(launch, 64, 8);
  const auto window = AttnInt(launch, 136);
  const auto scale_bits = AttnUnsigned(launch, 140, 4);
  const auto d = AttnInt(launch, 144), d_v = AttnInt(launch, 148), s_q = AttnInt(launch, 152),
             s_k = AttnInt(launch, 156), heads = AttnInt(launch, 160);
  const auto per_kv = l.q_heads_per_kv ? AttnInt(launch, 164) : std::optional<int64_t>(1);
  const auto mask = AttnUnsigned(launch, l.mask_at, 1);
  const auto q_m = AttnInt(launch, l.strides_at, 8), k_m = AttnInt(launch, l.strides_at + 8, 8),
             v_m = AttnInt(launch, l.strides_at + 16, 8),
             go_m = AttnInt(launch, l.strides_at + 32, 8);
  if (!cu_q || !window || !scale_bits || !d || !d_v || !s_q || !s_k || !heads || !per_kv || !mask ||
      !q_m || !k_m || !v_m || !go_m) {
    return std::nullopt;
  }
  auto fail = [&](std::string_view check) {
    *why = std::string(l.name) + ": " + std::string(check);
    return std::nullopt;
  };
  float scale = 0;
  const auto bits = static_cast<uint32_t>(*scale_bits);
  std::memcpy(&scale, &bits, sizeof scale);
  if (!AttnInRange(*heads, 1, kAttnMaxHeads) || launch.grid.y != static_cast<uint64_t>(*heads) ||
      !AttnInRange(launch.grid.z, 1, kAttnMaxBatch)) {
    return fail("heads and batches disagree with the grid");
  }
  const int64_t max_k =
      kc.attention.head_dim_bucket > 0 ? kc.attention.head_dim_bucket : kAttnMaxHeadDim;
  if (!AttnInRange(*s_q, 1, kAttnMaxSeq) || !AttnInRange(*s_k, 1, kAttnMaxSeq) ||
      !AttnInRange(*d, 1, max_k) || !AttnInRange(*d_v, 1, max_k) || *mask > 2 || *window < 0 ||
      !std::isfinite(scale) || scale <= 0) {
    return fail("sizes, mask type, window or scale out of range");
  }
  if (!AttnInRange(*per_kv, 1, *heads) || *heads % *per_kv != 0) {
    return fail("q_heads_per_kv inconsistent");
  }
  if (!AttnInRange(*q_m, *d, kAttnMaxStride) || !AttnInRange(*k_m, *d, kAttnMaxStride) ||
      !AttnInRange(*v_m, *d_v, kAttnMaxStride) || !AttnInRange(*go_m, *d_v, kAttnMaxStride)) {
    return fail("strides inconsistent with the shape");
  }
  s.b = launch.grid.z;
  s.h = *heads;
  s.h_k = *heads / *per_kv;
  s.s_q = *s_q;
  s.s_k = *s_k;
  s.d = *d;
  s.d_v = *d_v;
  s.causal = *mask != 0;
  s.bottom_right = *mask == 2;
  s.varlen = *cu_q != 0;
  s.window = *window;
  return s;
}

}  // namespace

int AttentionParamBytesWanted(const KernelClass& kc) {
  if (kc.model == KernelModel::kFlashAttention2) {
    int end = 0;
    for (const Fa2Layout& l : kFa2Layouts) end = std::max(end, Fa2LayoutEnd(l));
    return end;
  }
  if (kc.model == KernelModel::kMemEffAttention) {
    int end = 0;
    if (kc.attention.pass == AttentionPass::kForward) {
      for (const MemEffFwdLayout& l : kMemEffFwdLayouts) end = std::max(end, MemEffFwdEnd(l));
      return end;
    }
    for (const MemEffBwdLayout& l : kMemEffBwdLayouts) end = std::max(end, MemEffBwdEnd(l));
    return end;
  }
  return 0;
}

std::optional<AttentionShape> DecodeAttentionShape(const KernelClass& kc, const LaunchFacts& launch,
                                                   std::string* why) {
  // Every layout is tried on the same bytes, so all of them must be there: a short capture never
  // falls through to a smaller, wrong layout.
  const int wanted = AttentionParamBytesWanted(kc);
  if (launch.params.size() < static_cast<size_t>(wanted)) {
    *why = "parameter struct not captured (needs " + std::to_string(wanted) + " bytes, have " +
           std::to_string(launch.params.size()) + ")";
    return std::nullopt;
  }
  if (launch.layout.count > 0 &&
      (launch.layout.slots[0].offset != 0 || launch.layout.slots[0].size < wanted)) {
    *why = "parameter 0 is not a struct of at least " + std::to_string(wanted) + " bytes";
    return std::nullopt;
  }
  std::string first_failure;
  auto note = [&](const std::string& w) {
    if (first_failure.empty()) first_failure = w;
  };
  std::string w;
  if (kc.model == KernelModel::kFlashAttention2) {
    for (const Fa2Layout& l : kFa2Layouts) {
      if (auto s = TryFa2(l, kc, launch, &w)) return s;
      note(w);
    }
  } else if (kc.attention.pass == AttentionPass::kForward) {
    for (const MemEffFwdLayout& l : kMemEffFwdLayouts) {
      if (auto s = TryMemEffForward(l, kc, launch, &w)) return s;
      note(w);
    }
  } else {
    for (const MemEffBwdLayout& l : kMemEffBwdLayouts) {
      if (auto s = TryMemEffBackward(l, kc, launch, &w)) return s;
      note(w);
    }
  }
  *why = "unknown parameter layout (first check failed: " + first_failure + ")";
  return std::nullopt;
}

}  // namespace flopspy::analyzers::catalog_detail
