#include "flopspy/analyzers/blas_routine.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/cublas_entry_points.h"

namespace flopspy::analyzers {
namespace {

struct RoutineName {
  BlasRoutine routine;
  std::string_view name;
};

constexpr std::array<RoutineName, 49> kRoutineNames = {{
    {BlasRoutine::kUnknown, "unknown"},
    {BlasRoutine::kGemm, "gemm"},
    {BlasRoutine::kGemm3m, "gemm3m"},
    {BlasRoutine::kGemmBatched, "gemm_batched"},
    {BlasRoutine::kGemmStridedBatched, "gemm_strided_batched"},
    {BlasRoutine::kGemmGroupedBatched, "gemm_grouped_batched"},
    {BlasRoutine::kGemm3mBatched, "gemm3m_batched"},
    {BlasRoutine::kGemm3mStridedBatched, "gemm3m_strided_batched"},
    {BlasRoutine::kGemv, "gemv"},
    {BlasRoutine::kGemvBatched, "gemv_batched"},
    {BlasRoutine::kGemvStridedBatched, "gemv_strided_batched"},
    {BlasRoutine::kGer, "ger"},
    {BlasRoutine::kTrsm, "trsm"},
    {BlasRoutine::kTrsmBatched, "trsm_batched"},
    {BlasRoutine::kTrmm, "trmm"},
    {BlasRoutine::kSymm, "symm"},
    {BlasRoutine::kHemm, "hemm"},
    {BlasRoutine::kSyrk, "syrk"},
    {BlasRoutine::kHerk, "herk"},
    {BlasRoutine::kSyr2k, "syr2k"},
    {BlasRoutine::kHer2k, "her2k"},
    {BlasRoutine::kSyrkx, "syrkx"},
    {BlasRoutine::kHerkx, "herkx"},
    {BlasRoutine::kDot, "dot"},
    {BlasRoutine::kAxpy, "axpy"},
    {BlasRoutine::kScal, "scal"},
    {BlasRoutine::kNrm2, "nrm2"},
    {BlasRoutine::kLtMatmul, "lt_matmul"},
    {BlasRoutine::kDnnConvForward, "conv_forward"},
    {BlasRoutine::kDnnConvBackwardData, "conv_backward_data"},
    {BlasRoutine::kDnnConvBackwardFilter, "conv_backward_filter"},
    {BlasRoutine::kDnnConvBiasActivation, "conv_bias_activation"},
    {BlasRoutine::kDnnBatchNormForwardTraining, "batch_norm_forward_training"},
    {BlasRoutine::kDnnBatchNormForwardInference, "batch_norm_forward_inference"},
    {BlasRoutine::kDnnBatchNormBackward, "batch_norm_backward"},
    {BlasRoutine::kDnnBatchNormForwardTrainingEx, "batch_norm_forward_training_ex"},
    {BlasRoutine::kDnnBatchNormBackwardEx, "batch_norm_backward_ex"},
    {BlasRoutine::kDnnGraph, "dnn_graph"},
    {BlasRoutine::kNcclAllReduce, "all_reduce"},
    {BlasRoutine::kNcclBroadcast, "broadcast"},
    {BlasRoutine::kNcclReduce, "reduce"},
    {BlasRoutine::kNcclAllGather, "all_gather"},
    {BlasRoutine::kNcclReduceScatter, "reduce_scatter"},
    {BlasRoutine::kNcclAllToAll, "all_to_all"},
    {BlasRoutine::kNcclGather, "gather"},
    {BlasRoutine::kNcclScatter, "scatter"},
    {BlasRoutine::kNcclSend, "send"},
    {BlasRoutine::kNcclRecv, "recv"},
    {BlasRoutine::kNcclGroupEnd, "group"},
}};

// Short local names keep one table row per line.
constexpr uint8_t kNa = kNotApplicable;
constexpr uint8_t kArg = kFromArgs;
constexpr uint8_t kR16F = cuda_type::kR16F;
constexpr uint8_t kR16BF = cuda_type::kR16BF;
constexpr uint8_t kR32F = cuda_type::kR32F;
constexpr uint8_t kR64F = cuda_type::kR64F;
constexpr uint8_t kC32F = cuda_type::kC32F;
constexpr uint8_t kC64F = cuda_type::kC64F;
constexpr uint8_t kc16F = compute_type::k16F;
constexpr uint8_t kc32F = compute_type::k32F;
constexpr uint8_t kc64F = compute_type::k64F;

constexpr BlasEntryPoint E(std::string_view name, BlasRoutine routine, BlasApi api, uint8_t a,
                           uint8_t b, uint8_t c, uint8_t d, uint8_t compute, uint8_t scale,
                           BlasConj conj = BlasConj::kNone) {
  return BlasEntryPoint{name,    routine, api, name.ends_with("_64"), a, b, c, d,
                        compute, scale,   conj};
}

using enum BlasRoutine;
using enum BlasApi;
using enum BlasConj;

// Names without _v2 where a _v2 exists are the legacy cublas.h API (different signature).
#define FLOPSPY_BLAS_ENTRY(F, name, I, T1, T2, T3, ...) E(#name, __VA_ARGS__),
// A plain array: deducing std::array's size from ~300 elements exceeds clang's fold limit.
constexpr BlasEntryPoint kListed[] = {FLOPSPY_CUBLAS_ENTRY_POINTS(FLOPSPY_BLAS_ENTRY)};
#undef FLOPSPY_BLAS_ENTRY

// The list is grouped by API; lookups want it sorted by name.
constexpr auto SortedByName() {
  std::array<BlasEntryPoint, std::size(kListed)> entries{};
  std::copy(std::begin(kListed), std::end(kListed), entries.begin());
  std::sort(entries.begin(), entries.end(),
            [](const BlasEntryPoint& x, const BlasEntryPoint& y) { return x.name < y.name; });
  return entries;
}
constexpr auto kEntryPoints = SortedByName();

constexpr bool NamesUnique() {
  for (size_t i = 1; i < kEntryPoints.size(); ++i) {
    if (!(kEntryPoints[i - 1].name < kEntryPoints[i].name)) return false;
  }
  return true;
}
static_assert(NamesUnique(), "cublas_entry_points.h lists an entry point twice");

}  // namespace

std::string_view BlasRoutineName(BlasRoutine routine) {
  for (const auto& r : kRoutineNames) {
    if (r.routine == routine) return r.name;
  }
  return "unknown";
}

std::optional<BlasRoutine> BlasRoutineFromName(std::string_view name) {
  for (const auto& r : kRoutineNames) {
    if (r.name == name) return r.routine;
  }
  return std::nullopt;
}

BlasRoutine BlasRoutineFromId(uint16_t id) {
  for (const auto& r : kRoutineNames) {
    if (static_cast<uint16_t>(r.routine) == id) return r.routine;
  }
  return BlasRoutine::kUnknown;
}

BlasLevel LevelOf(BlasRoutine routine) {
  switch (routine) {
    case kGemm:
    case kGemm3m:
    case kGemmBatched:
    case kGemmStridedBatched:
    case kGemmGroupedBatched:
    case kGemm3mBatched:
    case kGemm3mStridedBatched:
    case kTrsm:
    case kTrsmBatched:
    case kTrmm:
    case kSymm:
    case kHemm:
    case kSyrk:
    case kHerk:
    case kSyr2k:
    case kHer2k:
    case kSyrkx:
    case kHerkx:
    case kLtMatmul:
    // A convolution is a GEMM in disguise (docs/cudnn-hooks.md §2): its types pick the roof as a
    // level-3 routine's do.
    case kDnnConvForward:
    case kDnnConvBackwardData:
    case kDnnConvBackwardFilter:
    case kDnnConvBiasActivation:
    case kDnnGraph:
      return BlasLevel::kLevel3;
    case kGemv:
    case kGemvBatched:
    case kGemvStridedBatched:
    case kGer:
      return BlasLevel::kLevel2;
    case kDot:
    case kAxpy:
    case kScal:
    case kNrm2:
    // Batch normalisation is vector arithmetic on CUDA cores, in the execution type (type_d).
    case kDnnBatchNormForwardTraining:
    case kDnnBatchNormForwardInference:
    case kDnnBatchNormBackward:
    case kDnnBatchNormForwardTrainingEx:
    case kDnnBatchNormBackwardEx:
      return BlasLevel::kLevel1;
    // Communication has no BLAS level (and no roof).
    case kNcclAllReduce:
    case kNcclBroadcast:
    case kNcclReduce:
    case kNcclAllGather:
    case kNcclReduceScatter:
    case kNcclAllToAll:
    case kNcclGather:
    case kNcclScatter:
    case kNcclSend:
    case kNcclRecv:
    case kNcclGroupEnd:
    case kUnknown:
      break;
  }
  return BlasLevel::kUnknown;
}

bool IsGemmLike(BlasRoutine routine) {
  switch (routine) {
    case kGemm:
    case kGemm3m:
    case kGemmBatched:
    case kGemmStridedBatched:
    case kGemmGroupedBatched:
    case kGemm3mBatched:
    case kGemm3mStridedBatched:
    case kLtMatmul:
      return true;
    default:
      return false;
  }
}

bool IsDnnRoutine(BlasRoutine routine) {
  return !DnnEntryPointName(routine).empty();
}

std::string_view DnnEntryPointName(BlasRoutine routine) {
  switch (routine) {
    case kDnnConvForward:
      return "cudnnConvolutionForward";
    case kDnnConvBackwardData:
      return "cudnnConvolutionBackwardData";
    case kDnnConvBackwardFilter:
      return "cudnnConvolutionBackwardFilter";
    case kDnnConvBiasActivation:
      return "cudnnConvolutionBiasActivationForward";
    case kDnnBatchNormForwardTraining:
      return "cudnnBatchNormalizationForwardTraining";
    case kDnnBatchNormForwardInference:
      return "cudnnBatchNormalizationForwardInference";
    case kDnnBatchNormBackward:
      return "cudnnBatchNormalizationBackward";
    case kDnnBatchNormForwardTrainingEx:
      return "cudnnBatchNormalizationForwardTrainingEx";
    case kDnnBatchNormBackwardEx:
      return "cudnnBatchNormalizationBackwardEx";
    case kDnnGraph:
      return "cudnnBackendExecute";
    default:
      return {};
  }
}

bool IsCommRoutine(BlasRoutine routine) {
  return !CommEntryPointName(routine).empty();
}

std::string_view CommEntryPointName(BlasRoutine routine) {
  switch (routine) {
    case kNcclAllReduce:
      return "ncclAllReduce";
    case kNcclBroadcast:
      return "ncclBroadcast";
    case kNcclReduce:
      return "ncclReduce";
    case kNcclAllGather:
      return "ncclAllGather";
    case kNcclReduceScatter:
      return "ncclReduceScatter";
    case kNcclAllToAll:
      return "ncclAlltoAll";
    case kNcclGather:
      return "ncclGather";
    case kNcclScatter:
      return "ncclScatter";
    case kNcclSend:
      return "ncclSend";
    case kNcclRecv:
      return "ncclRecv";
    case kNcclGroupEnd:
      return "ncclGroupEnd";
    default:
      return {};
  }
}

std::span<const BlasEntryPoint> BlasEntryPoints() {
  return kEntryPoints;
}

const BlasEntryPoint* FindBlasEntryPoint(std::string_view symbol) {
  const auto* it = std::lower_bound(
      std::begin(kEntryPoints), std::end(kEntryPoints), symbol,
      [](const BlasEntryPoint& e, std::string_view name) { return e.name < name; });
  if (it == std::end(kEntryPoints) || it->name != symbol) return nullptr;
  return it;
}

void ApplyEntryPointDefaults(const BlasEntryPoint& entry, trace::LibraryCallRecord& record) {
  record.routine = static_cast<uint16_t>(entry.routine);
  const auto set = [](uint8_t fixed, uint8_t& field) {
    if (fixed != kFromArgs) field = fixed;
  };
  set(entry.type_a, record.type_a);
  set(entry.type_b, record.type_b);
  set(entry.type_c, record.type_c);
  set(entry.type_d, record.type_d);
  set(entry.compute_type, record.compute_type);
  set(entry.scale_type, record.scale_type);
}

}  // namespace flopspy::analyzers
