// Attention kernels by name. FlashAttention 2 names carry the kernel traits (head-dimension
// bucket, element type) and the Is_dropout / Is_causal / Is_local template flags; the memory-
// efficient kernels carry their element type and tile in the generated name
// (fmha_cutlassF_bf16_aligned_64x128_rf_sm80); FlashAttention 3/4 and cuDNN SDPA kernels are
// named only (their shapes are not in a parameter struct the catalog reads).
#include "kernel_catalog_attention.h"

#include <charconv>
#include <string>
#include <vector>

namespace flopspy::analyzers::catalog_detail {
namespace {

DataType AttentionElementType(std::string_view spelling) {
  spelling = TrimBlanks(spelling);
  if (const std::optional<DataType> t = DataTypeFromCpp(spelling)) return *t;
  if (spelling == "cutlass::half_t" || spelling == "half_t") return DataType::kFloat16;
  if (spelling == "cutlass::bfloat16_t" || spelling == "bfloat16_t") return DataType::kBFloat16;
  if (spelling == "cutlass::float_e4m3_t") return DataType::kFloat8E4M3;
  if (spelling == "cutlass::float_e5m2_t") return DataType::kFloat8E5M2;
  return DataType::kUnknown;
}

std::optional<bool> AttentionBoolArg(std::string_view a) {
  a = TrimBlanks(a);
  if (a == "true" || a == "1") return true;
  if (a == "false" || a == "0") return false;
  return std::nullopt;
}

int AttentionIntArg(std::string_view a) {
  a = TrimBlanks(a);
  while (!a.empty() && (a.back() == 'u' || a.back() == 'l')) a.remove_suffix(1);
  int v = 0;
  const auto [end, ec] = std::from_chars(a.data(), a.data() + a.size(), v);
  return ec == std::errc() && end == a.data() + a.size() ? v : 0;
}

// Tensor cores for the 16-bit and 8-bit kernels; the float memory-efficient kernels run on the
// CUDA cores' FP32 path.
ComputePath AttentionPath(DataType t) {
  switch (t) {
    case DataType::kFloat16:
      return ComputePath::kFp16Tensor;
    case DataType::kBFloat16:
      return ComputePath::kBf16Tensor;
    case DataType::kFloat8E4M3:
    case DataType::kFloat8E5M2:
      return ComputePath::kFp8Tensor;
    case DataType::kFloat32:
      return ComputePath::kFp32;
    default:
      return ComputePath::kUnknown;
  }
}

std::string_view PassFunctor(AttentionPass pass) {
  switch (pass) {
    case AttentionPass::kForward:
      return "attention_forward";
    case AttentionPass::kBackward:
      return "attention_backward";
    case AttentionPass::kSplitKvCombine:
      return "attention_split_kv_combine";
    case AttentionPass::kBackwardDotDoO:
      return "attention_backward_dot_do_o";
    case AttentionPass::kBackwardConvertDq:
      return "attention_backward_convert_dq";
    case AttentionPass::kBackwardConvertDkv:
      return "attention_backward_convert_dkv";
    case AttentionPass::kOther:
    case AttentionPass::kNone:
      break;
  }
  return "attention_other";
}

constexpr std::string_view kForwardNote =
    "softmax(Q K^T) V: 2 b h s_q s_k (d + d_v) FLOPs (the two matrix products, causal: unmasked "
    "pairs only; softmax not counted); bytes Q, K, V, O once each and the float log-sum-exp";
constexpr std::string_view kBackwardNote =
    "attention backward: 2 b h s_q s_k (3 d + 2 d_v) FLOPs (five matrix products, 2.5x the "
    "forward; causal: unmasked pairs only), all on this kernel; bytes Q, K, V, O, dO and the "
    "log-sum-exp read, dQ, dK, dV written, once each";

void SetAttentionCommon(KernelClass& kc, std::string_view base, AttentionPass pass, DataType type) {
  kc.family = KernelFamily::kAttention;
  kc.kernel = std::string(base);
  kc.attention.pass = pass;
  kc.functor = std::string(PassFunctor(pass));
  kc.input_types = {type};
  kc.output_type = type;
  kc.path = pass == AttentionPass::kForward || pass == AttentionPass::kBackward
                ? AttentionPath(type)
                : ComputePath::kUnknown;
}

// --- FlashAttention 2 ---------------------------------------------------------------------------

struct Fa2Kernel {
  std::string_view base;
  AttentionPass pass;
  int dropout_arg;  // template argument index of Is_dropout; -1 when the kernel has none
  int causal_arg;   // Is_causal
  int local_arg;    // Is_local, present when the kernel has at least `local_min_args` arguments
  size_t local_min_args;
};

// Template arguments per kernel (csrc/flash_attn/src/flash_{fwd,bwd}_kernel.h and PyTorch's
// copy): flash_fwd_kernel<Traits, Is_dropout, Is_causal[, Is_local, ...]> (2.0: 6 arguments, no
// Is_local); flash_fwd_splitkv_kernel<Traits, Is_causal[, Is_local], ...> (2.2: 6, no Is_local);
// the backward loops <Traits, Is_dropout, Is_causal[, Is_local], ...> (2.0: 5, no Is_local).
constexpr Fa2Kernel kFa2Kernels[] = {
    {"flash_fwd_kernel", AttentionPass::kForward, 1, 2, 3, 7},
    {"flash_fwd_splitkv_kernel", AttentionPass::kForward, -1, 1, 2, 7},
    {"flash_fwd_splitkv_combine_kernel", AttentionPass::kSplitKvCombine, -1, -1, -1, 0},
    {"flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", AttentionPass::kBackward, 1, 2, 3, 6},
    {"flash_bwd_dq_dk_dv_loop_kernel", AttentionPass::kBackward, 1, 2, 3, 6},
    {"flash_bwd_dot_do_o_kernel", AttentionPass::kBackwardDotDoO, -1, -1, -1, 0},
    {"flash_bwd_convert_dq_kernel", AttentionPass::kBackwardConvertDq, -1, -1, -1, 0},
    {"flash_bwd_convert_dkv_kernel", AttentionPass::kBackwardConvertDkv, -1, -1, -1, 0},
};

std::optional<bool> FlagAt(const std::vector<std::string_view>& t, int index) {
  if (index < 0 || static_cast<size_t>(index) >= t.size()) return std::nullopt;
  return AttentionBoolArg(t[static_cast<size_t>(index)]);
}

bool ClassifyFlash2(KernelClass& kc, const FunctionNameParts& parts) {
  const Fa2Kernel* k = nullptr;
  for (const Fa2Kernel& candidate : kFa2Kernels) {
    if (parts.base == candidate.base) k = &candidate;
  }
  if (k == nullptr) return false;
  const std::string_view ns = parts.qualified.substr(0, parts.qualified.size() - parts.base.size());
  if (ns != "" && ns != "flash::" && ns != "pytorch_flash::") return false;
  // The one parameter is Flash_fwd_params or Flash_bwd_params (when the name has a list).
  if (parts.has_params &&
      (parts.params.size() != 1 || (!parts.params[0].ends_with("Flash_fwd_params") &&
                                    !parts.params[0].ends_with("Flash_bwd_params")))) {
    return false;
  }
  const auto& t = parts.template_args;
  int bucket = 0;
  DataType type = DataType::kUnknown;
  for (std::string_view arg : t) {
    const std::optional<TemplateId> traits = ParseTemplateId(arg);
    if (!traits || !LastComponent(traits->name).ends_with("kernel_traits") ||
        traits->args.empty()) {
      continue;
    }
    bucket = AttentionIntArg(traits->args[0]);
    for (std::string_view a : traits->args) {
      const DataType d = AttentionElementType(a);
      if (IsFloatingPoint(d)) {
        type = d;
        break;
      }
    }
    break;
  }
  SetAttentionCommon(kc, parts.base, k->pass, type);
  AttentionFacts& a = kc.attention;
  a.library = ns == "pytorch_flash::" ? "pytorch_flash" : "flash_attention_2";
  a.head_dim_bucket = bucket;
  a.split_kv = parts.base == "flash_fwd_splitkv_kernel";
  a.dropout = k->dropout_arg >= 0 ? FlagAt(t, k->dropout_arg) : std::optional<bool>(false);
  a.causal = FlagAt(t, k->causal_arg);
  a.local =
      k->local_arg >= 0 && t.size() >= k->local_min_args && FlagAt(t, k->local_arg).value_or(false);
  kc.model = KernelModel::kFlashAttention2;
  kc.confidence = Confidence::kHigh;
  const bool typed = DataTypeSize(type) > 0;
  switch (k->pass) {
    case AttentionPass::kForward:
    case AttentionPass::kBackward:
      kc.flops_known = kc.bytes_known = typed && !a.local && a.causal.has_value();
      kc.reason = std::string(k->pass == AttentionPass::kForward ? kForwardNote : kBackwardNote);
      if (a.local) {
        kc.reason =
            "local (sliding-window) attention: the window sizes lie beyond the captured "
            "parameter bytes, figures unknown";
      } else if (!a.causal) {
        kc.reason = "Is_causal not read from the name: figures unknown";
      }
      break;
    case AttentionPass::kSplitKvCombine:
      kc.flops_known = true;  // 0: the rescaling of the partials is not counted
      kc.reason =
          "split-KV combine: 0 FLOPs (the forward's FLOPs are on the split-KV kernel); bytes "
          "unknown (the number of splits lies beyond the captured parameter bytes)";
      break;
    default:
      kc.flops_known = true;  // 0: elementwise helpers of the backward
      kc.bytes_known = typed;
      kc.reason =
          "backward helper: 0 FLOPs (the backward's FLOPs are on the dq_dk_dv kernel); bytes "
          "what it streams";
      break;
  }
  if (!typed) {
    kc.bytes_known = false;
    if (k->pass == AttentionPass::kForward || k->pass == AttentionPass::kBackward) {
      kc.flops_known = false;
    }
    kc.reason = "element type not read from the kernel traits: figures unknown";
  }
  if (!kc.flops_known && !kc.bytes_known) {
    kc.model = KernelModel::kNone;
    kc.confidence = Confidence::kNone;
  }
  return true;
}

// --- Memory-efficient attention (PyTorch's copy of xFormers' CUTLASS kernels) ------------------

// fmha_cutlassF_<type>_<aligned|notaligned>_<queries>x<keys>_<rf|gmem>_sm<NN>
// fmha_cutlassB_<type>_<aligned|notaligned>_<I>x<J>_k<max head dim>[_dropout][_seqaligned]_sm<NN>
// (generated by
// aten/src/ATen/native/transformers/cuda/mem_eff_attention/kernels/generate_kernels.py).
bool ClassifyMemEff(KernelClass& kc, const FunctionNameParts& parts) {
  const std::string_view base = parts.base;
  const bool forward = base.starts_with("fmha_cutlassF_");
  if (!forward && !base.starts_with("fmha_cutlassB_")) return false;
  std::vector<std::string_view> tokens;
  for (size_t at = 0; at <= base.size();) {
    const size_t end = std::min(base.find('_', at), base.size());
    tokens.push_back(base.substr(at, end - at));
    at = end + 1;
  }
  DataType type = DataType::kUnknown;
  if (tokens.size() > 2) {
    if (tokens[2] == "f16") type = DataType::kFloat16;
    if (tokens[2] == "bf16") type = DataType::kBFloat16;
    if (tokens[2] == "f32") type = DataType::kFloat32;
  }
  int queries = 0;
  int max_k = 0;
  bool dropout = false;
  for (size_t i = 3; i < tokens.size(); ++i) {
    const std::string_view tok = tokens[i];
    if (const size_t x = tok.find('x'); x != std::string_view::npos && queries == 0) {
      queries = AttentionIntArg(tok.substr(0, x));
    } else if (tok.size() > 1 && tok[0] == 'k' && AttentionIntArg(tok.substr(1)) > 0) {
      max_k = AttentionIntArg(tok.substr(1));
    } else if (tok == "dropout") {
      dropout = true;
    }
  }
  if (parts.has_params && (parts.params.size() != 1 || !parts.params[0].ends_with("::Params"))) {
    return false;
  }
  // Forward: AttentionKernel<scalar_t, Arch, aligned, queries, keys, kMaxK, ...>::Params.
  if (forward && parts.has_params) {
    if (const auto id = ParseTemplateId(parts.params[0]); id && id->args.size() >= 6) {
      max_k = AttentionIntArg(id->args[5]);
    }
  }
  SetAttentionCommon(kc, base, forward ? AttentionPass::kForward : AttentionPass::kBackward, type);
  AttentionFacts& a = kc.attention;
  a.library = "mem_efficient";
  a.queries_per_block = forward ? queries : 0;
  a.head_dim_bucket = max_k;
  if (!forward) a.dropout = dropout;  // the forward's dropout is a launch flag
  kc.model = KernelModel::kMemEffAttention;
  kc.flops_known = kc.bytes_known = DataTypeSize(type) > 0 && (!forward || queries > 0);
  kc.confidence = kc.flops_known ? Confidence::kHigh : Confidence::kNone;
  kc.reason = std::string(forward ? kForwardNote : kBackwardNote);
  if (!kc.flops_known) {
    kc.model = KernelModel::kNone;
    kc.reason = "memory-efficient attention name not understood: figures unknown";
  }
  return true;
}

// --- Named only: FlashAttention 3 and 4, cuDNN SDPA ---------------------------------------------

DataType TypeMentioned(std::string_view text) {
  if (text.find("bfloat16") != std::string_view::npos) return DataType::kBFloat16;
  if (text.find("half_t") != std::string_view::npos) return DataType::kFloat16;
  if (text.find("float_e4m3") != std::string_view::npos) return DataType::kFloat8E4M3;
  return DataType::kUnknown;
}

bool ClassifyNamedOnly(KernelClass& kc, const FunctionNameParts& parts,
                       std::string_view demangled) {
  struct Named {
    std::string_view marker;
    AttentionPass pass;
    std::string_view library;
  };
  // FlashAttention 3 (hopper/flash_fwd_kernel_sm90.h, flash_bwd_kernel_sm90.h,
  // flash_fwd_combine_kernel.h, flash_prepare_scheduler.cu) and 4 (CuTe DSL, Blackwell).
  static constexpr Named kNamed[] = {
      {"FlashAttnFwdCombine", AttentionPass::kSplitKvCombine, "flash_attention_3"},
      {"FlashAttnFwdSm", AttentionPass::kForward, "flash_attention_3"},
      {"FlashAttnBwdPreprocess", AttentionPass::kBackwardDotDoO, "flash_attention_3"},
      {"FlashAttnBwdPostprocessConvertdQ", AttentionPass::kBackwardConvertDq, "flash_attention_3"},
      {"FlashAttnBwdSm", AttentionPass::kBackward, "flash_attention_3"},
      {"prepare_varlen_num_blocks", AttentionPass::kOther, "flash_attention_3"},
      {"FlashAttentionForwardSm", AttentionPass::kForward, "flash_attention_4"},
      {"FlashAttentionBackwardSm", AttentionPass::kBackward, "flash_attention_4"},
  };
  const bool flash_ns = demangled.find("flash::") != std::string_view::npos;
  for (const Named& n : kNamed) {
    if (!flash_ns || demangled.find(n.marker) == std::string_view::npos) continue;
    SetAttentionCommon(kc, parts.base.empty() ? n.marker : parts.base, n.pass,
                       TypeMentioned(demangled));
    kc.attention.library = std::string(n.library);
    kc.reason =
        std::string(n.library == "flash_attention_3" ? "FlashAttention 3" : "FlashAttention 4") +
        ": the shapes sit in CUTLASS kernel parameters whose layout is not modelled, "
        "figures unknown (counter mode measures them)";
    return true;
  }
  const std::string_view base = parts.base.empty() ? demangled : parts.base;
  if (base.starts_with("cudnn_generated") && base.find("sdpa") != std::string_view::npos) {
    const bool backward = base.find("bprop") != std::string_view::npos;
    DataType type = DataType::kUnknown;
    if (base.find("_bf16") != std::string_view::npos) {
      type = DataType::kBFloat16;
    } else if (base.find("_f16") != std::string_view::npos ||
               base.find("_fp16") != std::string_view::npos) {
      type = DataType::kFloat16;
    } else if (base.find("e4m3") != std::string_view::npos ||
               base.find("fp8") != std::string_view::npos) {
      type = DataType::kFloat8E4M3;
    }
    SetAttentionCommon(kc, base, backward ? AttentionPass::kBackward : AttentionPass::kForward,
                       type);
    kc.attention.library = "cudnn";
    kc.reason =
        "cuDNN SDPA: the shapes live in the cuDNN graph, not in the kernel's parameters: "
        "figures unknown (counter mode measures them)";
    return true;
  }
  return false;
}

}  // namespace

bool ClassifyAttention(KernelClass& kc, const FunctionNameParts& parts,
                       std::string_view demangled) {
  return ClassifyFlash2(kc, parts) || ClassifyMemEff(kc, parts) ||
         ClassifyNamedOnly(kc, parts, demangled);
}

}  // namespace flopspy::analyzers::catalog_detail
