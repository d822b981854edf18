// Human-readable names for the schema's enums, shared by the report and the Chrome export: the
// one place each enum's name is spelt.
#include "flopspy/trace/schema.h"

namespace flopspy::trace {

std::string_view RecordTypeName(RecordType type) {
  switch (type) {
    case RecordType::kPadding:
      return "padding";
    case RecordType::kString:
      return "string";
    case RecordType::kMetadata:
      return "metadata";
    case RecordType::kThread:
      return "thread";
    case RecordType::kFunction:
      return "function";
    case RecordType::kKernelSignature:
      return "kernel_signature";
    case RecordType::kStream:
      return "stream";
    case RecordType::kApiCall:
      return "api_call";
    case RecordType::kKernelLaunch:
      return "kernel_launch";
    case RecordType::kLaunchParams:
      return "launch_params";
    case RecordType::kGpuActivity:
      return "gpu_activity";
    case RecordType::kLibraryCall:
      return "library_call";
    case RecordType::kCpuSample:
      return "cpu_sample";
    case RecordType::kRegion:
      return "region";
    case RecordType::kLostRecords:
      return "lost_records";
    case RecordType::kKernelMetrics:
      return "kernel_metrics";
    case RecordType::kWarning:
      return "warning";
    case RecordType::kTraceEnd:
      return "trace_end";
    case RecordType::kLibraryGroups:
      return "library_groups";
    case RecordType::kRange:
      return "range";
    case RecordType::kResourceName:
      return "resource_name";
    case RecordType::kRangePayload:
      return "range_payload";
    case RecordType::kPyCode:
      return "py_code";
    case RecordType::kStack:
      return "stack";
    case RecordType::kModule:
      return "module";
    case RecordType::kStackSample:
      return "stack_sample";
    case RecordType::kGraphNode:
      return "graph_node";
    case RecordType::kGraphEvent:
      return "graph_event";
  }
  return "unknown";
}

std::string_view GraphEventName(GraphEvent event) {
  switch (event) {
    case GraphEvent::kCaptured:
      return "captured";
    case GraphEvent::kInstantiated:
      return "instantiated";
    case GraphEvent::kUpdated:
      return "updated";
    case GraphEvent::kExecDestroyed:
      return "exec_destroyed";
    case GraphEvent::kGraphDestroyed:
      return "graph_destroyed";
  }
  return "unknown";
}

std::string_view RangeEdgeName(RangeEdge edge) {
  switch (edge) {
    case RangeEdge::kPush:
      return "push";
    case RangeEdge::kPop:
      return "pop";
    case RangeEdge::kStart:
      return "start";
    case RangeEdge::kEnd:
      return "end";
    case RangeEdge::kMark:
      return "mark";
  }
  return "unknown";
}

std::string_view NamedResourceName(NamedResource resource) {
  switch (resource) {
    case NamedResource::kCategory:
      return "category";
    case NamedResource::kOsThread:
      return "thread";
    case NamedResource::kCudaDevice:
      return "device";
    case NamedResource::kCudaContext:
      return "context";
    case NamedResource::kCudaStream:
      return "stream";
    case NamedResource::kCudaEvent:
      return "event";
  }
  return "unknown";
}

std::string_view FigureSourceName(FigureSource source) {
  switch (source) {
    case FigureSource::kUnknown:
      return "unknown";
    case FigureSource::kAnalytic:
      return "analytic";
    case FigureSource::kCatalog:
      return "catalog";
    case FigureSource::kCounters:
      return "counters";
  }
  return "unknown";
}

std::string_view ApiName(Api api) {
  switch (api) {
    case Api::kUnknown:
      return "unknown";
    case Api::kCuLaunchKernel:
      return "cuLaunchKernel";
    case Api::kCuLaunchKernelPtsz:
      return "cuLaunchKernel_ptsz";
    case Api::kCuLaunchKernelEx:
      return "cuLaunchKernelEx";
    case Api::kCuLaunchKernelExPtsz:
      return "cuLaunchKernelEx_ptsz";
    case Api::kCuLaunchCooperativeKernel:
      return "cuLaunchCooperativeKernel";
    case Api::kCuLaunchCooperativeKernelPtsz:
      return "cuLaunchCooperativeKernel_ptsz";
    case Api::kCuGraphLaunch:
      return "cuGraphLaunch";
    case Api::kCuGraphLaunchPtsz:
      return "cuGraphLaunch_ptsz";
    case Api::kCudaLaunchKernel:
      return "cudaLaunchKernel";
    case Api::kCudaLaunchKernelPtsz:
      return "cudaLaunchKernel_ptsz";
    case Api::kCudaLaunchKernelExC:
      return "cudaLaunchKernelExC";
    case Api::kCudaLaunchKernelExCPtsz:
      return "cudaLaunchKernelExC_ptsz";
    case Api::kCudaLaunchCooperativeKernel:
      return "cudaLaunchCooperativeKernel";
    case Api::kCudaLaunchCooperativeKernelPtsz:
      return "cudaLaunchCooperativeKernel_ptsz";
    case Api::kCudaGraphLaunch:
      return "cudaGraphLaunch";
    case Api::kCudaGraphLaunchPtsz:
      return "cudaGraphLaunch_ptsz";
    case Api::kCudaLaunchKernelStub:
      return "__cudaLaunchKernel";
    case Api::kCuGraphAddKernelNode:
      return "cuGraphAddKernelNode";
    case Api::kCuGraphAddNode:
      return "cuGraphAddNode";
    case Api::kCuGraphKernelNodeSetParams:
      return "cuGraphKernelNodeSetParams";
    case Api::kCuGraphExecKernelNodeSetParams:
      return "cuGraphExecKernelNodeSetParams";
    case Api::kCudaLaunchKernelStubPtsz:
      return "__cudaLaunchKernel_ptsz";
    case Api::kCuCtxSynchronize:
      return "cuCtxSynchronize";
    case Api::kCuStreamSynchronize:
      return "cuStreamSynchronize";
    case Api::kCuStreamSynchronizePtsz:
      return "cuStreamSynchronize_ptsz";
    case Api::kCuEventSynchronize:
      return "cuEventSynchronize";
    case Api::kCuStreamWaitEvent:
      return "cuStreamWaitEvent";
    case Api::kCuStreamWaitEventPtsz:
      return "cuStreamWaitEvent_ptsz";
    case Api::kCudaDeviceSynchronize:
      return "cudaDeviceSynchronize";
    case Api::kCudaStreamSynchronize:
      return "cudaStreamSynchronize";
    case Api::kCudaStreamSynchronizePtsz:
      return "cudaStreamSynchronize_ptsz";
    case Api::kCuMemcpy:
      return "cuMemcpy";
    case Api::kCuMemcpyAsync:
      return "cuMemcpyAsync";
    case Api::kCuMemset:
      return "cuMemset";
    case Api::kCuMemsetAsync:
      return "cuMemsetAsync";
    case Api::kCudaMemcpy:
      return "cudaMemcpy";
    case Api::kCudaMemcpyAsync:
      return "cudaMemcpyAsync";
    case Api::kCudaMemcpyAsyncPtsz:
      return "cudaMemcpyAsync_ptsz";
    case Api::kCudaMemset:
      return "cudaMemset";
    case Api::kCudaMemsetAsync:
      return "cudaMemsetAsync";
    case Api::kFlopspyRegion:
      return "flopspy_region";
  }
  return "unknown";
}

std::string_view CopyKindName(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHostToDevice:
      return "HtoD";
    case CopyKind::kDeviceToHost:
      return "DtoH";
    case CopyKind::kDeviceToDevice:
      return "DtoD";
    case CopyKind::kHostToHost:
      return "HtoH";
    case CopyKind::kPeer:
      return "peer";
    case CopyKind::kDefault:
      return "default";
    case CopyKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable:
      return "pageable";
    case MemoryKind::kPinned:
      return "pinned";
    case MemoryKind::kDevice:
      return "device";
    case MemoryKind::kArray:
      return "array";
    case MemoryKind::kManaged:
      return "managed";
    case MemoryKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view LossSourceName(LossSource source) {
  switch (source) {
    case LossSource::kThreadBuffer:
      return "thread_buffer";
    case LossSource::kCuptiBuffer:
      return "cupti_buffer";
    case LossSource::kWriteFailed:
      return "write_failed";
    case LossSource::kCounterSamples:
      return "counter_samples";
    case LossSource::kNoBuffer:
      return "no_buffer";
  }
  return "unknown";
}

std::string_view WarningCodeName(WarningCode code) {
  switch (code) {
    case WarningCode::kGeneric:
      return "generic";
    case WarningCode::kBadConfig:
      return "bad_config";
    case WarningCode::kOutputUnavailable:
      return "output_unavailable";
    case WarningCode::kCuptiUnavailable:
      return "cupti_unavailable";
    case WarningCode::kCountersUnavailable:
      return "counters_unavailable";
    case WarningCode::kSymbolMissing:
      return "symbol_missing";
    case WarningCode::kInternalError:
      return "internal_error";
    case WarningCode::kSignal:
      return "signal";
  }
  return "unknown";
}

std::string_view EndReasonName(EndReason reason) {
  switch (reason) {
    case EndReason::kExit:
      return "exit";
    case EndReason::kSignal:
      return "signal";
    case EndReason::kExec:
      return "exec";
    case EndReason::kDetach:
      return "detach";
  }
  return "unknown";
}

}  // namespace flopspy::trace
