// Mirrors of the parameter structs attention kernels take by value, written for the tests from
// the published headers (not copied): FlashAttention 2's Flash_fwd_params (2.2 and later, 64-bit
// strides; and 2.0 as vendored in PyTorch 2.1, 32-bit strides) and PyTorch's memory-efficient
// attention AttentionKernel<...>::Params / AttentionBackwardKernel<...>::Params. Each mirror is
// flat (a derived struct's members follow its base's), holds the fields up to a little past what
// the catalog reads, and is checked against the offsets the catalog's layout table assumes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace flopspy::analyzers::attention_test {

// FlashAttention >= 2.2 (upstream csrc/flash_attn/src/flash.h; PyTorch 2.2 and later).
struct Fa2Params64 {
  void* q_ptr;
  void* k_ptr;
  void* v_ptr;
  int64_t q_batch_stride, k_batch_stride, v_batch_stride;
  int64_t q_row_stride, k_row_stride, v_row_stride;
  int64_t q_head_stride, k_head_stride, v_head_stride;
  int h, h_k, h_h_k_ratio;
  void* o_ptr;
  void* oaccum_ptr;
  int64_t o_batch_stride, o_row_stride, o_head_stride;
  void* p_ptr;
  void* softmax_lse_ptr;
  void* softmax_lseaccum_ptr;
  int b, seqlen_q, seqlen_k, seqlen_knew, d, seqlen_q_rounded, seqlen_k_rounded, d_rounded,
      rotary_dim, total_q;
  float scale_softmax, scale_softmax_log2;
  int* cu_seqlens_q;
  int* cu_seqlens_k;
  int* leftpad_k;
  int* seqused_k;
  int* blockmask;
  void* knew_ptr;
  void* vnew_ptr;
};
static_assert(offsetof(Fa2Params64, h) == 96);
static_assert(offsetof(Fa2Params64, o_ptr) == 112);
static_assert(offsetof(Fa2Params64, b) == 176);
static_assert(offsetof(Fa2Params64, d) == 192);
static_assert(offsetof(Fa2Params64, d_rounded) == 204);
static_assert(offsetof(Fa2Params64, cu_seqlens_q) == 224);
static_assert(sizeof(Fa2Params64) > 255);

// FlashAttention 2.0 as vendored in PyTorch 2.1 (pytorch_flash, 32-bit strides).
struct Fa2Params32 {
  void* q_ptr;
  void* k_ptr;
  void* v_ptr;
  uint32_t q_batch_stride, k_batch_stride, v_batch_stride;
  uint32_t q_row_stride, k_row_stride, v_row_stride;
  uint32_t q_head_stride, k_head_stride, v_head_stride;
  int h, h_k, h_h_k_ratio;
  void* o_ptr;
  uint32_t o_batch_stride, o_row_stride, o_head_stride;
  void* p_ptr;
  void* softmax_lse_ptr;
  int b, seqlen_q, seqlen_k, d, seqlen_q_rounded, seqlen_k_rounded, d_rounded;
  float scale_softmax, scale_softmax_log2;
  int* cu_seqlens_q;
  int* cu_seqlens_k;
  int* blockmask;
  float p_dropout;
  uint8_t p_dropout_in_uint8_t;
  float rp_dropout, scale_softmax_rp_dropout;
  uint64_t philox[4];
  bool is_bf16, is_causal;
};
static_assert(offsetof(Fa2Params32, h) == 60);
static_assert(offsetof(Fa2Params32, b) == 112);
static_assert(offsetof(Fa2Params32, d_rounded) == 136);
static_assert(offsetof(Fa2Params32, cu_seqlens_q) == 152);

// Memory-efficient forward: AttentionKernel<...>::Params (PyTorch 2.2 and later).
struct MemEffFwdParams {
  void* query_ptr;
  void* key_ptr;
  void* value_ptr;
  void* attn_bias_ptr;
  int32_t* seqstart_q_ptr;
  int32_t* seqstart_k_ptr;
  int32_t* causal_diagonal_ptr;
  int32_t* seqlen_k_ptr;
  uint32_t causal_diagonal_offset;
  void* output_ptr;
  float* output_accum_ptr;
  float* logsumexp_ptr;
  float scale;
  int32_t head_dim, head_dim_value, num_queries, num_keys, num_keys_absolute;
  uint8_t custom_mask_type;
  int32_t q_strideM, k_strideM, v_strideM, bias_strideM, o_strideM;
  int32_t q_strideH, k_strideH, v_strideH;
  int64_t bias_strideH;
  int64_t q_strideB, k_strideB, v_strideB, bias_strideB;
  int32_t num_batches, num_heads;
  bool use_dropout;
  unsigned long long dropout_batch_head_rng_offset;
  float dropout_prob;
  uint64_t rng[4];
};
static_assert(offsetof(MemEffFwdParams, head_dim) == 100);
static_assert(offsetof(MemEffFwdParams, custom_mask_type) == 120);
static_assert(offsetof(MemEffFwdParams, num_batches) == 200);
static_assert(offsetof(MemEffFwdParams, use_dropout) == 208);

// Memory-efficient backward: AttentionBackwardKernel<...>::Params, with q_heads_per_kv.
struct MemEffBwdParams {
  void* query_ptr;
  void* key_ptr;
  void* value_ptr;
  void* bias_ptr;
  float* logsumexp_ptr;
  void* output_ptr;
  void* grad_output_ptr;
  float* delta_ptr;
  int32_t* cu_seqlens_q_ptr;
  int32_t* cu_seqlens_k_ptr;
  void* grad_query_ptr;
  void* grad_key_ptr;
  void* grad_value_ptr;
  void* grad_bias_ptr;
  float* workspace;
  float* workspace_gv;
  void* workspace_gq;
  int32_t window_size;
  float scale;
  int32_t head_dim, head_dim_value, num_queries, num_keys, num_heads, q_heads_per_kv;
  uint8_t custom_mask_type;
  int64_t q_strideM, k_strideM, v_strideM, bias_strideM, gO_strideM, gB_strideM;
  int8_t gQKV_strideM_multiplier;
  uint64_t rng[4];
};
static_assert(offsetof(MemEffBwdParams, window_size) == 136);
static_assert(offsetof(MemEffBwdParams, head_dim) == 144);
static_assert(offsetof(MemEffBwdParams, custom_mask_type) == 168);
static_assert(offsetof(MemEffBwdParams, q_strideM) == 176);

// The leading bytes of a struct as the interposer captures them (at most 255).
template <class T>
std::vector<uint8_t> Captured(const T& params, size_t limit = 255) {
  std::vector<uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &params, sizeof(T));
  bytes.resize(limit < sizeof(T) ? limit : sizeof(T));
  return bytes;
}

// A zeroed struct (padding included), so that captured bytes are deterministic.
template <class T>
T Zeroed() {
  T t;
  std::memset(static_cast<void*>(&t), 0, sizeof(T));
  return t;
}

struct AttnShape {
  int b, h, h_k, s_q, s_k, d;
};

inline int AttnRoundUp(int v, int m) {
  return (v + m - 1) / m * m;
}

// Flash_fwd_params for contiguous (b, s, h, d) tensors, as set_params_fprop fills it: 2.2+
// (Fa2Params64, 64-bit strides) or 2.0 (Fa2Params32).
template <class Params>
Params AttnFa2ParamsOf(const AttnShape& s) {
  auto p = Zeroed<Params>();
  using Stride = decltype(p.q_batch_stride);
  p.q_batch_stride = static_cast<Stride>(int64_t{s.s_q} * s.h * s.d);
  p.k_batch_stride = p.v_batch_stride = static_cast<Stride>(int64_t{s.s_k} * s.h_k * s.d);
  p.q_row_stride = static_cast<Stride>(s.h * s.d);
  p.k_row_stride = p.v_row_stride = static_cast<Stride>(s.h_k * s.d);
  p.q_head_stride = p.k_head_stride = p.v_head_stride = static_cast<Stride>(s.d);
  p.h = s.h;
  p.h_k = s.h_k;
  p.h_h_k_ratio = s.h / s.h_k;
  p.b = s.b;
  p.seqlen_q = s.s_q;
  p.seqlen_k = s.s_k;
  p.d = s.d;
  p.seqlen_q_rounded = AttnRoundUp(s.s_q, 128);
  p.seqlen_k_rounded = AttnRoundUp(s.s_k, 128);
  p.d_rounded = AttnRoundUp(s.d, 32);
  return p;
}

inline Fa2Params64 AttnFa2Of(const AttnShape& s) {
  auto p = AttnFa2ParamsOf<Fa2Params64>(s);
  p.scale_softmax = 0.125f;
  p.scale_softmax_log2 = 0.125f * 1.442695f;
  return p;
}

}  // namespace flopspy::analyzers::attention_test
