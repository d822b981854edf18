// What the GPU ceilings benchmarks share: the device and stream they run on, device buffers, and
// timing with CUDA events (warm-up, then timed repetitions).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver_api.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/gpu_roofline/ceilings_results.h"
#include "flopspy/gpu_roofline/device_properties.h"

namespace flopspy::gpuroof::cuda {

struct BenchContext {
  const DriverApi* cu = nullptr;
  CUdevice device = 0;
  CUstream stream = nullptr;
  CUmodule module = nullptr;
  DeviceProperties props;
  int max_threads_per_sm = 0;
  analyzers::DeviceRoofs roofs;  // nominal figures, for sizing
  bool quick = false;
  int repetitions = 0;        // timed, after one warm-up
  double target_seconds = 0;  // per timed repetition
  std::function<void(const std::string&)> progress;

  void Progress(const std::string& what) const {
    if (progress) progress(what);
  }
};

// Device memory, freed when it goes out of scope.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const DriverApi& cu) : cu_(&cu) {}
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  // "" on success, else why not.
  std::string Allocate(size_t bytes);
  CUdeviceptr get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  const DriverApi* cu_;
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

// Enqueues one repetition's work on the context's stream; "" on success, else the error.
using Enqueue = std::function<std::string()>;

// Runs `enqueue` `warmups` times, then `repetitions` times between two events each, and returns
// the seconds of each timed repetition; "" on success, else the error.
std::string TimeRepetitions(const BenchContext& ctx, int warmups, int repetitions,
                            const Enqueue& enqueue, std::vector<double>* seconds);

// The repetition count (`count`, a multiple of `multiple`) for which one repetition of
// enqueue(count) lasts about ctx.target_seconds: timed from `*count` up, scaling at most four
// times. "" on success.
std::string Calibrate(const BenchContext& ctx, const std::function<std::string(int64_t)>& enqueue,
                      int64_t multiple, int64_t max_count, int64_t* count);

// Launches `function` on a 1-D grid with `args`; "" on success.
std::string Launch(const BenchContext& ctx, CUfunction function, int blocks, int threads,
                   void** args);

// The FMA chains, the copy and the read-only kernels. `sm_clock_mhz` gets the clock the FP32
// chains ran at.
std::vector<GpuBenchResult> RunKernelBenchmarks(const BenchContext& ctx, double* sm_clock_mhz);

// The cuBLASLt GEMMs; `notes` gets a line when cuBLASLt cannot be used at all.
std::vector<GpuBenchResult> RunGemmBenchmarks(const BenchContext& ctx,
                                              std::vector<std::string>* notes);

// Fills `count` elements at `ptr` with small pseudo-random values of the type `fill_symbol`
// writes (flopspy_fill_f32, ...); "" on success.
std::string FillRandom(const BenchContext& ctx, const char* fill_symbol, CUdeviceptr ptr,
                       uint64_t count, unsigned seed);

}  // namespace flopspy::gpuroof::cuda
