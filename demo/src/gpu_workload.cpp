#include "gpu_workload.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <flopspy/flopspy.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_kernels.h"
#include "table.h"

namespace flopspy_demo {
namespace {

constexpr float kPowExponent = 2.0f;
// Blocks per SM at most for grid-stride kernels: enough to keep every SM's memory pipeline busy.
constexpr int kBlocksPerSm = 32;
// Left free beyond our buffers for cuBLAS's workspace and the context.
constexpr std::size_t kMemoryMargin = std::size_t{64} << 20;

// Frees ignore errors: after a failure the context may be unusable, and there is nothing to do.
struct DeviceFree {
  void operator()(float* p) const { static_cast<void>(cudaFree(p)); }
};
struct PinnedFree {
  void operator()(float* p) const { static_cast<void>(cudaFreeHost(p)); }
};
using DeviceBuffer = std::unique_ptr<float, DeviceFree>;
using PinnedBuffer = std::unique_ptr<float, PinnedFree>;

std::string Describe(cudaError_t status) {
  return fmt::format("{} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
}

const char* CheckWord(bool ok) {
  return ok ? "ok" : "FAIL";
}

bool Close(float got, float expected) {
  return std::fabs(got - expected) <= 1e-5f * std::max(1.0f, std::fabs(expected));
}

// Host model of each functor in gpu_kernels.cuh, for checking a sample of the output.
float Expected(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::kPow:
      return std::pow(x, kPowExponent);
    case UnaryOp::kSin:
      return std::sin(x);
    case UnaryOp::kSqrt:
      return std::sqrt(x);
    case UnaryOp::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case UnaryOp::kLog10:
      return std::log10(x);
  }
  return 0.0f;
}

struct UnaryPhase {
  UnaryOp op;
  const char* name;    // table row
  const char* region;  // flopspy region
};

class GpuRun {
 public:
  GpuRun(const GpuConfig& config, bool cpu_follows)
      : config_(config),
        elements_(config.n * config.n),
        bytes_(sizeof(float) * static_cast<std::size_t>(elements_)),
        cpu_follows_(cpu_follows) {}

  ~GpuRun() {
    for (cudaEvent_t event : events_) static_cast<void>(cudaEventDestroy(event));
    if (cublas_ != nullptr) static_cast<void>(cublasDestroy(cublas_));
  }

  GpuRun(const GpuRun&) = delete;
  GpuRun& operator=(const GpuRun&) = delete;

  GpuOutcome Run() {
    bool ready = false;
    {
      // Context creation and cuBLAS's start-up are the largest one-off costs; name them.
      flopspy_region region("gpu setup");
      if (!FindDevice()) return GpuOutcome::kNotRun;
      ready = Setup();
    }
    const bool ran = ready && Fill() && Matmul() && Sum() && Elementwise() && LaunchLoop() &&
                     MemoryLoop() && Copies() &&
                     Ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (ran) PrintLegend();
    if (skipped_) return GpuOutcome::kNotRun;
    return ran && checks_passed_ ? GpuOutcome::kPassed : GpuOutcome::kFailed;
  }

 private:
  // Prints the one line the demo promises for any CUDA failure; false on failure.
  bool Ok(cudaError_t status, std::string_view what) {
    if (status == cudaSuccess) return true;
    Stop(fmt::format("{}: {}", what, Describe(status)));
    return false;
  }

  bool Ok(cublasStatus_t status, std::string_view what) {
    if (status == CUBLAS_STATUS_SUCCESS) return true;
    Stop(fmt::format("{}: {} ({})", what, cublasGetStatusString(status),
                     cublasGetStatusName(status)));
    return false;
  }

  void Stop(const std::string& reason) {
    fmt::print(stderr, "flopspy-demo: GPU workload stopped: {}{}\n", reason,
               cpu_follows_ ? "; carrying on with the CPU workload" : "");
    std::fflush(stderr);
  }

  void NotRun(const std::string& reason) {
    fmt::print("flopspy-demo: {}; {}\n", reason,
               cpu_follows_ ? "running the CPU workload only" : "nothing to run with --gpu-only");
    std::fflush(stdout);
  }

  // A failure up to a working context means "no usable GPU", which is not an error.
  bool FindDevice() {
    int count = 0;
    if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
      NotRun(fmt::format("no usable CUDA GPU (cudaGetDeviceCount: {})", Describe(status)));
      return false;
    }
    if (count == 0) {
      NotRun("no usable CUDA GPU (cudaGetDeviceCount: no devices)");
      return false;
    }
    cudaError_t status = cudaSetDevice(0);
    // cudaFree(nullptr) creates the context, so its cost shows up here and not in a kernel.
    if (status == cudaSuccess) status = cudaFree(nullptr);
    if (status == cudaSuccess) status = cudaGetDeviceProperties(&properties_, 0);
    if (status != cudaSuccess) {
      NotRun(fmt::format("no usable CUDA GPU (device 0: {})", Describe(status)));
      return false;
    }
    return true;
  }

  bool Setup() {
    fmt::print(
        "flopspy-demo: GPU 0: {}, sm_{}{}, {} SMs, {:.1f} GiB; fp32 {} x {} matrices ({:.4g} MiB "
        "each)\n",
        properties_.name, properties_.major, properties_.minor, properties_.multiProcessorCount,
        static_cast<double>(properties_.totalGlobalMem) / (1 << 30), config_.n, config_.n,
        static_cast<double>(bytes_) / (1 << 20));
    std::fflush(stdout);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    if (!Ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo")) return false;
    const std::size_t needed = 4 * bytes_ + kMemoryMargin;
    if (free_bytes < needed) {
      NotRun(
          fmt::format("GPU 0 has {} MiB free and the workload needs {} MiB (try a smaller --size)",
                      free_bytes >> 20, needed >> 20));
      skipped_ = true;
      return false;
    }
    blocks_ = static_cast<int>(std::clamp<long long>(
        (static_cast<long long>(elements_) + kThreadsPerBlock - 1) / kThreadsPerBlock, 1,
        static_cast<long long>(properties_.multiProcessorCount) * kBlocksPerSm));

    if (!Ok(cublasCreate(&cublas_), "cublasCreate")) return false;
    for (DeviceBuffer* buffer : {&a_, &b_, &c_, &d_}) {
      if (!Allocate(*buffer, bytes_)) return false;
    }
    if (!Allocate(partial_, sizeof(float) * (kMaxSumBlocks + 1))) return false;
    PrintHeader(fmt::format("GPU, fp32, n = {}", config_.n));
    return true;
  }

  bool Allocate(DeviceBuffer& buffer, std::size_t bytes) {
    void* pointer = nullptr;
    if (!Ok(cudaMalloc(&pointer, bytes), fmt::format("cudaMalloc({} MiB)", bytes >> 20))) {
      return false;
    }
    buffer.reset(static_cast<float*>(pointer));
    return true;
  }

  LaunchShape Shape() const { return LaunchShape{.blocks = blocks_, .stream = nullptr}; }

  // Calls `call` `calls` times on the default stream with an event before and after each, so
  // every call gets its own GPU time; nothing when a call or the timing failed.
  std::optional<std::vector<double>> TimeCalls(int calls, const std::function<bool()>& call) {
    if (!EnsureEvents(calls + 1)) return std::nullopt;
    if (!Ok(cudaEventRecord(events_[0], nullptr), "cudaEventRecord")) return std::nullopt;
    for (int i = 0; i < calls; ++i) {
      if (!call()) return std::nullopt;
      if (!Ok(cudaEventRecord(events_[i + 1], nullptr), "cudaEventRecord")) return std::nullopt;
    }
    if (!Ok(cudaEventSynchronize(events_[calls]), "cudaEventSynchronize")) return std::nullopt;
    std::vector<double> seconds;
    for (int i = 0; i < calls; ++i) {
      float ms = 0;
      if (!Ok(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]), "cudaEventElapsedTime")) {
        return std::nullopt;
      }
      seconds.push_back(ms * 1e-3);
    }
    return seconds;
  }

  bool EnsureEvents(int count) {
    while (static_cast<int>(events_.size()) < count) {
      cudaEvent_t event = nullptr;
      if (!Ok(cudaEventCreate(&event), "cudaEventCreate")) return false;
      events_.push_back(event);
    }
    return true;
  }

  // Copies one element back to check a kernel's output (the last one, so the grid-stride tail
  // is covered too).
  std::optional<float> Sample(const float* buffer, int index) {
    float value = 0;
    if (!Ok(cudaMemcpy(&value, buffer + index, sizeof(float), cudaMemcpyDeviceToHost),
            "cudaMemcpy (check sample)")) {
      return std::nullopt;
    }
    return value;
  }

  void Check(Row& row, bool ok, std::string_view what, double got, double expected) {
    row.check = CheckWord(ok);
    if (ok) return;
    checks_passed_ = false;
    fmt::print(stderr, "flopspy-demo: CHECK FAILED: {}: got {}, expected {}\n", what, got,
               expected);
  }

  bool Fill() {
    flopspy_region region("gpu fill");
    Row row("fill ones (A and B in turn)", 4.0 * elements_);
    const auto seconds = TimeCalls(2 * config_.repeats, [&, call = 0]() mutable {
      float* out = (call++ % 2 == 0 ? a_ : b_).get();
      return Ok(LaunchFill(Shape(), elements_, 1.0f, out), "fill_kernel launch");
    });
    if (!seconds) return false;
    SetTimes(row, *seconds);
    const auto sample = Sample(b_.get(), elements_ - 1);
    if (!sample) return false;
    Check(row, *sample == 1.0f, "fill ones", *sample, 1.0);
    PrintRow(row);
    return true;
  }

  bool Matmul() {
    flopspy_region region("gpu matmul");
    const double n = config_.n;
    // Each matrix moved once: the least traffic a matmul can have.
    Row row(fmt::format("cublasSgemm {0} x {0} x {0}", config_.n), 3.0 * sizeof(float) * elements_,
            2.0 * n * n * n);
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const auto seconds = TimeCalls(config_.repeats, [&] {
      // Column-major C = A * B; with ones everywhere the layout does not change the result.
      return Ok(
          cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, config_.n, config_.n, config_.n, &alpha,
                      a_.get(), config_.n, b_.get(), config_.n, &beta, c_.get(), config_.n),
          "cublasSgemm");
    });
    if (!seconds) return false;
    SetTimes(row, *seconds);
    // Checked by the sum that follows: every element is n, exactly, in fp32.
    row.check = "(sum)";
    PrintRow(row);
    return true;
  }

  bool Sum() {
    flopspy_region region("gpu sum");
    const int blocks = std::min(blocks_, kMaxSumBlocks);
    Row row("sum (2 passes)", 4.0 * elements_, 1.0 * elements_);
    const auto seconds = TimeCalls(config_.repeats, [&] {
      return Ok(LaunchSum({.blocks = blocks}, elements_, c_.get(), partial_.get()),
                "sum_kernel launch") &&
             Ok(LaunchSum({.blocks = 1}, blocks, partial_.get(), partial_.get() + kMaxSumBlocks),
                "sum_kernel launch");
    });
    if (!seconds) return false;
    SetTimes(row, *seconds);
    const auto sample = Sample(partial_.get(), kMaxSumBlocks);
    if (!sample) return false;
    const double expected = static_cast<double>(config_.n) * elements_;
    Check(row, std::fabs(*sample - expected) <= 1e-4 * expected, "sum of A * B", *sample, expected);
    PrintRow(row);
    return true;
  }

  bool Elementwise() {
    // Every element of C is n; each operation's output is checked against the host's value.
    const float input = static_cast<float>(config_.n);
    const UnaryPhase pow{UnaryOp::kPow, "pow (exponent 2)", "gpu pow"};
    const UnaryPhase others[] = {{UnaryOp::kSin, "sin", "gpu sin"},
                                 {UnaryOp::kSqrt, "sqrt", "gpu sqrt"},
                                 {UnaryOp::kSigmoid, "sigmoid", "gpu sigmoid"},
                                 {UnaryOp::kLog10, "log10", "gpu log10"}};
    if (!Unary(pow, input)) return false;
    {
      flopspy_region region("gpu mul");
      // Three operands, like the seed notes' mul_; B is all ones, so D = C.
      Row row("mul (C * B)", 12.0 * elements_, 1.0 * elements_);
      const auto seconds = TimeCalls(config_.repeats, [&] {
        return Ok(LaunchMul(Shape(), elements_, c_.get(), b_.get(), d_.get()),
                  "binary_kernel launch");
      });
      if (!seconds) return false;
      SetTimes(row, *seconds);
      if (!CheckSample(row, "mul", elements_ - 1, input)) return false;
      PrintRow(row);
    }
    for (const UnaryPhase& phase : others) {
      if (!Unary(phase, input)) return false;
    }
    return true;
  }

  bool Unary(const UnaryPhase& phase, float input) {
    flopspy_region region(phase.region);
    // One read and one write per element and, by the demo's count, one FLOP: a sin is
    // dozens of instructions, yet all of these run at the speed of memory.
    Row row(phase.name, 8.0 * elements_, 1.0 * elements_);
    const auto seconds = TimeCalls(config_.repeats, [&] {
      return Ok(LaunchUnary(Shape(), phase.op, kPowExponent, elements_, c_.get(), d_.get()),
                "unary_kernel launch");
    });
    if (!seconds) return false;
    SetTimes(row, *seconds);
    if (!CheckSample(row, phase.name, elements_ - 1, Expected(phase.op, input))) return false;
    PrintRow(row);
    return true;
  }

  bool CheckSample(Row& row, std::string_view what, int index, float expected) {
    const auto sample = Sample(d_.get(), index);
    if (!sample) return false;
    Check(row, Close(*sample, expected), what, *sample, expected);
    return true;
  }

  // Thousands of kernels too small to keep the GPU busy: the time goes to launching them.
  bool LaunchLoop() {
    flopspy_region region("gpu launch-bound loop");
    const int launches = config_.launch_loop_launches;
    const int elements = std::min(config_.launch_loop_elements, elements_);
    const LaunchShape shape{.blocks = (elements + kThreadsPerBlock - 1) / kThreadsPerBlock};
    Row row(fmt::format("launch-bound loop: mul on {}", elements), 12.0 * elements, 1.0 * elements);
    if (!EnsureEvents(2) || !Ok(cudaEventRecord(events_[0], nullptr), "cudaEventRecord")) {
      return false;
    }
    const double host_start = NowSeconds();
    for (int i = 0; i < launches; ++i) {
      if (!Ok(LaunchMul(shape, elements, a_.get(), b_.get(), d_.get()), "binary_kernel launch")) {
        return false;
      }
    }
    const double host_seconds = NowSeconds() - host_start;
    if (!Ok(cudaEventRecord(events_[1], nullptr), "cudaEventRecord") ||
        !Ok(cudaEventSynchronize(events_[1]), "cudaEventSynchronize")) {
      return false;
    }
    float ms = 0;
    if (!Ok(cudaEventElapsedTime(&ms, events_[0], events_[1]), "cudaEventElapsedTime")) {
      return false;
    }
    // One span for the whole loop: an event per launch would double the API calls measured.
    const double per_launch = ms * 1e-3 / launches;
    SetTimes(row, std::vector<double>(launches, per_launch));
    if (!CheckSample(row, "launch-bound loop", elements - 1, 1.0f)) return false;
    PrintRow(row);
    fmt::print(
        "  {} launches: {:.2f} us each on the CPU to launch, {:.2f} us each on the "
        "GPU, launch to launch\n",
        launches, host_seconds * 1e6 / launches, per_launch * 1e6);
    std::fflush(stdout);
    return true;
  }

  // A few large elementwise kernels back to back: as close to the memory's bandwidth as a
  // simple kernel gets.
  bool MemoryLoop() {
    flopspy_region region("gpu memory-bound loop");
    Row row("memory-bound loop: mul (A * B)", 12.0 * elements_, 1.0 * elements_);
    const auto seconds = TimeCalls(config_.memory_loop_launches, [&] {
      return Ok(LaunchMul(Shape(), elements_, a_.get(), b_.get(), d_.get()),
                "binary_kernel launch");
    });
    if (!seconds) return false;
    SetTimes(row, *seconds);
    if (!CheckSample(row, "memory-bound loop", elements_ - 1, 1.0f)) return false;
    PrintRow(row);
    return true;
  }

  bool Copies() {
    flopspy_region region("gpu copies");
    // Pageable memory is staged through a driver buffer; pinned memory is copied by DMA directly.
    std::vector<float> pageable(elements_, 1.0f);
    void* pinned_pointer = nullptr;
    if (!Ok(cudaMallocHost(&pinned_pointer, bytes_), "cudaMallocHost")) return false;
    const PinnedBuffer pinned(static_cast<float*>(pinned_pointer));
    std::fill(pinned.get(), pinned.get() + elements_, 1.0f);

    struct Copy {
      const char* name;
      float* destination;
      const float* source;
      cudaMemcpyKind kind;
      bool async;
    };
    const Copy copies[] = {
        {"copy H2D pageable", a_.get(), pageable.data(), cudaMemcpyHostToDevice, false},
        {"copy H2D pinned", a_.get(), pinned.get(), cudaMemcpyHostToDevice, true},
        {"copy D2H pageable", pageable.data(), c_.get(), cudaMemcpyDeviceToHost, false},
        {"copy D2H pinned", pinned.get(), c_.get(), cudaMemcpyDeviceToHost, true},
    };
    for (const Copy& copy : copies) {
      Row row(copy.name, static_cast<double>(bytes_));
      const auto seconds = TimeCalls(config_.repeats, [&] {
        return copy.async
                   ? Ok(cudaMemcpyAsync(copy.destination, copy.source, bytes_, copy.kind, nullptr),
                        "cudaMemcpyAsync")
                   : Ok(cudaMemcpy(copy.destination, copy.source, bytes_, copy.kind), "cudaMemcpy");
      });
      if (!seconds) return false;
      SetTimes(row, *seconds);
      if (copy.kind == cudaMemcpyDeviceToHost) {
        // The whole of C comes back: every element of A * B must be n.
        const float expected = static_cast<float>(config_.n);
        const float* first = copy.destination;
        const float* bad =
            std::find_if(first, first + elements_, [&](float v) { return v != expected; });
        Check(row, bad == first + elements_, copy.name, bad == first + elements_ ? expected : *bad,
              expected);
      } else {
        row.check = "-";
      }
      PrintRow(row);
    }
    return true;
  }

  void PrintLegend() {
    fmt::print(
        "  (GB/s and GFLOP/s: the demo's own count over the best call. Elementwise: 4 bytes per "
        "operand\n   and result, 1 FLOP per element whatever the function; sgemm: 2n^3 FLOPs, "
        "each matrix moved once.)\n");
    std::fflush(stdout);
  }

  const GpuConfig& config_;
  const int elements_;
  const std::size_t bytes_;
  const bool cpu_follows_;
  cudaDeviceProp properties_{};
  int blocks_ = 1;
  cublasHandle_t cublas_ = nullptr;
  std::vector<cudaEvent_t> events_;
  DeviceBuffer a_;
  DeviceBuffer b_;
  DeviceBuffer c_;
  DeviceBuffer d_;
  DeviceBuffer partial_;
  bool checks_passed_ = true;
  bool skipped_ = false;
};

}  // namespace

GpuOutcome RunGpuWorkload(const GpuConfig& config, bool cpu_follows) {
  GpuRun run(config, cpu_follows);
  return run.Run();
}

}  // namespace flopspy_demo
