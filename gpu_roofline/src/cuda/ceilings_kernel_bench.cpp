// The CUDA-core FMA chains, the device-to-device copy and the read-only kernels (DRAM and L2).
#include <cstdio>

#include "ceilings_bench.h"
#include "flopspy/gpu_roofline/ceilings_plan.h"

namespace flopspy::gpuroof::cuda {
namespace {

using analyzers::MemoryLevel;

constexpr int kThreadsPerBlock = 256;

std::string CcText(int major, int minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// Blocks of kThreadsPerBlock that fill every SM with `function`, by the occupancy calculator.
std::string FillGrid(const BenchContext& ctx, CUfunction function, LaunchGrid* grid) {
  int per_sm = 0;
  if (const CUresult rc =
          ctx.cu->OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function, kThreadsPerBlock, 0);
      rc != CUDA_SUCCESS) {
    return ctx.cu->Error("cuOccupancyMaxActiveBlocksPerMultiprocessor", rc);
  }
  *grid = FillAllSms(ctx.props.sm_count, ctx.max_threads_per_sm, kThreadsPerBlock, per_sm);
  return grid->blocks > 0 ? "" : "the device reports no SMs";
}

std::string GridText(const LaunchGrid& grid, int sm_count) {
  return std::to_string(grid.blocks) + " blocks x " + std::to_string(grid.threads_per_block) +
         " threads (" + std::to_string(sm_count > 0 ? grid.blocks / sm_count : 0) + " per SM)";
}

GpuBenchResult RunFma(const BenchContext& ctx, const FmaChainKernel& kernel, double* sm_clock_mhz) {
  const DriverApi& cu = *ctx.cu;
  GpuBenchResult r;
  r.id = std::string(kernel.id);
  r.path = kernel.path;
  const std::string type = std::string(kernel.id.substr(4));
  r.name = type + (kernel.lanes == 2 ? "x2" : "") + " FMA chains, " +
           std::to_string(kernel.chains) + " per thread";
  if (!SupportsComputeCapability(ctx.props.cc_major, ctx.props.cc_minor, kernel.min_cc_major,
                                 kernel.min_cc_minor)) {
    r.skipped = "needs compute capability " + CcText(kernel.min_cc_major, kernel.min_cc_minor) +
                " (this GPU: " + CcText(ctx.props.cc_major, ctx.props.cc_minor) + ")";
    return r;
  }
  ctx.Progress(r.id);
  CUfunction function = nullptr;
  const std::string symbol(kernel.symbol);
  if (const CUresult rc = cu.ModuleGetFunction(&function, ctx.module, symbol.c_str());
      rc != CUDA_SUCCESS) {
    r.skipped = cu.Error(symbol.c_str(), rc);
    return r;
  }
  LaunchGrid grid;
  if (std::string e = FillGrid(ctx, function, &grid); !e.empty()) {
    r.skipped = e;
    return r;
  }
  DeviceBuffer out(cu), clocks(cu);
  std::string e = out.Allocate(static_cast<size_t>(grid.Threads()) * sizeof(float));
  if (e.empty()) e = clocks.Allocate(static_cast<size_t>(grid.blocks) * 2 * sizeof(int64_t));
  if (!e.empty()) {
    r.skipped = e;
    return r;
  }
  // x = x * 0.999 + 0.001 stays near 1: no overflow, no denormals.
  float b = 0.999f, c = 0.001f;
  CUdeviceptr out_ptr = out.get(), clocks_ptr = clocks.get();
  long long iterations = kernel.unroll * 64;
  auto enqueue = [&](int64_t n) {
    iterations = n;
    void* args[] = {&b, &c, &iterations, &out_ptr, &clocks_ptr};
    return Launch(ctx, function, grid.blocks, grid.threads_per_block, args);
  };
  int64_t count = iterations;
  e = Calibrate(ctx, enqueue, kernel.unroll, int64_t{1} << 32, &count);
  if (e.empty()) {
    e = TimeRepetitions(
        ctx, 1, ctx.repetitions, [&] { return enqueue(count); }, &r.seconds);
  }
  if (!e.empty()) {
    r.seconds.clear();
    r.skipped = e;
    return r;
  }
  r.work = FmaChainFlops(grid, kernel, count);
  r.detail = GridText(grid, ctx.props.sm_count) + ", " + std::to_string(count) + " iterations of " +
             std::to_string(kernel.chains) + " FMAs per thread";
  if (sm_clock_mhz != nullptr && !r.seconds.empty()) {
    // The clocks of the last timed launch, against that launch's time.
    std::vector<int64_t> pairs(static_cast<size_t>(grid.blocks) * 2);
    if (cu.MemcpyDtoH(pairs.data(), clocks_ptr, pairs.size() * sizeof(int64_t)) == CUDA_SUCCESS) {
      if (const auto mhz = SmClockMhz(pairs, r.seconds.back())) *sm_clock_mhz = *mhz;
    }
  }
  return r;
}

GpuBenchResult RunCopy(const BenchContext& ctx, uint64_t bytes) {
  const DriverApi& cu = *ctx.cu;
  GpuBenchResult r;
  r.id = "copy_dram";
  r.level = MemoryLevel::kDram;
  r.name = "device-to-device copy of " + std::to_string(bytes >> 20) + " MiB, read + written";
  if (bytes == 0) {
    r.skipped = "not enough free device memory for a working set of 4 x L2";
    return r;
  }
  ctx.Progress(r.id);
  DeviceBuffer src(cu), dst(cu);
  std::string e = src.Allocate(bytes);
  if (e.empty()) e = dst.Allocate(bytes);
  if (e.empty()) {
    if (const CUresult rc = cu.MemsetD8Async(src.get(), 1, bytes, ctx.stream); rc != CUDA_SUCCESS) {
      e = cu.Error("cuMemsetD8Async", rc);
    }
  }
  auto enqueue = [&](int64_t n) -> std::string {
    for (int64_t i = 0; i < n; ++i) {
      if (const CUresult rc = cu.MemcpyDtoDAsync(dst.get(), src.get(), bytes, ctx.stream);
          rc != CUDA_SUCCESS) {
        return cu.Error("cuMemcpyDtoDAsync", rc);
      }
    }
    return "";
  };
  int64_t copies = 1;
  if (e.empty()) e = Calibrate(ctx, enqueue, 1, 256, &copies);
  if (e.empty()) {
    e = TimeRepetitions(
        ctx, 1, ctx.repetitions, [&] { return enqueue(copies); }, &r.seconds);
  }
  if (!e.empty()) {
    r.seconds.clear();
    r.skipped = e;
    return r;
  }
  r.work = CopyBytes(bytes) * static_cast<double>(copies);
  r.detail = std::to_string(copies) + " copies per repetition";
  return r;
}

GpuBenchResult RunRead(const BenchContext& ctx, MemoryLevel level, uint64_t bytes) {
  const DriverApi& cu = *ctx.cu;
  GpuBenchResult r;
  const bool l2 = level == MemoryLevel::kL2;
  r.id = l2 ? "read_l2" : "read_dram";
  r.level = level;
  r.name = "read-only kernel over " + std::to_string(bytes >> 20) + " MiB" +
           (l2 ? " (half the L2), repeated" : "") + ", 16-byte loads bypassing L1";
  if (bytes == 0) {
    r.skipped =
        l2 ? "the L2 size is unknown" : "not enough free device memory for a working set of 4 x L2";
    return r;
  }
  ctx.Progress(r.id);
  CUfunction function = nullptr;
  if (const CUresult rc = cu.ModuleGetFunction(&function, ctx.module, "flopspy_read");
      rc != CUDA_SUCCESS) {
    r.skipped = cu.Error("flopspy_read", rc);
    return r;
  }
  LaunchGrid grid;
  std::string e = FillGrid(ctx, function, &grid);
  DeviceBuffer data(cu), out(cu);
  if (e.empty()) e = data.Allocate(bytes);
  if (e.empty()) e = out.Allocate(static_cast<size_t>(grid.Threads()) * sizeof(unsigned));
  if (e.empty()) {
    if (const CUresult rc = cu.MemsetD8Async(data.get(), 1, bytes, ctx.stream);
        rc != CUDA_SUCCESS) {
      e = cu.Error("cuMemsetD8Async", rc);
    }
  }
  CUdeviceptr data_ptr = data.get(), out_ptr = out.get();
  unsigned long long vectors = bytes / 16;
  int passes = 1;
  auto enqueue = [&](int64_t n) {
    passes = static_cast<int>(n);
    void* args[] = {&data_ptr, &vectors, &passes, &out_ptr};
    return Launch(ctx, function, grid.blocks, grid.threads_per_block, args);
  };
  int64_t count = 1;
  if (e.empty()) e = Calibrate(ctx, enqueue, 1, 1 << 20, &count);
  if (e.empty()) {
    e = TimeRepetitions(
        ctx, 1, ctx.repetitions, [&] { return enqueue(count); }, &r.seconds);
  }
  if (!e.empty()) {
    r.seconds.clear();
    r.skipped = e;
    return r;
  }
  r.work = ReadBytes(bytes, static_cast<int>(count));
  r.detail = GridText(grid, ctx.props.sm_count) + ", " + std::to_string(count) + " passes";
  return r;
}

}  // namespace

std::vector<GpuBenchResult> RunKernelBenchmarks(const BenchContext& ctx, double* sm_clock_mhz) {
  std::vector<GpuBenchResult> out;
  for (const FmaChainKernel& kernel : FmaChainKernels()) {
    out.push_back(RunFma(ctx, kernel, kernel.id == "fma_fp32" ? sm_clock_mhz : nullptr));
  }
  size_t free_bytes = 0, total_bytes = 0;
  if (ctx.cu->MemGetInfo(&free_bytes, &total_bytes) != CUDA_SUCCESS) free_bytes = 0;
  const uint64_t dram = DramWorkingSetBytes(ctx.props.l2_bytes, free_bytes, ctx.quick);
  out.push_back(RunCopy(ctx, dram));
  out.push_back(RunRead(ctx, MemoryLevel::kDram, dram));
  out.push_back(RunRead(ctx, MemoryLevel::kL2, L2WorkingSetBytes(ctx.props.l2_bytes)));
  return out;
}

}  // namespace flopspy::gpuroof::cuda
