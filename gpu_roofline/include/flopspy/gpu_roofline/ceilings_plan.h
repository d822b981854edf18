// Sizing and arithmetic of the GPU ceilings microbenchmarks (`flopspy ceilings --gpu`), apart
// from the CUDA calls so that they are tested without a GPU: grids that fill every SM, working
// sets against the L2 size, GEMM sizes, the FLOPs and bytes each benchmark does, and the best and
// median of the timed repetitions. docs/flopspy-ceilings.md explains each choice.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/roofline.h"

namespace flopspy::gpuroof {

struct LaunchGrid {
  int blocks = 0;
  int threads_per_block = 0;
  int64_t Threads() const { return int64_t{blocks} * threads_per_block; }
};

// One wave that fills every SM: the blocks the occupancy calculator says fit on one SM
// (`resident_blocks_per_sm`; 0 = unknown, then max threads per SM / block size) x the SMs.
// Every block does the same work, so one full wave has no tail.
LaunchGrid FillAllSms(int sm_count, int max_threads_per_sm, int threads_per_block,
                      int resident_blocks_per_sm);

// An FMA-chain kernel of gpu_roofline/src/cuda/ceilings_kernels.cu: each thread runs `chains`
// independent chains of dependent FMA instructions (enough to cover the FMA latency with the
// warps one SM holds), `unroll` steps per loop trip so that loop overhead stays near 1% of issue.
// One instruction does `lanes` multiply-adds per thread (1 for float/double, 2 for half2/bf162).
struct FmaChainKernel {
  std::string_view id;      // "fma_fp32": the result's id in the JSON output
  std::string_view symbol;  // the extern "C" kernel name in the fatbin
  analyzers::ComputePath path;
  int chains = 0;
  int lanes = 1;
  int unroll = 1;
  int min_cc_major = 0;  // the instruction exists from this compute capability on
  int min_cc_minor = 0;
};
std::span<const FmaChainKernel> FmaChainKernels();

// FLOPs of one launch: 2 per multiply-add x lanes x chains x iterations x threads.
double FmaChainFlops(const LaunchGrid& grid, const FmaChainKernel& kernel, int64_t iterations);

// Iterations for a run of about `target_seconds`, from a trial of `trial_iterations` that took
// `trial_seconds`: a multiple of `multiple` (the kernel's unroll), at least `multiple`, at most
// `max_iterations`.
int64_t ScaleIterations(int64_t trial_iterations, double trial_seconds, double target_seconds,
                        int64_t multiple, int64_t max_iterations);

// The DRAM working set of the copy and read benchmarks: at least 8 x the L2 so that the L2
// cannot hold a useful share of it, at least 256 MiB (1 GiB unless quick), and at most a quarter
// of the free memory (the copy needs two buffers). A multiple of 1 MiB; 0 when free memory is too
// small for 4 x L2.
uint64_t DramWorkingSetBytes(uint64_t l2_bytes, uint64_t free_bytes, bool quick);

// The L2 working set: half the L2, so that it stays resident while the benchmark reads it again
// and again; a multiple of 64 KiB. 0 when the L2 size is unknown.
uint64_t L2WorkingSetBytes(uint64_t l2_bytes);

// Byte conventions: a copy counts the bytes it reads plus the bytes it writes (2 x the size, as
// STREAM and nvbandwidth count device-to-device copies); a read-only kernel counts what it reads.
double CopyBytes(uint64_t size);
double ReadBytes(uint64_t size, int passes);

// A GEMM benchmark: cuBLASLt D = A^T B with square sizes, inputs of `input_bytes` per element,
// outputs of `output_bytes`.
struct GemmCase {
  std::string_view id;     // "gemm_bf16"
  std::string_view label;  // "bf16 in, fp32 accumulate, bf16 out"
  analyzers::ComputePath path;
  int input_bytes = 2;
  int output_bytes = 2;
  int min_cc_major = 0;  // cuBLASLt runs it from this compute capability on
  int min_cc_minor = 0;
};
std::span<const GemmCase> GemmCases();

// The path a GEMM case is held against on a device: an fp64 GEMM runs on the FP64 tensor cores
// where the device has them (A100, H100, B200), on CUDA cores elsewhere.
analyzers::ComputePath GemmPathOnDevice(const GemmCase& gemm, const analyzers::DeviceRoofs& roofs);

bool SupportsComputeCapability(int cc_major, int cc_minor, int min_major, int min_minor);

// The square size of a GEMM that lasts about `target_seconds` at `flops_per_s` (nominal; 0 =
// unknown, then max_n): a multiple of 256, clamped to [min_n, max_n]; then halved until A, B and D
// fit in `memory_budget` bytes (0 = no limit). 0 when not even min_n fits.
int GemmSize(double flops_per_s, double target_seconds, int min_n, int max_n, const GemmCase& gemm,
             uint64_t memory_budget);
double GemmFlops(int64_t m, int64_t n, int64_t k);
uint64_t GemmBytes(int n, const GemmCase& gemm);  // A + B + D

struct TimingSummary {
  int repetitions = 0;  // positive finite times among the inputs
  double best_seconds = 0;
  double median_seconds = 0;
};
// Best (shortest) and median of the timed repetitions; non-positive or non-finite times (a
// failed event) are left out.
TimingSummary SummariseTimes(std::vector<double> seconds);

// Rate from work per repetition and a time; 0 when the time is not positive.
double RatePerSecond(double work, double seconds);

// The SM clock seen by a kernel: the cycles its blocks counted (clock64 at start and end,
// median over blocks) over the kernel's time. nullopt when there is nothing to go by.
std::optional<double> SmClockMhz(std::span<const int64_t> start_end_pairs, double kernel_seconds);

}  // namespace flopspy::gpuroof
