// How many leading parameter bytes each model reads. The interposer copies a fixed number of
// bytes per launch (FLOPSPY_PARAM_BYTES, 20 by default); a kernel whose model reads further (a
// double-precision reduction, softmax sizes, a TensorInfo) asks for more once the flusher has
// classified it. The figures must agree with what kernel_catalog_estimate.cpp reads.
#include <algorithm>
#include <initializer_list>

#include "flopspy/analyzers/kernel_catalog.h"
#include "kernel_catalog_attention.h"
#include "kernel_catalog_internal.h"

namespace flopspy::analyzers {
namespace {

using catalog_detail::ParamOffset;
using catalog_detail::ScalarParamSize;

// End of scalar parameter `index` in the packed buffer, from the signature; 0 when the
// signature cannot place it (a by-value class before it).
int ParamEnd(const KernelClass& kc, int index) {
  if (index < 0 || index >= static_cast<int>(kc.param_types.size())) return 0;
  const std::optional<int> size = ScalarParamSize(kc.param_types[index]);
  const std::optional<int> offset = ParamOffset(kc, LaunchFacts{}, index);
  return size && offset ? *offset + *size : 0;
}

int LastEnd(const KernelClass& kc, std::initializer_list<int> indices) {
  int end = 0;
  for (int i : indices) {
    const int e = ParamEnd(kc, i);
    if (e == 0) return 0;  // one needed parameter cannot be placed: ask for nothing extra
    end = std::max(end, e);
  }
  return end;
}

}  // namespace

int ParamBytesWanted(const KernelClass& kc) {
  const int last = static_cast<int>(kc.param_types.size()) - 1;
  switch (kc.model) {
    case KernelModel::kNone:
      return 0;
    case KernelModel::kElementwise:
    case KernelModel::kIndexElementwise:
    case KernelModel::kScatterGather:
    case KernelModel::kLayerNormMoments:
    case KernelModel::kDemoSum:
      return LastEnd(kc, {0});
    case KernelModel::kReduce:
      // ReduceConfig's element_size_bytes, num_inputs, num_outputs inside parameter 0.
      return kc.reduce_config_offset >= 0 ? kc.reduce_config_offset + 12 : 0;
    case KernelModel::kSoftmaxBlock:
    case KernelModel::kSoftmaxSpatial:
      return LastEnd(kc, {last});
    case KernelModel::kSoftmaxWarp:
      return LastEnd(kc, {kc.backward ? 5 : 4});
    case KernelModel::kLayerNormFused:
    case KernelModel::kLayerNormApply:
      return LastEnd(kc, {0, 5});
    case KernelModel::kLayerNormGradInput:
      return LastEnd(kc, {4, 6});
    case KernelModel::kGatherRows:
      return LastEnd(kc, {3, 4});
    case KernelModel::kIndexSelect:
    case KernelModel::kFusedDropout:
      return catalog_detail::kTensorInfoDimsAt + 4;  // the sizes and dims of parameter 0
    case KernelModel::kFlashAttention2:
    case KernelModel::kMemEffAttention:
      return catalog_detail::AttentionParamBytesWanted(kc);
  }
  return 0;
}

int ParamBytesWanted(std::string_view name) {
  return ParamBytesWanted(ClassifyKernel(name));
}

}  // namespace flopspy::analyzers
