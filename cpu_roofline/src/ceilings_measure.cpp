#include "ceilings_measure.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "ceilings_kernels.h"
#include "host_topology.h"

namespace flopspy::cpuroof {
namespace {

class SpinBarrier {
 public:
  explicit SpinBarrier(int n) : n_(n) {}
  void Wait() {
    const int gen = generation_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      count_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    while (generation_.load(std::memory_order_acquire) == gen) std::this_thread::yield();
  }

 private:
  const int n_;
  std::atomic<int> count_{0};
  std::atomic<int> generation_{0};
};

struct AlignedBuffer {
  double* p = nullptr;
  size_t n = 0;
  explicit AlignedBuffer(size_t elems) : n(elems) {
    const size_t bytes = std::max<size_t>(64, (elems * sizeof(double) + 63) / 64 * 64);
    p = static_cast<double*>(std::aligned_alloc(64, bytes));
  }
  ~AlignedBuffer() { std::free(p); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

size_t RoundElems(uint64_t bytes) {
  const size_t e = static_cast<size_t>(bytes / sizeof(double));
  return std::max(kernels::kBandwidthBlock,
                  e / kernels::kBandwidthBlock * kernels::kBandwidthBlock);
}

constexpr const char* kKernels[] = {"load", "store", "copy", "triad"};

// One array of a kernel: a 64-byte aligned slice of the thread's working-set buffer.
struct Slice {
  double* p = nullptr;
  size_t n = 0;
};

// One kernel pass over a thread's arrays; returns STREAM-counted bytes.
double Pass(int kernel, const std::vector<Slice>& arrays, double* sink) {
  switch (kernel) {
    case 0:
      *sink += kernels::Load(arrays[0].p, arrays[0].n);
      return static_cast<double>(arrays[0].n) * 8;
    case 1:
      kernels::Store(arrays[0].p, arrays[0].n, *sink * 1e-30 + 1.0);
      return static_cast<double>(arrays[0].n) * 8;
    case 2:
      kernels::Copy(arrays[0].p, arrays[1].p, arrays[0].n);
      return static_cast<double>(arrays[0].n) * 16;
    default:
      kernels::Triad(arrays[0].p, arrays[1].p, arrays[2].p, 0.5, arrays[0].n);
      return static_cast<double>(arrays[0].n) * 24;
  }
}

}  // namespace

// GFLOP/s of one kernel on `cpus` threads at once: iterations calibrated on thread 0 first.
double MeasureFma(Isa isa, bool dp, int acc, const std::vector<int>& cpus, double seconds,
                  int repeats) {
  double sink = 0;
  uint64_t iters = 1 << 12;
  // Calibrate single-threaded until a run lasts an eighth of the target.
  while (true) {
    const auto t0 = std::chrono::steady_clock::now();
    if (kernels::RunFma(isa, dp, acc, iters, &sink) == 0) return 0;
    const double dt = Seconds(t0, std::chrono::steady_clock::now());
    if (dt >= seconds / 8 || iters > (uint64_t{1} << 40)) {
      iters = static_cast<uint64_t>(static_cast<double>(iters) * seconds / std::max(dt, 1e-9));
      iters = std::max<uint64_t>(iters, 1024);
      break;
    }
    iters *= 4;
  }
  double best = 0;
  const int n = static_cast<int>(cpus.size());
  for (int r = 0; r < repeats; ++r) {
    std::vector<double> elapsed(cpus.size(), 0), flops(cpus.size(), 0), sinks(cpus.size(), 0);
    SpinBarrier barrier(n);
    OnCpus(cpus, [&](int i) {
      barrier.Wait();
      const auto t0 = std::chrono::steady_clock::now();
      flops[i] = kernels::RunFma(isa, dp, acc, iters, &sinks[i]);
      elapsed[i] = Seconds(t0, std::chrono::steady_clock::now());
    });
    double total = 0, slowest = 0;
    for (int i = 0; i < n; ++i) {
      total += flops[i];
      slowest = std::max(slowest, elapsed[i]);
      sink += sinks[i];
    }
    if (slowest > 0) best = std::max(best, total / slowest * 1e-9);
  }
  static std::atomic<double> keep{0};
  keep.store(sink, std::memory_order_relaxed);  // the results are used
  return best;
}

// Measures all four kernels at one working-set size (bytes per thread) on `cpus`.
std::vector<BandwidthSample> MeasureBandwidth(uint64_t ws, const std::vector<int>& cpus,
                                              double seconds, int repeats) {
  const int n = static_cast<int>(cpus.size());
  std::vector<BandwidthSample> out;
  std::vector<double> best(4, 0);
  SpinBarrier barrier(n);
  std::vector<double> elapsed(cpus.size()), bytes(cpus.size());
  std::atomic<uint64_t> passes{1};
  std::atomic<bool> failed{false};
  OnCpus(cpus, [&](int t) {
    double sink = 1;
    // One buffer per thread for all four kernels, first-touched once by the thread that uses
    // it: page faults on a DRAM-sized set cost more than the measurement itself.
    size_t buffer_elems = 0;
    for (uint64_t count = 1; count <= 3; ++count) {
      buffer_elems = std::max<size_t>(buffer_elems, count * RoundElems(ws / count));
    }
    AlignedBuffer buffer(buffer_elems);
    if (!buffer.p) failed.store(true);
    barrier.Wait();
    if (!failed.load()) kernels::Store(buffer.p, buffer.n, 1.0 + t);
    for (int k = 0; k < 4; ++k) {
      const int count = k < 2 ? 1 : k == 2 ? 2 : 3;
      const size_t elems = RoundElems(ws / static_cast<uint64_t>(count));
      std::vector<Slice> arrays;
      for (int a = 0; a < count; ++a) {
        arrays.push_back(Slice{buffer.p + static_cast<size_t>(a) * elems, elems});
      }
      barrier.Wait();
      if (failed.load()) continue;  // every thread sees the same flag after the barrier
      for (int r = 0; r < repeats; ++r) {
        // Warm-up pass, timed on thread 0 to size the measured run.
        barrier.Wait();
        auto t0 = std::chrono::steady_clock::now();
        Pass(k, arrays, &sink);
        if (t == 0) {
          const double one = std::max(Seconds(t0, std::chrono::steady_clock::now()), 1e-7);
          passes.store(std::max<uint64_t>(1, static_cast<uint64_t>(seconds / one)));
        }
        barrier.Wait();
        const uint64_t p = passes.load();
        t0 = std::chrono::steady_clock::now();
        double b = 0;
        for (uint64_t i = 0; i < p; ++i) b += Pass(k, arrays, &sink);
        elapsed[t] = Seconds(t0, std::chrono::steady_clock::now());
        bytes[t] = b;
        barrier.Wait();
        if (t == 0) {
          double total = 0, slowest = 0;
          for (int i = 0; i < n; ++i) {
            total += bytes[i];
            slowest = std::max(slowest, elapsed[i]);
          }
          if (slowest > 0) best[k] = std::max(best[k], total / slowest * 1e-9);
        }
      }
    }
    static std::atomic<double> keep{0};
    keep.store(sink, std::memory_order_relaxed);
  });
  if (failed.load()) return out;
  for (int k = 0; k < 4; ++k) {
    out.push_back(BandwidthSample{kKernels[k], ws, n, best[k]});
  }
  return out;
}

}  // namespace flopspy::cpuroof
