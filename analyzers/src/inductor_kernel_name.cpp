// Inductor's kernel names to a kind and the fused ATen operations (docs/kernel-catalog.md,
// "Triton and torch.compile").
#include "flopspy/analyzers/inductor_kernel_name.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace flopspy::analyzers {
namespace {

struct InductorKind {
  std::string_view prefix;  // the three letters inductor keeps of the kind
  std::string_view kind;
};
constexpr std::array<InductorKind, 7> kInductorKinds = {{{"poi", "pointwise"},
                                                         {"red", "reduction"},
                                                         {"per", "persistent_reduction"},
                                                         {"tem", "template"},
                                                         {"for", "foreach"},
                                                         {"sca", "scan"},
                                                         {"spl", "split_scan"}}};

// ATen operations whose own names hold "_" (without a leading underscore, which the name doubles
// as "__"): the name joins operations with "_" too, so these are matched whole, longest first.
constexpr std::string_view kMultiWordOps[] = {
    "native_batch_norm_legit_no_training",
    "native_batch_norm_legit_functional",
    "native_batch_norm_legit",
    "native_batch_norm_backward",
    "native_batch_norm",
    "native_layer_norm_backward",
    "native_layer_norm",
    "native_group_norm_backward",
    "native_group_norm",
    "native_dropout_backward",
    "native_dropout",
    "log_softmax_backward_data",
    "softmax_backward_data",
    "log_softmax",
    "to_copy",
    "unsafe_index_put",
    "unsafe_index",
    "unsafe_view",
    "index_put",
    "index_select",
    "index_add",
    "scatter_add",
    "scatter_reduce",
    "slice_scatter",
    "select_scatter",
    "diagonal_scatter",
    "as_strided_scatter",
    "as_strided",
    "var_mean",
    "constant_pad_nd",
    "convolution_backward",
    "embedding_dense_backward",
    "threshold_backward",
    "gelu_backward",
    "silu_backward",
    "sigmoid_backward",
    "tanh_backward",
    "hardtanh_backward",
    "leaky_relu_backward",
    "leaky_relu",
    "clamp_min",
    "clamp_max",
    "masked_fill",
    "full_like",
    "zeros_like",
    "ones_like",
    "empty_like",
    "rand_like",
    "randn_like",
    "new_zeros",
    "new_ones",
    "new_empty",
    "logical_not",
    "logical_and",
    "logical_or",
    "bitwise_and",
    "bitwise_or",
    "bitwise_not",
    "bitwise_xor",
    "max_pool2d_with_indices_backward",
    "max_pool2d_with_indices",
    "adaptive_avg_pool2d_backward",
    "adaptive_avg_pool2d",
    "avg_pool2d_backward",
    "avg_pool2d",
    "upsample_nearest2d",
    "upsample_bilinear2d",
    "nll_loss_forward",
    "nll_loss_backward",
    "nll_loss",
    "convert_element_type",
    "scaled_dot_product_flash_attention",
    "scaled_dot_product_efficient_attention",
    "scaled_dot_product_cudnn_attention",
    "flex_attention_backward",
    "flex_attention",
};

std::vector<std::string_view> SplitUnderscores(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t start = 0;
  while (true) {
    const size_t end = text.find('_', start);
    tokens.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return tokens;
    start = end + 1;
  }
}

bool AllDigits(std::string_view token) {
  return !token.empty() && std::all_of(token.begin(), token.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// A content hash inductor may append to the name (long, letters and digits mixed); no ATen
// operation name is this long without an underscore.
bool HashLike(std::string_view token) {
  if (token.size() < 16) return false;
  bool digit = false, alpha = false;
  for (const char c : token) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isdigit(u) != 0) {
      digit = true;
    } else if (std::isalpha(u) != 0) {
      alpha = true;
    } else {
      return false;
    }
  }
  return digit && alpha;
}

// How many tokens from `at` the longest multi-word operation takes; 1 when none matches.
size_t OpTokens(const std::vector<std::string_view>& tokens, size_t at) {
  size_t best = 1;
  for (const std::string_view op : kMultiWordOps) {
    const std::vector<std::string_view> words = SplitUnderscores(op);
    if (words.size() <= best || at + words.size() > tokens.size()) continue;
    if (std::equal(words.begin(), words.end(), tokens.begin() + static_cast<long>(at))) {
      best = words.size();
    }
  }
  return best;
}

}  // namespace

std::optional<InductorKernelName> ParseInductorKernelName(std::string_view name) {
  constexpr std::string_view kTriton = "triton_";
  if (!name.starts_with(kTriton) || name.size() < kTriton.size() + 3) return std::nullopt;
  const std::string_view letters = name.substr(kTriton.size(), 3);
  const auto kind = std::find_if(kInductorKinds.begin(), kInductorKinds.end(),
                                 [&](const InductorKind& k) { return k.prefix == letters; });
  std::string_view rest = name.substr(kTriton.size() + 3);
  if (kind == kInductorKinds.end() || (!rest.empty() && rest.front() != '_')) return std::nullopt;

  InductorKernelName parsed;
  parsed.kind = std::string(kind->kind);
  if (rest.empty()) return parsed;
  std::vector<std::string_view> tokens = SplitUnderscores(rest.substr(1));
  // The counter and a hash at the end are no operations.
  while (!tokens.empty() && (AllDigits(tokens.back()) || HashLike(tokens.back()))) {
    tokens.pop_back();
  }
  size_t i = 0;
  if (i < tokens.size() && tokens[i] == "fused") ++i;
  bool underscore = false;  // an empty token: the next operation's name starts with "_"
  while (i < tokens.size()) {
    if (tokens[i].empty()) {
      underscore = true;
      ++i;
      continue;
    }
    // "inductor_node" names number their nodes ("add_1"): the numbers are no operations.
    if (AllDigits(tokens[i])) {
      underscore = false;
      ++i;
      continue;
    }
    const size_t n = OpTokens(tokens, i);
    std::string op = underscore ? "_" : "";
    for (size_t k = 0; k < n; ++k) op += std::string(k ? "_" : "") + std::string(tokens[i + k]);
    if (std::find(parsed.ops.begin(), parsed.ops.end(), op) == parsed.ops.end()) {
      parsed.ops.push_back(std::move(op));
    }
    underscore = false;
    i += n;
  }
  return parsed;
}

std::string InductorOpText(const InductorKernelName& parsed) {
  std::string text = parsed.kind;
  for (size_t i = 0; i < parsed.ops.size(); ++i) text += (i ? "+" : " ") + parsed.ops[i];
  return text;
}

}  // namespace flopspy::analyzers
