#include "graph_hooks.h"

#include "function_naming.h"
#include "graph_registry.h"
#include "launch_record.h"
#include "recorder.h"

namespace flopspy::interpose {
namespace {

void RecordEvent(const GraphCall& call, trace::GraphEvent event, uint32_t graph,
                 uint32_t exec) noexcept {
  if (!call.record) return;
  trace::GraphEventRecord r{};
  r.h = trace::MakeHeader<trace::GraphEventRecord>();
  r.event = static_cast<uint8_t>(event);
  r.enter_ns = call.enter_ns;
  r.exit_ns = call.exit_ns;
  r.result = static_cast<int32_t>(call.result);
  r.graph = graph;
  r.exec = exec;
  Emit(r);
}

// A kernel node's kernel, shape and parameters, recorded as a launch that ran nothing.
template <class Params>
void RecordKernelNode(const GraphCall& call, const Params* p,
                      trace::GraphNodeRecord node) noexcept {
  if (!call.record || p == nullptr) return;
  const bool by_kernel = p->func == nullptr;
  const FunctionInfo* function =
      FunctionFor(reinterpret_cast<uint64_t>(by_kernel ? static_cast<void*>(p->kern)
                                                       : static_cast<void*>(p->func)),
                  by_kernel ? FunctionKind::kDriverKernel : FunctionKind::kDriverFunction);
  LaunchShape shape;
  shape.grid[0] = p->gridDimX, shape.grid[1] = p->gridDimY, shape.grid[2] = p->gridDimZ;
  shape.block[0] = p->blockDimX, shape.block[1] = p->blockDimY, shape.block[2] = p->blockDimZ;
  shape.dynamic_smem = p->sharedMemBytes;
  shape.driver = call.driver;
  RecordLaunch(call.api, call.enter_ns, call.exit_ns, static_cast<int32_t>(call.result),
               NextCorrelation(), function, shape, {p->kernelParams, p->extra}, &node);
}

trace::GraphNodeRecord ApiNode(uint32_t graph, CUgraphNode node) {
  trace::GraphNodeRecord r{};
  r.graph = graph;
  r.node = reinterpret_cast<uint64_t>(node);
  return r;
}

void Instantiated(const GraphCall& call, CUgraphExec* exec, CUgraph graph) noexcept {
  if (call.result != CUDA_SUCCESS || exec == nullptr) return;
  const uint32_t exec_id = ExecIdOf(*exec);
  RecordEvent(call, trace::GraphEvent::kInstantiated, GraphIdOf(graph), exec_id);
}

void CaptureBegun(const GraphCall& call) noexcept {
  if (call.result == CUDA_SUCCESS) CaptureBegan();
}

}  // namespace

void NoteGraphCall(const GraphCall& call, CUstream, CUstreamCaptureMode) noexcept {
  CaptureBegun(call);
}

void NoteGraphCall(const GraphCall& call, CUstream, CUgraph, const CUgraphNode*,
                   const CUgraphEdgeData*, size_t, CUstreamCaptureMode) noexcept {
  CaptureBegun(call);
}

// The capture is over when the end succeeded or found it invalidated or unjoined; other errors
// (no capture on that stream, a wrong thread) leave the count: one count too many costs a
// driver query per launch, one too few would record captured launches as launches.
void NoteGraphCall(const GraphCall& call, CUstream, CUgraph* graph) noexcept {
  if (call.result == CUDA_SUCCESS || call.result == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED ||
      call.result == CUDA_ERROR_STREAM_CAPTURE_UNJOINED) {
    CaptureEnded();
  }
  if (call.result != CUDA_SUCCESS || graph == nullptr || *graph == nullptr) return;
  RecordEvent(call, trace::GraphEvent::kCaptured, GraphIdOf(*graph), 0);
}

void NoteGraphCall(const GraphCall& call, CUgraphExec* exec, CUgraph graph,
                   unsigned long long) noexcept {
  Instantiated(call, exec, graph);
}

void NoteGraphCall(const GraphCall& call, CUgraphExec* exec, CUgraph graph,
                   CUDA_GRAPH_INSTANTIATE_PARAMS*) noexcept {
  Instantiated(call, exec, graph);
}

void NoteGraphCall(const GraphCall& call, CUgraphExec exec, CUgraph graph,
                   CUgraphExecUpdateResultInfo*) noexcept {
  if (call.result != CUDA_SUCCESS) return;
  RecordEvent(call, trace::GraphEvent::kUpdated, GraphIdOf(graph), ExecIdOf(exec));
}

void NoteGraphCall(const GraphCall& call, CUgraphNode* node, CUgraph graph, const CUgraphNode*,
                   size_t, const CUDA_KERNEL_NODE_PARAMS* params) noexcept {
  if (call.result != CUDA_SUCCESS || node == nullptr) return;
  RecordKernelNode(call, params, ApiNode(GraphIdOf(graph), *node));
}

void NoteGraphCall(const GraphCall& call, CUgraphNode* node, CUgraph graph, const CUgraphNode*,
                   const CUgraphEdgeData*, size_t, CUgraphNodeParams* params) noexcept {
  if (call.result != CUDA_SUCCESS || node == nullptr || params == nullptr ||
      params->type != CU_GRAPH_NODE_TYPE_KERNEL) {
    return;
  }
  RecordKernelNode(call, &params->kernel, ApiNode(GraphIdOf(graph), *node));
}

// A node's graph is not among the arguments: the node's handle says which node changed.
void NoteGraphCall(const GraphCall& call, CUgraphNode node,
                   const CUDA_KERNEL_NODE_PARAMS* params) noexcept {
  if (call.result != CUDA_SUCCESS) return;
  RecordKernelNode(call, params, ApiNode(0, node));
}

void NoteGraphCall(const GraphCall& call, CUgraphExec exec, CUgraphNode node,
                   const CUDA_KERNEL_NODE_PARAMS* params) noexcept {
  if (call.result != CUDA_SUCCESS) return;
  trace::GraphNodeRecord r = ApiNode(0, node);
  r.h.flags = trace::kGraphNodeInExec;
  r.exec = ExecIdOf(exec);
  RecordKernelNode(call, params, r);
}

uint32_t ForgetBeforeDestroy(CUgraphExec exec) noexcept {
  const uint32_t id = ExecIdOf(exec);
  ForgetExec(exec);
  return id;
}

uint32_t ForgetBeforeDestroy(CUgraph graph) noexcept {
  const uint32_t id = GraphIdOf(graph);
  ForgetGraph(graph);
  return id;
}

void NoteGraphCall(const GraphCall& call, CUgraphExec) noexcept {
  if (call.result != CUDA_SUCCESS) return;
  RecordEvent(call, trace::GraphEvent::kExecDestroyed, 0, call.destroyed);
}

void NoteGraphCall(const GraphCall& call, CUgraph) noexcept {
  if (call.result != CUDA_SUCCESS) return;
  RecordEvent(call, trace::GraphEvent::kGraphDestroyed, call.destroyed, 0);
}

}  // namespace flopspy::interpose
