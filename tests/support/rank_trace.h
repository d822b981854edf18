// A rank of a distributed job as a trace, for the many-trace tests and the golden reports: 10
// "step" regions, each an SGEMM (2048^3, through cuBLAS) then a layer-norm kernel, on an H100.
// Each rank's monotonic clock has its own origin; the wall clock starts 10 ms apart per rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flopspy::testing {

inline constexpr char kRankGemmKernel[] =
    "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32";

struct RankSpec {
  int rank = 0;
  uint64_t gemm_ns = 6'000'000;   // per step
  uint64_t other_ns = 1'000'000;  // per step
  uint64_t step_ns = 8'000'000;   // region length
  uint32_t other_grid = 1;        // another grid is another kernel signature
  int steps = 10;
};

std::vector<uint8_t> RankTrace(const RankSpec& spec);

// Four ranks into `dir` (created), rank<r>.fspy. Slow: rank 3's SGEMM takes 8 ms instead of 6
// (its steps 10 ms instead of 8). Fast: every SGEMM 5 ms, steps 7 ms, and the layer norm on
// another grid. Returns `dir`.
std::string WriteRankJob(const std::string& dir, bool fast);

}  // namespace flopspy::testing
