// The CPU cost of an NVTX push and pop under flopspy's receiver (docs/nvtx.md, issue 18): this
// program is its own NVTX client and runs itself twice, without flopspy (NVTX finds no tool, each
// call is a no-op) and under LD_PRELOAD of libflopspy.so (each call writes a record), and prints
// the median time per push+pop pair in batches, beside a bare loop that calls a no-op function
// through a pointer. The trace of the recording run must hold every range, none lost.
//
// Run: build/bin/flopspy_bench_nvtx [pairs per batch, default 100000]
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "flopspy/trace/reader.h"
#include "subprocess.h"

namespace {

constexpr int kBatches = 30;

using Clock = std::chrono::steady_clock;

__attribute__((noinline)) int NoOp(const char* name) {
  asm volatile("" : : "r"(name) : "memory");
  return 0;
}
int (*volatile g_no_op)(const char*) = NoOp;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times `pairs` push+pop pairs per batch; the flusher drains between batches.
int Measure(long pairs) {
  std::vector<double> nvtx;
  std::vector<double> bare;
  for (int b = 0; b < kBatches; ++b) {
    auto start = Clock::now();
    for (long i = 0; i < pairs; ++i) {
      nvtxRangePushA("bench-range");
      nvtxRangePop();
    }
    nvtx.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / pairs);
    start = Clock::now();
    for (long i = 0; i < pairs; ++i) {
      g_no_op("bench-range");
      g_no_op(nullptr);
    }
    bare.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / pairs);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  std::printf("%.2f %.2f\n", Median(nvtx), Median(bare));
  return 0;
}

struct Counts {
  uint64_t ranges = 0;
  uint64_t lost = 0;
};

Counts Read(const std::string& path) {
  Counts c;
  flopspy::trace::TraceReader reader = flopspy::trace::TraceReader::OpenFile(path);
  if (!reader.header_ok()) return c;
  reader.ForEachRecord([&c](const flopspy::trace::RecordView& r) {
    if (r.type == flopspy::trace::RecordType::kRange) ++c.ranges;
    if (r.type == flopspy::trace::RecordType::kLostRecords) {
      c.lost += r.As<flopspy::trace::LostRecordsRecord>().count;
    }
  });
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--measure") return Measure(std::atol(argv[2]));
  const long pairs = argc > 1 ? std::max(1L, std::atol(argv[1])) : 100000;
  flopspy::testing::TempDir dir;
  const auto run = [&](bool traced) {
    flopspy::testing::ChildOptions options;
    options.timeout = std::chrono::minutes(5);
    options.unset = {"NVTX_INJECTION64_PATH", "LD_PRELOAD"};
    if (traced) {
      options.unset = {"NVTX_INJECTION64_PATH"};
      options.env = {{"LD_PRELOAD", FLOPSPY_LIBRARY_PATH}, {"FLOPSPY_OUT", dir.path()},
                     {"FLOPSPY_GPU_TIMING", "off"},        {"FLOPSPY_CPU_ROOFLINE", "off"},
                     {"FLOPSPY_FLUSH_MS", "10"},           {"FLOPSPY_BUFFER_KB", "65536"}};
    }
    return flopspy::testing::RunChild({argv[0], "--measure", std::to_string(pairs)}, options);
  };
  const auto plain = run(false);
  const auto traced = run(true);
  double plain_ns = 0, bare_ns = 0, traced_ns = 0, bare2_ns = 0;
  if (std::sscanf(plain.out.c_str(), "%lf %lf", &plain_ns, &bare_ns) != 2 ||
      std::sscanf(traced.out.c_str(), "%lf %lf", &traced_ns, &bare2_ns) != 2) {
    std::fprintf(stderr, "a measuring run failed:\n%s%s%s%s", plain.out.c_str(), plain.err.c_str(),
                 traced.out.c_str(), traced.err.c_str());
    return 1;
  }
  Counts counts;
  for (const std::string& path : dir.Files(".fspy")) {
    const Counts c = Read(path);
    counts.ranges += c.ranges;
    counts.lost += c.lost;
  }
  const double bare = std::min(bare_ns, bare2_ns);
  std::printf("push+pop pair, median of %d batches of %ld:\n", kBatches, pairs);
  std::printf("  bare loop, two no-op calls     %7.1f ns\n", bare);
  std::printf("  NVTX, no tool                  %7.1f ns  (%.1fx bare)\n", plain_ns,
              plain_ns / bare);
  std::printf("  NVTX, flopspy recording        %7.1f ns  (%.1fx bare, %.1f ns per callback)\n",
              traced_ns, traced_ns / bare, (traced_ns - plain_ns) / 2);
  std::printf("  range records %llu of %llu, lost %llu\n",
              static_cast<unsigned long long>(counts.ranges),
              static_cast<unsigned long long>(2ull * kBatches * pairs),
              static_cast<unsigned long long>(counts.lost));
  return counts.ranges + counts.lost == 2ull * kBatches * pairs ? 0 : 1;
}
