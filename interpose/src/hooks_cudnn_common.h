// What every cuDNN hook shares (docs/cudnn-hooks.md): the hook ids, the real functions per call
// site (the libcudnn copy the caller is linked against), the functions a hook asks that same copy,
// and RunDnnCall, the body of the hooks that record a call.
//
// A recorded call is a LibraryCallRecord, as a cuBLAS call's is: the kernels cuDNN launches inside
// it carry its correlation id and are the call's (GPU time per call). Its figures are filled here,
// from descriptors that die with the call (analyzers/dnn_formulas.h); the flusher keeps them.
#pragma once

#include <cudnn.h>

#include <cstdint>

#include "caller_resolver.h"
#include "capture_window.h"
#include "flopspy/analyzers/dnn_formulas.h"
#include "library_scope.h"
#include "raw_events.h"
#include "recorder.h"
#include "timed_library_call.h"

#define FLOPSPY_CUDNN_EXPORT extern "C" __attribute__((visibility("default")))

// Every cuDNN entry point flopspy hooks. interpose/CMakeLists.txt reads the names from this list
// for libflopspy.so's version script.
#define FLOPSPY_CUDNN_HOOKS(X)                \
  X(cudnnConvolutionForward)                  \
  X(cudnnConvolutionBackwardData)             \
  X(cudnnConvolutionBackwardFilter)           \
  X(cudnnConvolutionBiasActivationForward)    \
  X(cudnnBatchNormalizationForwardTraining)   \
  X(cudnnBatchNormalizationForwardTrainingEx) \
  X(cudnnBatchNormalizationForwardInference)  \
  X(cudnnBatchNormalizationBackward)          \
  X(cudnnBatchNormalizationBackwardEx)        \
  X(cudnnBackendCreateDescriptor)             \
  X(cudnnBackendDestroyDescriptor)            \
  X(cudnnBackendSetAttribute)                 \
  X(cudnnBackendGetAttribute)                 \
  X(cudnnBackendFinalize)                     \
  X(cudnnBackendExecute)

namespace flopspy::interpose::cudnn {

enum HookId : uint16_t {
#define FLOPSPY_CUDNN_HOOK_ID(name) kHook_##name,
  FLOPSPY_CUDNN_HOOKS(FLOPSPY_CUDNN_HOOK_ID)
#undef FLOPSPY_CUDNN_HOOK_ID
      kHookCount
};

extern CallerCache g_sites[kHookCount];

// Cold path: says once that `id` has nothing to forward to.
void ReportMissing(HookId id) noexcept;

// The functions the hooks ask the copy a call went to (host-side reads of its own objects).
enum BesideSlot : int {
  kSlotGetStream,            // cudnnGetStream
  kSlotGetTensorNd,          // cudnnGetTensorNdDescriptor
  kSlotGetFilterNd,          // cudnnGetFilterNdDescriptor
  kSlotGetConvolutionNd,     // cudnnGetConvolutionNdDescriptor
  kSlotGetGroupCount,        // cudnnGetConvolutionGroupCount
  kSlotGetMathType,          // cudnnGetConvolutionMathType
  kSlotGetActivation,        // cudnnGetActivationDescriptor
  kSlotBackendGetAttribute,  // cudnnBackendGetAttribute (the real one, not flopspy's hook)
};
static_assert(kSlotBackendGetAttribute < LibraryCopy::kBesideSlots);

// The function in `slot` of `copy` (nullptr when the copy lacks it: said once, and the record
// then lacks what it would tell).
void* Beside(LibraryCopy* copy, BesideSlot slot);
template <class Fn>
Fn BesideAs(LibraryCopy* copy, BesideSlot slot) {
  return reinterpret_cast<Fn>(Beside(copy, slot));
}

// Reads a legacy tensor descriptor (cudnnGetTensorNdDescriptor of the copy): its type, dims and
// strides. False when it cannot be read (null, not the copy's, more than 8 dimensions).
bool ReadTensorDescriptor(LibraryCopy* copy, cudnnTensorDescriptor_t desc,
                          analyzers::DnnTensor& tensor);

// Sets raw.stream_handle from the handle's stream (cudnnGetStream of the copy), or marks the
// stream unknown.
void ReadStream(RawLibraryCall& raw, LibraryCopy* copy, cudnnHandle_t handle);

// Whether a host scalar of the type cuDNN takes for `data_type` tensors (double for double
// tensors, float otherwise) is non-zero. False for a null pointer.
bool HostScalarNonZero(const void* scalar, uint8_t data_type);

// A call that failed did no work: its shapes stay, its figures are 0 (exact, as for cuBLAS).
void NoteFailed(trace::LibraryCallRecord& record);

// Runs the real function and records the call: `decode(raw, copy)` fills the record after the
// call returned (its descriptors are still the program's). Returns the real result. Nested cuDNN
// calls (cuDNN calling its own API) and calls outside the capture window are only forwarded.
template <HookId kId, class Fn, class Decode, class... A>
__attribute__((always_inline)) inline cudnnStatus_t RunDnnCall(const void* caller, Decode decode,
                                                               A... args) {
  const CallTarget target = g_sites[kId].Target(caller);
  const auto real = reinterpret_cast<Fn>(target.real);
  if (__builtin_expect(real == nullptr, 0)) {
    ReportMissing(kId);
    return CUDNN_STATUS_NOT_INITIALIZED;
  }
  if (!RecordingCalls() || InsideDnnCall()) return real(args...);
  RawLibraryCall raw;
  const cudnnStatus_t status =
      TimedLibraryCall<DnnCallScope>(raw, [&]() noexcept { return real(args...); });
  decode(raw, target.copy);
  if (status != CUDNN_STATUS_SUCCESS) NoteFailed(raw.record);
  raw.Seal();
  EmitBytes(&raw, raw.record.h.size());
  return status;
}

}  // namespace flopspy::interpose::cudnn
