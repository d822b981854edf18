// Attention kernels in the catalog, shared by kernel_catalog_attention*.cpp: FlashAttention 2
// (upstream and PyTorch's vendored pytorch_flash::), FlashAttention 3 and 4, PyTorch's
// memory-efficient attention (fmha_cutlassF/B) and cuDNN's SDPA kernels. The name gives the pass,
// the element type and, for FlashAttention 2, causality and dropout; the shapes come from the
// parameter struct the launch carries by value, read through a table of known layouts. The
// counting convention is in docs/kernel-catalog.md, "Attention". Not part of the public API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers::catalog_detail {

// Classifies `kc` and returns true when the name is an attention kernel; returns false and
// leaves `kc` as it was otherwise.
bool ClassifyAttention(KernelClass& kc, const FunctionNameParts& parts, std::string_view demangled);

// The shape one launch's parameter struct holds.
struct AttentionShape {
  int64_t b = 0;    // batch (sequences)
  int64_t h = 0;    // query heads
  int64_t h_k = 0;  // key/value heads (GQA: h % h_k == 0)
  int64_t s_q = 0;  // query length
  int64_t s_k = 0;  // key length
  int64_t d = 0;    // head dimension of Q and K
  int64_t d_v = 0;  // head dimension of V and O
  // Causal mask from the launch (memory-efficient kernels); unset: the name says it.
  std::optional<bool> causal;
  bool bottom_right = true;  // causal mask aligned to the bottom-right corner (else top-left)
  std::optional<bool> dropout;
  bool varlen = false;      // cu_seqlens / seqstart set: per-sequence lengths in device memory
  bool lse = true;          // the forward writes the softmax log-sum-exp
  int64_t window = 0;       // sliding window (memory-efficient backward); 0: none
  std::string_view layout;  // the layout table row that matched
};

// Decodes the launch's parameter bytes with the first layout of the kernel's table whose sanity
// checks pass. nullopt with `why` set when the bytes are short or no layout passes ("unknown
// parameter layout").
std::optional<AttentionShape> DecodeAttentionShape(const KernelClass& kc, const LaunchFacts& launch,
                                                   std::string* why);

// Leading parameter bytes the attention models read (the largest of their layouts' needs).
int AttentionParamBytesWanted(const KernelClass& kc);

// Unmasked (query, key) pairs of one head: s_q x s_k without a causal mask; with one, query i
// sees keys j <= i + offset, offset = s_k - s_q (bottom-right) or 0 (top-left).
int64_t AttentionPairs(int64_t s_q, int64_t s_k, bool causal, bool bottom_right);

// Fills the figures of one launch (models kFlashAttention2 and kMemEffAttention); `e` already
// holds what the class says.
KernelEstimate EstimateAttention(const KernelClass& kc, const LaunchFacts& launch,
                                 KernelEstimate e);

}  // namespace flopspy::analyzers::catalog_detail
