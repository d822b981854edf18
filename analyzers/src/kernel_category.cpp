// The coarse category of a kernel and the operation an uncatalogued functor names: the words the
// report's rollup groups kernel time by (docs/flopspy-report.md, "Where the GPU time goes").
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/kernel_catalog.h"
#include "helpers_internal.h"

namespace flopspy::analyzers {
namespace {

bool ContainsAny(std::string_view text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view w) { return text.find(w) != std::string_view::npos; });
}

bool IsIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// "LogSigmoid" -> "log_sigmoid".
std::string SnakeCase(std::string_view camel) {
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    const auto c = static_cast<unsigned char>(camel[i]);
    if (std::isupper(c) && i > 0 && camel[i - 1] != '_' &&
        (std::islower(static_cast<unsigned char>(camel[i - 1])) ||
         (i + 1 < camel.size() && std::islower(static_cast<unsigned char>(camel[i + 1]))))) {
      out += '_';
    }
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

std::string_view StripPrefix(std::string_view s, std::string_view prefix) {
  return s.starts_with(prefix) ? s.substr(prefix.size()) : s;
}

// The innermost functor named in the text, without the generic wrappers that only adapt a
// scalar operand (BinaryFunctor<..., MulFunctor<float>> names mul).
std::string FunctorTypeOp(std::string_view text) {
  static constexpr std::array<std::string_view, 4> kFunctorWrappers = {
      "BinaryFunctor", "AUnaryFunctor", "BUnaryFunctor", "UnaryFunctor"};
  std::string_view found;
  for (size_t i = 0; i < text.size();) {
    if (!IsIdentifierChar(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsIdentifierChar(text[end])) ++end;
    const std::string_view id = text.substr(i, end - i);
    const bool functor = id.ends_with("Functor") || id.starts_with("CUDAFunctor");
    if (functor &&
        std::find(kFunctorWrappers.begin(), kFunctorWrappers.end(), id) == kFunctorWrappers.end()) {
      found = id;
    }
    i = end;
  }
  if (found.empty()) return "";
  if (found.starts_with("CUDAFunctor")) {  // CUDAFunctorOnSelf_add, CUDAFunctorOnOther_mul
    const size_t underscore = found.find('_');
    return underscore == std::string_view::npos ? "" : std::string(found.substr(underscore + 1));
  }
  found.remove_suffix(std::string_view("Functor").size());
  return SnakeCase(found);
}

// The function whose lambda the loop runs: "at::native::sigmoid_kernel_cuda(at::Tensor...)::
// {lambda()#1}..." -> "sigmoid".
std::string LambdaOwnerOp(std::string_view text) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  if (text.find("{lambda") == std::string_view::npos) return "";
  size_t open = text.find('(');
  while (open != std::string_view::npos && text.substr(open, kAnonymous.size()) == kAnonymous) {
    open = text.find('(', open + kAnonymous.size());
  }
  if (open == std::string_view::npos) return "";
  size_t begin = open;
  while (begin > 0 && IsIdentifierChar(text[begin - 1])) --begin;
  std::string_view name = StripPrefix(text.substr(begin, open - begin), "launch_");
  for (const std::string_view suffix : {"_kernel_cuda", "_kernel_impl", "_kernel", "_cuda"}) {
    if (name.ends_with(suffix) && name.size() > suffix.size()) {
      name.remove_suffix(suffix.size());
      break;
    }
  }
  if (name.empty() || name == "operator") return "";
  return std::string(name);
}

KernelCategory FromFamily(const KernelClass& kc) {
  switch (kc.family) {
    case KernelFamily::kElementwiseVectorized:
    case KernelFamily::kElementwiseUnrolled:
    case KernelFamily::kElementwiseLegacy:
    case KernelFamily::kMultiTensorApply:
      return KernelCategory::kElementwise;
    case KernelFamily::kReduce:
      return KernelCategory::kReduction;
    case KernelFamily::kSoftmax:
    case KernelFamily::kLayerNorm:
      return KernelCategory::kNormalization;
    case KernelFamily::kCopy:
    case KernelFamily::kFill:
    case KernelFamily::kCat:
      return KernelCategory::kCopy;
    case KernelFamily::kTriton:
      return KernelCategory::kTriton;
    case KernelFamily::kIndex:
      return KernelCategory::kOther;
    case KernelFamily::kAttention:
      return KernelCategory::kAttention;
    case KernelFamily::kDemo:
      if (kc.model == KernelModel::kDemoSum) return KernelCategory::kReduction;
      if (kc.functor == "fill") return KernelCategory::kCopy;
      return kc.model == KernelModel::kElementwise ? KernelCategory::kElementwise
                                                   : KernelCategory::kOther;
    case KernelFamily::kUnknown:
    case KernelFamily::kCount:
      break;
  }
  return KernelCategory::kUnknown;
}

}  // namespace

std::string_view KernelCategoryName(KernelCategory category) {
  switch (category) {
    case KernelCategory::kGemm:
      return "gemm";
    case KernelCategory::kAttention:
      return "attention";
    case KernelCategory::kElementwise:
      return "elementwise";
    case KernelCategory::kReduction:
      return "reduction";
    case KernelCategory::kNormalization:
      return "normalization";
    case KernelCategory::kCopy:
      return "copy";
    case KernelCategory::kCollective:
      return "collective";
    case KernelCategory::kTriton:
      return "triton";
    case KernelCategory::kOther:
      return "other";
    case KernelCategory::kUnknown:
    case KernelCategory::kCount:
      break;
  }
  return "unknown";
}

std::string FunctorOpName(std::string_view functor_text) {
  std::string op = FunctorTypeOp(functor_text);
  if (op.empty()) op = LambdaOwnerOp(functor_text);
  return op;
}

KernelCategory CategorizeKernel(const KernelClass& kc, std::string_view demangled) {
  if (kc.family == KernelFamily::kTriton) return KernelCategory::kTriton;
  if (kc.family == KernelFamily::kAttention) return KernelCategory::kAttention;
  const std::string name = helpers::AsciiLower(demangled);
  const std::string base = helpers::AsciiLower(kc.kernel);
  // Names first: a GEMM or attention kernel may sit in any namespace, and nothing the catalog
  // models is named like one.
  if (name.find("nccl") != std::string::npos) return KernelCategory::kCollective;
  if (ContainsAny(base, {"flash", "fmha", "attention", "attn", "sdpa"})) {
    return KernelCategory::kAttention;
  }
  // CUTLASS wraps its GEMMs in Kernel<...>/Kernel2<...>: the template argument says "gemm".
  const bool cutlass =
      name.starts_with("cutlass::") || name.find(" cutlass::") != std::string::npos;
  if (ContainsAny(base, {"gemm", "gemv", "xmma", "matmul"}) ||
      (cutlass && name.find("gemm") != std::string::npos)) {
    return KernelCategory::kGemm;
  }
  if (const KernelCategory c = FromFamily(kc); c != KernelCategory::kUnknown) return c;
  if (ContainsAny(base, {"softmax", "layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm",
                         "batchnorm", "group_norm", "groupnorm", "instance_norm"})) {
    return KernelCategory::kNormalization;
  }
  if (ContainsAny(base, {"reduce", "reduction"})) return KernelCategory::kReduction;
  if (ContainsAny(base, {"memcpy", "memset", "copy"})) return KernelCategory::kCopy;
  if (base.find("elementwise") != std::string::npos) return KernelCategory::kElementwise;
  if (name.starts_with("at::") || name.find(" at::") != std::string::npos) {
    return KernelCategory::kOther;  // ATen, uncatalogued
  }
  return KernelCategory::kUnknown;
}

}  // namespace flopspy::analyzers
