// The shared, out-of-line part of the cuDNN hooks: call-site caches, the copy's getters, the
// record defaults.
#include "hooks_cudnn_common.h"

#include <atomic>
#include <cstring>
#include <iterator>
#include <string>

#include "flopspy/analyzers/blas_types.h"
#include "library_resolver.h"
#include "log.h"

namespace flopspy::interpose::cudnn {
namespace {

constexpr const char* kHookNames[] = {
#define FLOPSPY_CUDNN_HOOK_NAME(name) #name,
    FLOPSPY_CUDNN_HOOKS(FLOPSPY_CUDNN_HOOK_NAME)
#undef FLOPSPY_CUDNN_HOOK_NAME
};
static_assert(std::size(kHookNames) == kHookCount);

std::atomic<bool> g_missing_reported[kHookCount];

constexpr const char* kBesideNames[] = {
    "cudnnGetStream",
    "cudnnGetTensorNdDescriptor",
    "cudnnGetFilterNdDescriptor",
    "cudnnGetConvolutionNdDescriptor",
    "cudnnGetConvolutionGroupCount",
    "cudnnGetConvolutionMathType",
    "cudnnGetActivationDescriptor",
    "cudnnBackendGetAttribute",
};
static_assert(std::size(kBesideNames) == kSlotBackendGetAttribute + 1);
std::atomic<bool> g_beside_reported[std::size(kBesideNames)];

}  // namespace

constinit CallerCache g_sites[kHookCount] = {
#define FLOPSPY_CUDNN_HOOK_SITES(name) {CudaLibrary::kDnn, #name},
    FLOPSPY_CUDNN_HOOKS(FLOPSPY_CUDNN_HOOK_SITES)
#undef FLOPSPY_CUDNN_HOOK_SITES
};

void ReportMissing(HookId id) noexcept {
  if (g_missing_reported[id].exchange(true)) return;
  try {
    ReportMissingReal(kHookNames[id]);
  } catch (...) {
  }
}

void* Beside(LibraryCopy* copy, BesideSlot slot) {
  void* f = copy != nullptr ? copy->Beside(slot, kBesideNames[slot]) : nullptr;
  if (__builtin_expect(f == nullptr, 0) && !g_beside_reported[slot].exchange(true)) {
    try {
      ReportOnce(std::string("missing-") + kBesideNames[slot], trace::WarningCode::kSymbolMissing,
                 std::string("the libcudnn a call went to does not define ") + kBesideNames[slot] +
                     "; cuDNN records lack what it would tell");
    } catch (...) {
    }
  }
  return f;
}

bool ReadTensorDescriptor(LibraryCopy* copy, cudnnTensorDescriptor_t desc,
                          analyzers::DnnTensor& t) {
  namespace a = flopspy::analyzers;
  using GetTensorNd =
      cudnnStatus_t (*)(cudnnTensorDescriptor_t, int, cudnnDataType_t*, int*, int*, int*);
  const auto get = BesideAs<GetTensorNd>(copy, kSlotGetTensorNd);
  if (get == nullptr || desc == nullptr) return false;
  cudnnDataType_t type{};
  int rank = 0;
  int dims[a::kMaxDnnRank] = {};
  int strides[a::kMaxDnnRank] = {};
  if (get(desc, a::kMaxDnnRank, &type, &rank, dims, strides) != CUDNN_STATUS_SUCCESS || rank < 1 ||
      rank > a::kMaxDnnRank) {
    return false;
  }
  t.type = a::CudaTypeOfDnnType(type);
  t.rank = rank;
  for (int i = 0; i < rank; ++i) {
    t.dims[i] = dims[i];
    t.strides[i] = strides[i];
  }
  return true;
}

void ReadStream(RawLibraryCall& raw, LibraryCopy* copy, cudnnHandle_t handle) {
  using GetStream = cudnnStatus_t (*)(cudnnHandle_t, cudaStream_t*);
  const auto get = BesideAs<GetStream>(copy, kSlotGetStream);
  cudaStream_t stream = nullptr;
  if (handle == nullptr || get == nullptr || get(handle, &stream) != CUDNN_STATUS_SUCCESS) {
    raw.record.flags |= trace::kLibStreamUnknown;
    return;
  }
  raw.stream_handle = reinterpret_cast<uint64_t>(stream);
}

void NoteFailed(trace::LibraryCallRecord& r) {
  r.flops = r.epilogue_flops = r.bytes = 0;
  r.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
}

bool HostScalarNonZero(const void* scalar, uint8_t data_type) {
  if (scalar == nullptr) return false;
  if (data_type == analyzers::cuda_type::kR64F) {
    double v;
    std::memcpy(&v, scalar, sizeof v);
    return v != 0;
  }
  float v;
  std::memcpy(&v, scalar, sizeof v);
  return v != 0;
}

}  // namespace flopspy::interpose::cudnn
