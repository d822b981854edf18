// Traces for the golden reports that no other test builds: GPU counters, cuBLASLt, warnings,
// lost records, regions and one kernel on two grids on an H100 with measured ceilings; a CPU-only
// run with a replayed CPU roofline; a run whose GPU times are missing. Every number is fixed,
// so the reports are the same on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flopspy/gpu_roofline/ceilings.h"

namespace flopspy::testing {

// The device of CountersTrace: UUID and driver that GoldenCeilings() measured.
inline constexpr char kGoldenGpuUuid[] = "GPU-golden-0";
inline constexpr char kGoldenCpuKey[] = "genuineintel-6-55-synthetic";

std::vector<uint8_t> CountersTrace();
// Measured ceilings of CountersTrace's GPU: bf16 tensor and DRAM below the datasheet.
gpuroof::CeilingsFile GoldenCeilings();
// CPU samples played from `replay_file` (a recording of tests/data/cpu_roofline/replay), with
// the CPU key kGoldenCpuKey whose ceilings the test puts in place.
std::vector<uint8_t> CpuRooflineTrace(const std::string& replay_file);
// Kernel launches and a cuBLAS call, no GPU records: CUPTI was unavailable.
std::vector<uint8_t> NoGpuTimesTrace();

// An inference server's loop on an H100: two eager warm-up passes, then a captured graph of a
// multiply, a cuBLASLt GEMM and a multiply, and a one-node graph built with the graph API, each
// replayed 20 times: the CUDA graphs section.
std::vector<uint8_t> CudaGraphsTrace();
// GPU times only in sampled windows (FLOPSPY_GPU_TIMING=sampled).
std::vector<uint8_t> SampledGpuTimingTrace();

// Everything that could push a line past 100 columns: a 300-character kernel name without a
// space, a long templated name, a huge batched FP8 GEMM with every type different, a long
// warning without spaces, a long command line, lost records; on an A100 (another GPU model than
// the other traces, for the many-trace views).
std::vector<uint8_t> StressTrace();

// A training loop marked with NVTX (ProfilerStep#N, forward, backward, optimizer, an NCCL
// range ending on another thread), its first step slow: the NVTX ranges and Steps sections.
std::vector<uint8_t> StepsTrace();

}  // namespace flopspy::testing
