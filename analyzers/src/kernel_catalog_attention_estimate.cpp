// Figures of one attention launch from its decoded shape (docs/kernel-catalog.md, "Attention"):
// FLOPs count the matrix products over the unmasked (query, key) pairs; bytes are the least
// traffic, every tensor read or written once.
#include <algorithm>
#include <string>

#include "kernel_catalog_attention.h"

namespace flopspy::analyzers::catalog_detail {
namespace {

std::string AttentionKey(const AttentionShape& s, bool causal, bool dropout) {
  std::string key = "b=" + std::to_string(s.b) + ",h=" + std::to_string(s.h) +
                    ",h_k=" + std::to_string(s.h_k) + ",s_q=" + std::to_string(s.s_q) +
                    ",s_k=" + std::to_string(s.s_k) + ",d=" + std::to_string(s.d);
  if (s.d_v != s.d) key += ",d_v=" + std::to_string(s.d_v);
  key += causal ? (s.bottom_right ? ",causal=bottom_right" : ",causal=top_left") : ",causal=0";
  if (dropout) key += ",dropout=1";
  return key;
}

}  // namespace

int64_t AttentionPairs(int64_t s_q, int64_t s_k, bool causal, bool bottom_right) {
  if (s_q <= 0 || s_k <= 0) return 0;
  if (!causal) return s_q * s_k;
  // Row i sees min(max(i + offset + 1, 0), s_k) keys: rows before `first` see none, rows from
  // `full` on see all s_k, the rows between see i + offset + 1 (an arithmetic series).
  const int64_t offset = bottom_right ? s_k - s_q : 0;
  const int64_t first = std::clamp<int64_t>(-offset, 0, s_q);
  const int64_t full = std::clamp<int64_t>(s_k - offset - 1, first, s_q);
  const int64_t n = full - first;
  const int64_t partial = n * ((first + offset + 1) + (full - 1 + offset + 1)) / 2;
  return partial + (s_q - full) * s_k;
}

KernelEstimate EstimateAttention(const KernelClass& kc, const LaunchFacts& launch,
                                 KernelEstimate e) {
  std::string why;
  const std::optional<AttentionShape> shape = DecodeAttentionShape(kc, launch, &why);
  if (!shape) {
    e.reason = why + "; " + kc.reason;
    return e;
  }
  const AttentionShape& s = *shape;
  const AttentionFacts& a = kc.attention;
  const bool causal = s.causal.value_or(a.causal.value_or(false));
  const bool dropout = s.dropout.value_or(a.dropout.value_or(false));
  if (s.varlen) {
    e.reason =
        "variable-length batch (cu_seqlens set): each sequence's length is in device memory and "
        "b x max_seqlen would only bound the work, figures unknown; " +
        kc.reason;
    return e;
  }
  if (s.window > 0) {
    e.reason = "sliding-window attention (window " + std::to_string(s.window) +
               ") is not modelled: figures unknown; " + kc.reason;
    return e;
  }
  const double b = static_cast<double>(s.b), h = static_cast<double>(s.h),
               h_k = static_cast<double>(s.h_k), s_q = static_cast<double>(s.s_q),
               s_k = static_cast<double>(s.s_k), d = static_cast<double>(s.d),
               d_v = static_cast<double>(s.d_v);
  const int64_t pairs = AttentionPairs(s.s_q, s.s_k, causal, s.bottom_right);
  const double scores = b * h * static_cast<double>(pairs);
  const double elem = DataTypeSize(kc.input_types.empty() ? DataType::kUnknown : kc.input_types[0]);
  const double q = b * h * s_q * d, k = b * h_k * s_k * d, v = b * h_k * s_k * d_v,
               o = b * h * s_q * d_v, lse = b * h * s_q * 4.0;
  double flops = 0, bytes = 0;
  switch (a.pass) {
    case AttentionPass::kForward:
      flops = 2.0 * scores * (d + d_v);
      bytes = elem * (q + k + v + o) + (s.lse ? lse : 0);
      break;
    case AttentionPass::kBackward:
      flops = 2.0 * scores * (3.0 * d + 2.0 * d_v);
      bytes = elem * (q + k + v + o + o /* dO */ + q /* dQ */ + k /* dK */ + v /* dV */) + lse;
      break;
    case AttentionPass::kBackwardDotDoO:
      bytes = elem * 2.0 * o + lse;  // dO and O read, rowsum(dO * O) written as float
      break;
    case AttentionPass::kBackwardConvertDq:
      bytes = (4.0 + elem) * q;  // float accumulator read, dQ written
      break;
    case AttentionPass::kBackwardConvertDkv:
      bytes = (4.0 + elem) * (k + v);
      break;
    default:  // split-KV combine: 0 FLOPs, bytes unknown
      break;
  }
  e.elements = static_cast<int64_t>(scores);
  e.shape_key = AttentionKey(s, causal, dropout);
  e.confidence = kc.confidence;
  std::string reason = kc.reason;
  if (causal && (a.pass == AttentionPass::kForward || a.pass == AttentionPass::kBackward)) {
    reason += "; causal (" + std::string(s.bottom_right ? "bottom-right" : "top-left") +
              " aligned): " + std::to_string(pairs) + " of " + std::to_string(s.s_q * s.s_k) +
              " (query, key) pairs per head";
  }
  if (a.split_kv && a.library == "flash_attention_2") {
    // flash_attn_with_kvcache runs this kernel with seqlen_k the cache's capacity and each
    // sequence's length in device memory.
    e.confidence = Confidence::kLow;
    reason +=
        "; split-KV kernel outside PyTorch: seqlen_k may be a KV cache's capacity, so the "
        "figures may be an upper bound";
  }
  e.reason = reason + " [" + std::string(s.layout) + "]";
  if (kc.flops_known) {
    e.flops = flops;
    e.source = trace::FigureSource::kCatalog;
  }
  if (kc.bytes_known) {
    e.bytes = bytes;
    e.bytes_source = trace::FigureSource::kCatalog;
  }
  return e;
}

}  // namespace flopspy::analyzers::catalog_detail
