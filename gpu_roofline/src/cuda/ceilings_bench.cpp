// Buffers, launches and event timing shared by the GPU ceilings benchmarks.
#include "ceilings_bench.h"

#include <algorithm>

#include "flopspy/gpu_roofline/ceilings_plan.h"

namespace flopspy::gpuroof::cuda {
namespace {

// Two events, destroyed on scope exit.
struct EventPair {
  const DriverApi* cu;
  CUevent start = nullptr;
  CUevent end = nullptr;
  ~EventPair() {
    if (start) cu->EventDestroy(start);
    if (end) cu->EventDestroy(end);
  }
};

}  // namespace

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != 0) cu_->MemFree(ptr_);
}

std::string DeviceBuffer::Allocate(size_t bytes) {
  if (const CUresult rc = cu_->MemAlloc(&ptr_, bytes); rc != CUDA_SUCCESS) {
    ptr_ = 0;
    return cu_->Error(("cuMemAlloc of " + std::to_string(bytes >> 20) + " MiB").c_str(), rc);
  }
  bytes_ = bytes;
  return "";
}

std::string TimeRepetitions(const BenchContext& ctx, int warmups, int repetitions,
                            const Enqueue& enqueue, std::vector<double>* seconds) {
  const DriverApi& cu = *ctx.cu;
  EventPair events{&cu};
  if (const CUresult rc = cu.EventCreate(&events.start, CU_EVENT_DEFAULT); rc != CUDA_SUCCESS) {
    return cu.Error("cuEventCreate", rc);
  }
  if (const CUresult rc = cu.EventCreate(&events.end, CU_EVENT_DEFAULT); rc != CUDA_SUCCESS) {
    return cu.Error("cuEventCreate", rc);
  }
  for (int i = 0; i < warmups; ++i) {
    if (std::string e = enqueue(); !e.empty()) return e;
  }
  if (const CUresult rc = cu.StreamSynchronize(ctx.stream); rc != CUDA_SUCCESS) {
    return cu.Error("warm-up", rc);
  }
  seconds->clear();
  for (int i = 0; i < repetitions; ++i) {
    if (const CUresult rc = cu.EventRecord(events.start, ctx.stream); rc != CUDA_SUCCESS) {
      return cu.Error("cuEventRecord", rc);
    }
    if (std::string e = enqueue(); !e.empty()) return e;
    if (const CUresult rc = cu.EventRecord(events.end, ctx.stream); rc != CUDA_SUCCESS) {
      return cu.Error("cuEventRecord", rc);
    }
    if (const CUresult rc = cu.EventSynchronize(events.end); rc != CUDA_SUCCESS) {
      return cu.Error("running the benchmark", rc);
    }
    float ms = 0;
    if (const CUresult rc = cu.EventElapsedTime(&ms, events.start, events.end);
        rc != CUDA_SUCCESS) {
      return cu.Error("cuEventElapsedTime", rc);
    }
    seconds->push_back(static_cast<double>(ms) * 1e-3);
  }
  return "";
}

std::string Calibrate(const BenchContext& ctx, const std::function<std::string(int64_t)>& enqueue,
                      int64_t multiple, int64_t max_count, int64_t* count) {
  // A run shorter than a tenth of the target is dominated by launch cost and event resolution:
  // scale up and time again before the final scaling.
  for (int step = 0; step < 4; ++step) {
    std::vector<double> seconds;
    const int64_t n = *count;
    const std::string e = TimeRepetitions(
        ctx, step == 0 ? 1 : 0, 1, [&] { return enqueue(n); }, &seconds);
    if (!e.empty()) return e;
    const double t = seconds.empty() ? 0 : seconds.front();
    const bool short_run = t < ctx.target_seconds / 10;
    *count = ScaleIterations(n, t, short_run ? ctx.target_seconds / 4 : ctx.target_seconds,
                             multiple, max_count);
    if (!short_run || *count >= max_count) break;
  }
  return "";
}

std::string Launch(const BenchContext& ctx, CUfunction function, int blocks, int threads,
                   void** args) {
  const CUresult rc =
      ctx.cu->LaunchKernel(function, static_cast<unsigned>(blocks), 1, 1,
                           static_cast<unsigned>(threads), 1, 1, 0, ctx.stream, args, nullptr);
  return rc == CUDA_SUCCESS ? "" : ctx.cu->Error("cuLaunchKernel", rc);
}

std::string FillRandom(const BenchContext& ctx, const char* fill_symbol, CUdeviceptr ptr,
                       uint64_t count, unsigned seed) {
  CUfunction fill = nullptr;
  if (const CUresult rc = ctx.cu->ModuleGetFunction(&fill, ctx.module, fill_symbol);
      rc != CUDA_SUCCESS) {
    return ctx.cu->Error(fill_symbol, rc);
  }
  unsigned long long n = count;
  void* args[] = {&ptr, &n, &seed};
  const int blocks = std::max(ctx.props.sm_count, 1) * 8;
  if (std::string e = Launch(ctx, fill, blocks, 256, args); !e.empty()) return e;
  const CUresult rc = ctx.cu->StreamSynchronize(ctx.stream);
  return rc == CUDA_SUCCESS ? "" : ctx.cu->Error(fill_symbol, rc);
}

}  // namespace flopspy::gpuroof::cuda
