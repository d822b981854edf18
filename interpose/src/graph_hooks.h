// What the driver's graph functions record (driver_entries.h, kind Graph; docs/cuda-graphs.md):
// captures opened and closed, graphs instantiated, updated and destroyed (GraphEventRecord), and
// kernel nodes made or changed through the graph API, each recorded as a launch that ran nothing
// (kLaunchCaptured) with its parameters, followed by its GraphNodeRecord. hooks_driver.cpp calls
// the real function, then the overload of NoteGraphCall that matches its parameters.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "flopspy/trace/schema.h"

namespace flopspy::interpose {

struct GraphCall {
  trace::Api api = trace::Api::kUnknown;  // node calls: which one
  uint64_t enter_ns = 0;
  uint64_t exit_ns = 0;
  CUresult result = CUDA_SUCCESS;
  bool record = false;           // records are wanted (ids and capture counts are kept regardless)
  const void* driver = nullptr;  // the real function called (LaunchShape::driver)
  uint32_t destroyed = 0;        // a destroy call: the handle's id, forgotten before the call
};

// Before the real call: a destroyed handle's id is read and forgotten first, so that a handle
// the driver hands out again at once (another thread) gets a new id. 0 for other calls.
uint32_t ForgetBeforeDestroy(CUgraphExec exec) noexcept;
uint32_t ForgetBeforeDestroy(CUgraph graph) noexcept;
template <class... A>
uint32_t ForgetBeforeDestroy(A...) noexcept {
  return 0;
}

// Captures begun and ended.
void NoteGraphCall(const GraphCall& call, CUstream stream, CUstreamCaptureMode mode) noexcept;
void NoteGraphCall(const GraphCall& call, CUstream stream, CUgraph graph,
                   const CUgraphNode* dependencies, const CUgraphEdgeData* edges, size_t count,
                   CUstreamCaptureMode mode) noexcept;
void NoteGraphCall(const GraphCall& call, CUstream stream, CUgraph* graph) noexcept;
// Instantiation and update.
void NoteGraphCall(const GraphCall& call, CUgraphExec* exec, CUgraph graph,
                   unsigned long long flags) noexcept;
void NoteGraphCall(const GraphCall& call, CUgraphExec* exec, CUgraph graph,
                   CUDA_GRAPH_INSTANTIATE_PARAMS* params) noexcept;
void NoteGraphCall(const GraphCall& call, CUgraphExec exec, CUgraph graph,
                   CUgraphExecUpdateResultInfo* info) noexcept;
// Kernel nodes through the graph API.
void NoteGraphCall(const GraphCall& call, CUgraphNode* node, CUgraph graph,
                   const CUgraphNode* dependencies, size_t count,
                   const CUDA_KERNEL_NODE_PARAMS* params) noexcept;
void NoteGraphCall(const GraphCall& call, CUgraphNode* node, CUgraph graph,
                   const CUgraphNode* dependencies, const CUgraphEdgeData* edges, size_t count,
                   CUgraphNodeParams* params) noexcept;
void NoteGraphCall(const GraphCall& call, CUgraphNode node,
                   const CUDA_KERNEL_NODE_PARAMS* params) noexcept;
void NoteGraphCall(const GraphCall& call, CUgraphExec exec, CUgraphNode node,
                   const CUDA_KERNEL_NODE_PARAMS* params) noexcept;
// Destruction.
void NoteGraphCall(const GraphCall& call, CUgraphExec exec) noexcept;
void NoteGraphCall(const GraphCall& call, CUgraph graph) noexcept;

}  // namespace flopspy::interpose
