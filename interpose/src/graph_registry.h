// CUDA graphs as the trace names them (docs/cuda-graphs.md): a flopspy id for each graph and
// executable-graph handle, given at first sight and dropped when the handle is destroyed (the
// driver reuses handles; an id never names two graphs), and whether any stream is capturing, so
// that a launch asks the driver where it went only while a capture is open.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <optional>

namespace flopspy::interpose {

// 0 for a null handle, or when a table of 4096 live handles is full (said once).
uint32_t GraphIdOf(CUgraph graph) noexcept;
uint32_t ExecIdOf(CUgraphExec exec) noexcept;
// The handle was destroyed: its next sight gets a new id.
void ForgetGraph(CUgraph graph) noexcept;
void ForgetExec(CUgraphExec exec) noexcept;

// Stream captures begun and not yet ended, in the whole process.
void CaptureBegan() noexcept;
void CaptureEnded() noexcept;
bool CapturesOpen() noexcept;

// Where a launch on `stream` just went, asked of the driver (cuStreamGetCaptureInfo): the graph
// being captured and the node the launch made. nullopt when the stream is not capturing or the
// driver cannot say.
struct CapturedNode {
  uint32_t graph = 0;
  uint64_t node = 0;  // CUgraphNode; 0 when the stream's dependencies are not one node
  uint64_t capture_id = 0;
};
std::optional<CapturedNode> CaptureOf(uint64_t stream, bool per_thread_stream) noexcept;

}  // namespace flopspy::interpose
