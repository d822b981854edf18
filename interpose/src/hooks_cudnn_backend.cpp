// cuDNN's backend API, which PyTorch uses for convolutions and attention (docs/cudnn-hooks.md
// §3): the descriptor calls feed the shadow (cudnn_shadow.h) so that each cudnnBackendExecute is
// recorded with what its plan computes. Every hook forwards first and returns the real result;
// the shadow is fed only from calls that succeeded.
#include <cudnn.h>

#include "cudnn_shadow.h"
#include "flopspy/analyzers/dnn_formulas.h"
#include "hooks_cudnn_common.h"

namespace flopspy::interpose::cudnn {
namespace {

namespace a = flopspy::analyzers;

using GetAttributeFn = cudnnStatus_t (*)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                         cudnnBackendAttributeType_t, int64_t, int64_t*, void*);

template <HookId kId, class Fn>
Fn RealFor(const void* caller, LibraryCopy** copy = nullptr) {
  const CallTarget target = g_sites[kId].Target(caller);
  if (copy != nullptr) *copy = target.copy;
  if (__builtin_expect(target.real == nullptr, 0)) ReportMissing(kId);
  return reinterpret_cast<Fn>(target.real);
}

// Reads one scalar or array attribute of a live descriptor of the program's.
template <class T>
int64_t ReadAttribute(GetAttributeFn get, const void* desc, cudnnBackendAttributeName_t name,
                      cudnnBackendAttributeType_t type, T* out, int64_t capacity) {
  int64_t count = 0;
  if (get == nullptr || desc == nullptr ||
      get(const_cast<void*>(desc), name, type, capacity, &count, out) != CUDNN_STATUS_SUCCESS) {
    return -1;
  }
  return count;
}

bool ReadTensor(GetAttributeFn get, const void* desc, a::DnnTensor& t) {
  cudnnDataType_t type{};
  int64_t dims[a::kMaxDnnRank] = {};
  int64_t strides[a::kMaxDnnRank] = {};
  const int64_t rank = ReadAttribute(get, desc, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64,
                                     dims, a::kMaxDnnRank);
  if (rank < 1 || rank > a::kMaxDnnRank ||
      ReadAttribute(get, desc, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type, 1) != 1) {
    return false;
  }
  ReadAttribute(get, desc, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides, a::kMaxDnnRank);
  // A virtual tensor never leaves the fused kernel; a by-value one is a host scalar: neither is
  // DRAM traffic.
  bool is_virtual = false;
  bool by_value = false;
  ReadAttribute(get, desc, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &is_virtual, 1);
  ReadAttribute(get, desc, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &by_value, 1);
  int64_t uid = -1;
  ReadAttribute(get, desc, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid, 1);
  t.type = a::CudaTypeOfDnnType(type);
  t.rank = static_cast<int>(rank);
  for (int i = 0; i < t.rank; ++i) {
    t.dims[i] = dims[i];
    t.strides[i] = strides[i];
  }
  t.is_virtual = is_virtual || by_value;
  t.uid = uid;
  return true;
}

// The operation's tensor set as `attribute`, read.
bool LinkedTensor(GetAttributeFn get, const void* op, int attribute, a::DnnTensor& t) {
  return ReadTensor(get, BackendShadow::Get().LinkOf(op, attribute), t);
}

struct ConvAttributes {
  int x, w, y, conv;  // for backward data x is dx; backward filter w is dw; backward y is dy
  a::ConvPass pass;
};

bool ModelConvolution(GetAttributeFn get, const void* op, const ConvAttributes& at,
                      OperationModel& m) {
  a::DnnConvolution& c = m.conv;
  c.pass = at.pass;
  if (!LinkedTensor(get, op, at.x, c.x) || !LinkedTensor(get, op, at.w, c.w) ||
      !LinkedTensor(get, op, at.y, c.y)) {
    return false;
  }
  const void* conv = BackendShadow::Get().LinkOf(op, at.conv);
  int64_t strides[3] = {1, 1, 1};
  ReadAttribute(get, conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, strides, 3);
  for (int i = 0; i < 3; ++i) c.conv_strides[i] = strides[i];
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  ReadAttribute(get, conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute, 1);
  // The backend has no math type: FP32 convolutions are taken as FMA until their kernel's name
  // says TF32 (the report's rule for library calls).
  c.compute_type = a::DnnComputeType(c.x.type, a::CudaTypeOfDnnType(compute), a::dnn_math::kFma);
  // Groups are in the shapes: the filter has C / groups input channels.
  c.groups = c.w.dims[1] > 0 && c.x.dims[1] % c.w.dims[1] == 0 ? c.x.dims[1] / c.w.dims[1] : 0;
  c.beta_non_zero = BackendShadow::Get().BetaNonZero(op, c.beta_known);
  m.kind = OperationModel::Kind::kConvolution;
  return true;
}

// Models an operation just finalized, from its linked tensors (alive: it was finalized with them).
void ModelOperation(LibraryCopy* copy, const void* op, int type) {
  const auto get = BesideAs<GetAttributeFn>(copy, kSlotBackendGetAttribute);
  OperationModel m;
  bool modelled = false;
  switch (type) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
      modelled = ModelConvolution(
          get, op,
          {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
           CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
           CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, a::ConvPass::kForward},
          m);
      break;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
      modelled = ModelConvolution(
          get, op,
          {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
           CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
           CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
           CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, a::ConvPass::kBackwardData},
          m);
      break;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
      modelled = ModelConvolution(
          get, op,
          {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
           CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
           CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
           CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, a::ConvPass::kBackwardFilter},
          m);
      break;
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: {
      modelled = LinkedTensor(get, op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, m.a) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, m.b) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, m.c);
      cudnnDataType_t compute = CUDNN_DATA_FLOAT;
      ReadAttribute(get, BackendShadow::Get().LinkOf(op, CUDNN_ATTR_OPERATION_MATMUL_DESC),
                    CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute, 1);
      m.compute_type =
          a::DnnComputeType(m.a.type, a::CudaTypeOfDnnType(compute), a::dnn_math::kFma);
      m.kind = OperationModel::Kind::kMatmul;
      break;
    }
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
      // Forward (X [, B] -> Y) or backward (DY, X -> DX) forms.
      modelled = (LinkedTensor(get, op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, m.c) &&
                  LinkedTensor(get, op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, m.a)) ||
                 (LinkedTensor(get, op, CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, m.c) &&
                  LinkedTensor(get, op, CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, m.a));
      // The second input: B forward; X in a backward form (the activation's input).
      if (modelled && !LinkedTensor(get, op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, m.b) &&
          BackendShadow::Get().LinkOf(op, CUDNN_ATTR_OPERATION_POINTWISE_DYDESC) != nullptr) {
        LinkedTensor(get, op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, m.b);
      }
      m.kind = OperationModel::Kind::kPointwise;
      break;
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
      modelled = LinkedTensor(get, op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, m.a) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, m.c);
      m.kind = OperationModel::Kind::kReduction;
      break;
    case CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR:
      modelled = LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, m.a) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, m.b) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, m.v) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, m.c);
      LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, m.more[0]);
      m.kind = OperationModel::Kind::kAttentionForward;
      break;
    case CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR: {
      modelled = LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC, m.a) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC, m.b) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC, m.v) &&
                 LinkedTensor(get, op, CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC, m.c);
      const int more[] = {
          CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC, CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC,
          CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC, CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC,
          CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC};
      for (size_t i = 0; i < m.more.size(); ++i) LinkedTensor(get, op, more[i], m.more[i]);
      m.kind = OperationModel::Kind::kAttentionBackward;
      break;
    }
    default:
      return;  // not an operation flopspy models: the graph counts it as unknown
  }
  if (!modelled) m.kind = OperationModel::Kind::kUnknown;
  BackendShadow::Get().SetOperation(op, m);
}

// The beta attribute of the three convolution operations.
bool IsBeta(cudnnBackendAttributeName_t name) {
  return name == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA ||
         name == CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA ||
         name == CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA;
}

}  // namespace
}  // namespace flopspy::interpose::cudnn

namespace fi = ::flopspy::interpose;
namespace fc = ::flopspy::interpose::cudnn;

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBackendCreateDescriptor(
    cudnnBackendDescriptorType_t descriptorType, cudnnBackendDescriptor_t* descriptor) {
  const auto real =
      fc::RealFor<fc::kHook_cudnnBackendCreateDescriptor, decltype(&cudnnBackendCreateDescriptor)>(
          __builtin_return_address(0));
  if (real == nullptr) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t status = real(descriptorType, descriptor);
  if (status == CUDNN_STATUS_SUCCESS && descriptor != nullptr && !fi::InsideDnnCall()) {
    fc::FeedShadow([&](fc::BackendShadow& shadow) { shadow.Created(*descriptor, descriptorType); });
  }
  return status;
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t
cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  const auto real =
      fc::RealFor<fc::kHook_cudnnBackendDestroyDescriptor,
                  decltype(&cudnnBackendDestroyDescriptor)>(__builtin_return_address(0));
  if (real == nullptr) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t status = real(descriptor);
  if (status == CUDNN_STATUS_SUCCESS && !fi::InsideDnnCall()) {
    fc::FeedShadow([&](fc::BackendShadow& shadow) { shadow.Destroyed(descriptor); });
  }
  return status;
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBackendSetAttribute(
    cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,
    cudnnBackendAttributeType_t attributeType, int64_t elementCount, const void* arrayOfElements) {
  const auto real =
      fc::RealFor<fc::kHook_cudnnBackendSetAttribute, decltype(&cudnnBackendSetAttribute)>(
          __builtin_return_address(0));
  if (real == nullptr) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t status =
      real(descriptor, attributeName, attributeType, elementCount, arrayOfElements);
  if (status != CUDNN_STATUS_SUCCESS || arrayOfElements == nullptr || fi::InsideDnnCall()) {
    return status;
  }
  fc::FeedShadow([&](fc::BackendShadow& shadow) {
    if (attributeType == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
      shadow.Linked(descriptor, attributeName, static_cast<const void* const*>(arrayOfElements),
                    elementCount);
    } else if (fc::IsBeta(attributeName) && elementCount >= 1) {
      if (attributeType == CUDNN_TYPE_DOUBLE) {
        shadow.NoteBeta(descriptor, *static_cast<const double*>(arrayOfElements) != 0);
      } else if (attributeType == CUDNN_TYPE_FLOAT) {
        shadow.NoteBeta(descriptor, *static_cast<const float*>(arrayOfElements) != 0);
      }
    }
  });
  return status;
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBackendGetAttribute(
    cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t attributeName,
    cudnnBackendAttributeType_t attributeType, int64_t requestedElementCount, int64_t* elementCount,
    void* arrayOfElements) {
  const auto real =
      fc::RealFor<fc::kHook_cudnnBackendGetAttribute, decltype(&cudnnBackendGetAttribute)>(
          __builtin_return_address(0));
  if (real == nullptr) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t status = real(descriptor, attributeName, attributeType, requestedElementCount,
                                    elementCount, arrayOfElements);
  // Descriptors filled from this one (heuristics' engine configurations, a plan's
  // configuration) compute what it computes.
  if (status == CUDNN_STATUS_SUCCESS && attributeType == CUDNN_TYPE_BACKEND_DESCRIPTOR &&
      arrayOfElements != nullptr && !fi::InsideDnnCall()) {
    int64_t filled = elementCount != nullptr ? *elementCount : requestedElementCount;
    if (filled > requestedElementCount) filled = requestedElementCount;
    fc::FeedShadow([&](fc::BackendShadow& shadow) {
      shadow.Derived(descriptor, static_cast<const void* const*>(arrayOfElements), filled);
    });
  }
  return status;
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  fi::LibraryCopy* copy = nullptr;
  const auto real = fc::RealFor<fc::kHook_cudnnBackendFinalize, decltype(&cudnnBackendFinalize)>(
      __builtin_return_address(0), &copy);
  if (real == nullptr) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t status = real(descriptor);
  if (status != CUDNN_STATUS_SUCCESS || fi::InsideDnnCall()) return status;
  fc::FeedShadow([&](fc::BackendShadow& shadow) {
    switch (const int type = shadow.TypeOf(descriptor)) {
      case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
        shadow.GraphFinalized(descriptor);
        break;
      case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
        shadow.PlanFinalized(descriptor);
        break;
      default:
        fc::ModelOperation(copy, descriptor, type);
        break;
    }
  });
  return status;
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle,
                                                       cudnnBackendDescriptor_t executionPlan,
                                                       cudnnBackendDescriptor_t variantPack) {
  using Fn = decltype(&cudnnBackendExecute);
  return fc::RunDnnCall<fc::kHook_cudnnBackendExecute, Fn>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::ReadStream(raw, copy, handle);
        auto& r = raw.record;
        flopspy::trace::LibraryCallRecord plan{};
        bool known = false;  // the shadow's first use allocates its table
        fc::FeedShadow(
            [&](fc::BackendShadow& shadow) { known = shadow.PlanRecord(executionPlan, plan); });
        if (known) {
          // The plan's shape and figures; this call's times, status and stream.
          const auto keep = r;
          r = plan;
          r.h = keep.h;
          r.device = keep.device;
          r.enter_ns = keep.enter_ns;
          r.exit_ns = keep.exit_ns;
          r.correlation = keep.correlation;
          r.status = keep.status;
          r.epilogue = keep.epilogue;
          r.ptr_align = 0;
          r.name = 0;
          r.flags |= keep.flags;
        } else {
          r.routine = static_cast<uint16_t>(flopspy::analyzers::BlasRoutine::kDnnGraph);
          r.uplo = 0;                                           // no operations known
          r.flags |= flopspy::trace::kLibDescriptorIncomplete;  // a plan flopspy did not see built
        }
      },
      handle, executionPlan, variantPack);
}
