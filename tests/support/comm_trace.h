// A rank of a data-parallel job as a trace, for the NCCL tests (docs/nccl.md): steps of a GEMM
// kernel then an all-reduce of 1 Mi floats (4 MiB) on a two-rank communicator, on an H100. A
// late rank starts each all-reduce `late_ns` after the other; the other rank's collective kernel
// waits for it. Both ranks share the wall clock (same anchors), each its own monotonic origin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flopspy::testing {

inline constexpr char kCommKernel[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
inline constexpr uint64_t kCommCommunicatorId = 0x5eed5eed5eedull;
inline constexpr int64_t kCommCount = 1 << 20;  // floats per all-reduce: S = 4 MiB

struct CommRankSpec {
  int rank = 0;
  int steps = 5;
  uint64_t late_ns = 0;            // this rank reaches each all-reduce this much later
  uint64_t wait_ns = 0;            // its collective kernel waits this long for the other rank
  uint64_t transfer_ns = 500'000;  // the all-reduce kernel's time once both ranks are in
  // A compute kernel on another stream over the first `overlap_ns` of each collective kernel.
  uint64_t overlap_ns = 0;
  // The collective kernel's GPU record carries its launch's correlation, not the call's (no
  // external correlation id).
  bool launch_correlation = false;
  int64_t count = kCommCount;  // floats per all-reduce
  // Each all-reduce inside ncclGroupStart/End, as PyTorch makes them: the group's end launches.
  bool grouped = false;
};

std::vector<uint8_t> CommRankTrace(const CommRankSpec& spec);

// Writes rank0.fspy (on time, waiting `late_ns` in each collective) and rank1.fspy (late by
// `late_ns`, a compute kernel over half of each collective) into `dir` (created); returns it.
std::string WriteCommJob(const std::string& dir, uint64_t late_ns);

}  // namespace flopspy::testing
