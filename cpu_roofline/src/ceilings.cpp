#include "flopspy/cpu_roofline/ceilings.h"

#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "ceilings_kernels.h"
#include "flopspy/cpu_roofline/event_catalog.h"
#include "flopspy/cpu_roofline/sysfs_pmu.h"
#include "text_util.h"

namespace flopspy::cpuroof {

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kSse:
      return "sse";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kNeon:
      return "neon";
  }
  return "scalar";
}

std::optional<Isa> IsaFromName(std::string_view name) {
  for (Isa i : {Isa::kScalar, Isa::kSse, Isa::kAvx2, Isa::kAvx512, Isa::kNeon}) {
    if (IsaName(i) == name) return i;
  }
  return std::nullopt;
}

int IsaBits(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return 64;
    case Isa::kSse:
      return 128;
    case Isa::kAvx2:
      return 256;
    case Isa::kAvx512:
      return 512;
    case Isa::kNeon:
      return 128;
  }
  return 64;
}

std::vector<Isa> SupportedIsas() {
  std::vector<Isa> out{Isa::kScalar};
#if defined(__x86_64__)
  __builtin_cpu_init();
  out.push_back(Isa::kSse);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) out.push_back(Isa::kAvx2);
  if (__builtin_cpu_supports("avx512f")) out.push_back(Isa::kAvx512);
#elif defined(__aarch64__)
  out.push_back(Isa::kNeon);
#endif
  return out;
}

// --- theoretical peak ----------------------------------------------------------------------

namespace {

struct CoreModel {
  std::string_view name;
  int pipes;
  int datapath_bits;
  int latency;
  bool fma;
};

// FMA pipes, vector datapath and FMA latency per core (facts §6.1; vendor figures, verify per
// SKU: some Xeon SKUs have one AVX-512 FMA unit).
CoreModel ModelFor(CpuFamily f, const CpuIdentity& cpu) {
  switch (f) {
    case CpuFamily::kIntelSnb:
      return {"add + multiply ports, 256-bit, no FMA", 1, 256, 5, false};
    case CpuFamily::kIntelHsw:
      return {"2 FMA pipes x 256-bit", 2, 256, 5, true};
    case CpuFamily::kIntelBdw:
    case CpuFamily::kIntelSkl:
    case CpuFamily::kIntelHybrid:
      return {"2 FMA pipes x 256-bit", 2, 256, 4, true};
    case CpuFamily::kIntelIcl:
      return {"2 FMA pipes x 256-bit (AVX-512 fused)", 2, 256, 4, true};
    case CpuFamily::kIntelSkx:
    case CpuFamily::kIntelIcx:
    case CpuFamily::kIntelSpr:
    case CpuFamily::kIntelGnr:
      return {"2 FMA pipes x 512-bit", 2, 512, 4, true};
    case CpuFamily::kIntelSrf:
      return {"2 FMA pipes x 128-bit", 2, 128, 4, true};
    case CpuFamily::kAmdZen1:
      return {"2 FMA pipes x 128-bit", 2, 128, 5, true};
    case CpuFamily::kAmdZen2:
      return {"2 FMA pipes x 256-bit", 2, 256, 5, true};
    case CpuFamily::kAmdZen3:
    case CpuFamily::kAmdZen4:
      return {"2 FMA pipes x 256-bit", 2, 256, 4, true};
    case CpuFamily::kAmdZen5:
      return {"2 FMA pipes x 512-bit", 2, 512, 4, true};
    case CpuFamily::kArmNeoverseN1:
    case CpuFamily::kArmNeoverseN2:
    case CpuFamily::kArmNeoverseN3:
      return {"2 FMA pipes x 128-bit", 2, 128, 4, true};
    case CpuFamily::kArmNeoverseV1:
    case CpuFamily::kArmNeoverseV2:
    case CpuFamily::kArmNeoverseV3:
      return {"4 FMA pipes x 128-bit", 4, 128, 4, true};
    default:
      break;
  }
  const CpuFeatures& ft = cpu.features;
  const int widest = ft.avx512f ? 512 : ft.avx2 ? 256 : 128;
  return {"unknown core: assumed 2 FMA pipes x widest vector", 2, widest, 4, ft.fma || ft.neon};
}

}  // namespace

const TheoreticalIsaPeak* TheoreticalPeak::Find(Isa isa) const {
  for (const TheoreticalIsaPeak& p : isas) {
    if (p.isa == isa) return &p;
  }
  return nullptr;
}

int TheoreticalPeak::AccumulatorsFor(Isa isa) const {
  // A 512-bit op on a 256-bit datapath occupies two pipes: half as many in flight.
  int pipes = fma_pipes;
  if (IsaBits(isa) > datapath_bits) pipes = std::max(1, pipes * datapath_bits / IsaBits(isa));
  return std::max(1, fma_latency * pipes);
}

TheoreticalPeak ComputeTheoreticalPeak(const CpuIdentity& cpu) {
  TheoreticalPeak t;
  const FamilyInfo family = IdentifyFamily(cpu);
  const CoreModel m = ModelFor(family.family, cpu);
  t.basis = std::string(family.name) + ": " + std::string(m.name) + ", FMA latency " +
            std::to_string(m.latency);
  t.fma_pipes = m.pipes;
  t.datapath_bits = m.datapath_bits;
  t.fma_latency = m.latency;
  t.fma = m.fma;
  t.nominal_ghz = cpu.nominal_mhz / 1000.0;
  t.max_ghz = cpu.max_mhz / 1000.0;
  t.cores = std::max(1, cpu.physical_cores);
  std::vector<Isa> isas{Isa::kScalar};
  if (cpu.vendor == CpuVendor::kArm || cpu.features.neon) {
    isas.push_back(Isa::kNeon);
  } else {
    isas.push_back(Isa::kSse);
    if (cpu.features.avx2) isas.push_back(Isa::kAvx2);
    if (cpu.features.avx512f) isas.push_back(Isa::kAvx512);
  }
  for (Isa isa : isas) {
    TheoreticalIsaPeak p;
    p.isa = isa;
    const int bits = std::min(IsaBits(isa), m.datapath_bits);
    // Without FMA a multiply and an add issue side by side: still 2 flops per lane per cycle.
    p.dp_flops_per_cycle = m.pipes * (bits / 64.0) * 2;
    p.sp_flops_per_cycle = m.pipes * (bits / 32.0) * 2;
    if (isa == Isa::kScalar) {
      p.dp_flops_per_cycle = m.pipes * 2.0;
      p.sp_flops_per_cycle = m.pipes * 2.0;
    }
    p.dp_gflops_core = p.dp_flops_per_cycle * t.nominal_ghz;
    p.sp_gflops_core = p.sp_flops_per_cycle * t.nominal_ghz;
    p.dp_gflops_all = p.dp_gflops_core * t.cores;
    p.sp_gflops_all = p.sp_gflops_core * t.cores;
    t.isas.push_back(p);
  }
  return t;
}

CacheSizes DetectCacheSizes(const HostPaths& paths) {
  CacheSizes c;
  const std::string base = paths.sysfs_root + "/devices/system/cpu/cpu0/cache";
  for (int i = 0; i < 8; ++i) {
    const std::string dir = base + "/index" + std::to_string(i) + "/";
    auto level = ReadSmallFile(dir + "level");
    auto type = ReadSmallFile(dir + "type");
    auto size = ReadSmallFile(dir + "size");
    if (!level || !type || !size) continue;
    std::string_view s = Trim(*size);
    uint64_t mult = 1;
    if (EndsWith(s, "K")) mult = 1024;
    if (EndsWith(s, "M")) mult = 1024 * 1024;
    if (mult != 1) s.remove_suffix(1);
    const uint64_t bytes = ParseUint(s).value_or(0) * mult;
    if (*level == "1" && *type == "Data") c.l1d = bytes;
    if (*level == "2" && *type != "Instruction") c.l2 = bytes;
    if (*level == "3") c.l3 = bytes;
  }
  if (paths.sysfs_root == "/sys") {
    if (!c.l1d) c.l1d = static_cast<uint64_t>(std::max(0L, sysconf(_SC_LEVEL1_DCACHE_SIZE)));
    if (!c.l2) c.l2 = static_cast<uint64_t>(std::max(0L, sysconf(_SC_LEVEL2_CACHE_SIZE)));
    if (!c.l3) c.l3 = static_cast<uint64_t>(std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE)));
  }
  if (!c.l1d) c.l1d = 32 << 10;
  if (!c.l2) c.l2 = 1 << 20;
  if (!c.l3) c.l3 = 8 << 20;
  return c;
}

// --- running the microbenchmarks -------------------------------------------------------------

namespace {

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One CPU per physical core this process may run on.
std::vector<int> CoreCpus(const HostPaths& paths) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> allowed;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) allowed.push_back(c);
    }
  }
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<int> out;
  for (int c : allowed) {
    const std::string topo =
        paths.sysfs_root + "/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    auto pkg = ReadSmallFile(topo + "physical_package_id");
    auto core = ReadSmallFile(topo + "core_id");
    if (pkg && core && !seen.emplace(*pkg, *core).second) continue;  // an SMT sibling
    out.push_back(c);
  }
  if (out.empty()) out.push_back(0);
  return out;
}

void PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

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

// Runs fn(thread_index) on one thread per CPU, pinned; returns when all are done.
template <class Fn>
void OnCpus(const std::vector<int>& cpus, Fn fn) {
  std::vector<std::thread> threads;
  threads.reserve(cpus.size());
  for (size_t i = 0; i < cpus.size(); ++i) {
    threads.emplace_back([&, i] {
      PinTo(cpus[i]);
      fn(static_cast<int>(i));
    });
  }
  for (std::thread& t : threads) t.join();
}

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

// Largest working set per thread in quick mode: a DRAM roof wherever L3 is at most 64 MiB.
constexpr uint64_t kQuickMaxWorkingSet = 256ull << 20;

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

std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

uint64_t PhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

// Which cache level a sample measures, by where its data lives.
std::string LevelOf(const BandwidthSample& s, const CacheSizes& c) {
  const uint64_t ws = s.working_set_bytes;
  const uint64_t total = ws * static_cast<uint64_t>(s.threads);
  if (ws * 2 <= c.l1d) return "L1";
  if (ws >= 2 * c.l1d && ws * 2 <= c.l2) return "L2";
  if (ws >= 2 * c.l2 && total * 2 <= c.l3) return "L3";
  if (ws >= 4 * c.l3 && total >= 4 * c.l3) return "DRAM";
  return "";
}

}  // namespace

CpuCeilings RunCpuCeilings(const CeilingsOptions& options) {
  return RunCpuCeilings(options, DetectCpuIdentity(), DetectCacheSizes());
}

CpuCeilings RunCpuCeilings(const CeilingsOptions& options, const CpuIdentity& cpu,
                           const CacheSizes& caches) {
  const auto start = std::chrono::steady_clock::now();
  CpuCeilings out;
  out.cpu_key = CpuModelKey(cpu);
  out.cpu_model = cpu.model_name;
  out.cpu = DescribeCpu(cpu);
  out.created = UtcNow();
  out.quick = options.quick;
  out.caches = caches;
  out.theoretical = ComputeTheoreticalPeak(cpu);
  const double seconds = options.seconds_per_point > 0 ? options.seconds_per_point
                         : options.quick               ? 0.01
                                                       : 0.1;
  const int repeats = options.repeats > 0 ? options.repeats : options.quick ? 1 : 3;
  std::vector<int> all = CoreCpus(HostPaths{});
  if (options.max_threads > 0 && static_cast<int>(all.size()) > options.max_threads) {
    all.resize(static_cast<size_t>(options.max_threads));
  }
  out.threads_all = static_cast<int>(all.size());
  const std::vector<int> one{all.front()};

  if (options.flops) {
    for (Isa isa : SupportedIsas()) {
      for (bool dp : {true, false}) {
        const std::vector<int> choices = kernels::AccumulatorChoices(isa);
        const int needed = out.theoretical.AccumulatorsFor(isa);
        // The smallest compiled count that covers latency x pipes; in full mode also the others.
        int sized = choices.back();
        for (int c : choices) {
          if (c >= needed) {
            sized = c;
            break;
          }
        }
        std::vector<int> tries{sized};
        if (!options.quick) tries = choices;
        FlopsCeiling single;
        single.isa = isa;
        single.precision = dp ? Precision::kDp : Precision::kSp;
        for (int acc : tries) {
          const double g = MeasureFma(isa, dp, acc, one, seconds, repeats);
          if (g > single.gflops) {
            single.gflops = g;
            single.accumulators = acc;
          }
        }
        if (single.gflops <= 0) continue;
        const TheoreticalIsaPeak* th = out.theoretical.Find(isa);
        single.theoretical_gflops = th ? (dp ? th->dp_gflops_core : th->sp_gflops_core) : 0;
        out.flops.push_back(single);
        if (all.size() > 1) {
          FlopsCeiling multi = single;
          multi.threads = out.threads_all;
          multi.gflops = MeasureFma(isa, dp, single.accumulators, all, seconds, repeats);
          multi.theoretical_gflops = th ? (dp ? th->dp_flops_per_cycle : th->sp_flops_per_cycle) *
                                              out.theoretical.nominal_ghz * out.threads_all
                                        : 0;
          out.flops.push_back(multi);
        }
      }
    }
    // The turbo caveat of Ofenbeck et al.: a nominal-frequency peak can be exceeded.
    for (const FlopsCeiling& f : out.flops) {
      if (f.threads == 1 && f.precision == Precision::kDp && f.theoretical_gflops > 0 &&
          f.gflops > 1.05 * f.theoretical_gflops) {
        const TheoreticalIsaPeak* th = out.theoretical.Find(f.isa);
        const double ghz = th && th->dp_flops_per_cycle > 0 ? f.gflops / th->dp_flops_per_cycle : 0;
        out.notes.push_back(std::string(IsaName(f.isa)) + " FP64 measured " + FormatG(f.gflops) +
                            " GFLOP/s, above the nominal-frequency peak " +
                            FormatG(f.theoretical_gflops) + ": the core ran at about " +
                            FormatG(ghz, 3) + " GHz (turbo)");
      }
    }
  }

  if (options.bandwidth) {
    uint64_t max_ws = options.max_working_set;
    if (max_ws == 0) {
      max_ws = std::max<uint64_t>(4 * caches.l3, 64ull << 20);
      // Quick mode stays quick where the reported L3 is huge (a VM may report the whole
      // socket's): the DRAM roof then comes from the fallback below, with a note.
      if (options.quick) max_ws = std::min<uint64_t>(max_ws, kQuickMaxWorkingSet);
    }
    const uint64_t mem = PhysicalMemory();
    if (mem > 0) max_ws = std::min<uint64_t>(max_ws, mem / 8 / std::max<size_t>(1, all.size()));
    max_ws = std::min<uint64_t>(max_ws, 2ull << 30);
    std::vector<uint64_t> sizes;
    if (options.quick) {
      sizes = {caches.l1d / 2, std::max(caches.l2 / 2, 2 * caches.l1d),
               std::max(caches.l3 / 4 / std::max<size_t>(1, all.size()), 2 * caches.l2), max_ws};
    } else {
      for (uint64_t s = 8 << 10; s <= max_ws; s *= 2) sizes.push_back(s);
      if (sizes.empty() || sizes.back() != max_ws) sizes.push_back(max_ws);
    }
    for (uint64_t& s : sizes) s = std::min(s, max_ws);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::vector<std::vector<int>> thread_sets{one};
    if (all.size() > 1) thread_sets.push_back(all);
    for (const auto& cpus : thread_sets) {
      for (uint64_t ws : sizes) {
        for (const BandwidthSample& s : MeasureBandwidth(ws, cpus, seconds, repeats)) {
          out.sweep.push_back(s);
        }
      }
    }
    // Level roofs: the best sample inside each level's window, per kernel and thread count.
    std::map<std::tuple<std::string, std::string, int>, BandwidthCeiling> best;
    for (const BandwidthSample& s : out.sweep) {
      const std::string level = LevelOf(s, caches);
      if (level.empty()) continue;
      auto& b = best[{level, s.kernel, s.threads}];
      if (s.gbytes_per_s > b.gbytes_per_s) {
        b = BandwidthCeiling{level, s.kernel, s.threads, s.gbytes_per_s, s.working_set_bytes};
      }
    }
    // No set reached 4 x L3 (memory or quick mode capped it): the largest one, well beyond L2,
    // gives the DRAM roof, said to be an upper bound.
    const bool dram_in_window = std::any_of(best.begin(), best.end(), [](const auto& entry) {
      return std::get<0>(entry.first) == "DRAM";
    });
    if (!dram_in_window && !sizes.empty() && sizes.back() >= 4 * caches.l2) {
      for (const BandwidthSample& s : out.sweep) {
        if (s.working_set_bytes != sizes.back()) continue;
        auto& b = best[{"DRAM", s.kernel, s.threads}];
        if (s.gbytes_per_s > b.gbytes_per_s) {
          b = BandwidthCeiling{"DRAM", s.kernel, s.threads, s.gbytes_per_s, s.working_set_bytes};
        }
      }
      out.notes.push_back("DRAM roof from the largest working set, " +
                          FormatG(static_cast<double>(sizes.back()) / (1 << 20)) +
                          " MiB per thread, below 4 x L3 (" +
                          FormatG(static_cast<double>(caches.l3) / (1 << 20)) + " MiB as reported" +
                          (options.quick ? ", quick mode" : "") +
                          "): it is too high if part of the set stayed in L3");
    }
    for (const char* level : {"L1", "L2", "L3", "DRAM"}) {
      bool found = false;
      for (const auto& [key, b] : best) {
        if (std::get<0>(key) == level) {
          out.bandwidth.push_back(b);
          found = true;
        }
      }
      if (!found) {
        out.notes.push_back(std::string("no working set fell in the ") + level +
                            " window; that roof is missing");
      }
    }
  }
  out.seconds = Seconds(start, std::chrono::steady_clock::now());
  return out;
}

std::optional<double> CpuCeilings::PeakGflops(Precision precision, int threads) const {
  std::optional<double> best;
  const int want = threads == 0 ? threads_all : threads;
  for (const FlopsCeiling& f : flops) {
    if (f.precision != precision || f.threads != want) continue;
    if (!best || f.gflops > *best) best = f.gflops;
  }
  return best;
}

std::optional<double> CpuCeilings::Bandwidth(std::string_view level, std::string_view kernel,
                                             int threads) const {
  std::optional<double> best;
  const int want = threads == 0 ? threads_all : threads;
  for (const BandwidthCeiling& b : bandwidth) {
    if (b.level != level || b.threads != want) continue;
    if (!kernel.empty() && b.kernel != kernel) continue;
    if (!best || b.gbytes_per_s > *best) best = b.gbytes_per_s;
  }
  return best;
}

}  // namespace flopspy::cpuroof
