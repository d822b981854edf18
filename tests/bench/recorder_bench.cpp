// What recording costs: one record on the calling thread against an empty call, and the
// flusher's throughput. Run: build/bin/flopspy_bench_recorder (numbers: docs/performance.md).
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "clock.h"
#include "current_device.h"
#include "recorder.h"
#include "thread_buffer.h"

namespace {

using flopspy::interpose::NowNs;
using flopspy::interpose::ThreadBuffer;
namespace trace = flopspy::trace;

__attribute__((noinline)) int EmptyCall(int x) {
  benchmark::DoNotOptimize(x);
  return x;
}

// The baseline: a call that does nothing, as a hook's real function might.
void BM_EmptyCall(benchmark::State& state) {
  int x = 0;
  for (auto _ : state) benchmark::DoNotOptimize(EmptyCall(x++));
}
BENCHMARK(BM_EmptyCall);

void BM_ClockRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(NowNs());
}
BENCHMARK(BM_ClockRead);

// What a launch hook adds on the calling thread: read the clock, fill a 64-byte launch record,
// copy it into the thread's ring. A consumer thread drains the ring every millisecond, as the
// flusher does every FLOPSPY_FLUSH_MS.
void BM_RecordLaunchOnCallingThread(benchmark::State& state) {
  constexpr size_t kCapacity = 4u << 20;
  auto* memory = static_cast<uint8_t*>(mmap(nullptr, kCapacity, PROT_READ | PROT_WRITE,
                                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0));
  ThreadBuffer buffer(memory, kCapacity);
  std::atomic<bool> stop{false};
  std::thread consumer([&] {
    uint64_t sink = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      buffer.Drain([&](const uint8_t* r, size_t n) { sink += r[n - 1]; });
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    benchmark::DoNotOptimize(sink);
  });
  trace::KernelLaunchRecord record{};
  record.h = trace::MakeHeader<trace::KernelLaunchRecord>();
  uint64_t correlation = 0;
  int x = 0;
  for (auto _ : state) {
    record.enter_ns = NowNs();
    record.correlation = ++correlation;
    benchmark::DoNotOptimize(EmptyCall(x++));
    buffer.Write(&record, sizeof(record));
  }
  stop = true;
  consumer.join();
  state.counters["dropped"] = static_cast<double>(buffer.dropped());
  munmap(memory, kCapacity);
}
BENCHMARK(BM_RecordLaunchOnCallingThread);

// What a hook really pays: the clock read and Emit() itself (the recording check, the thread's
// buffer through TLS, the copy into its ring). The flusher drains the ring every 16,384 records,
// outside the timed region, so no record is dropped: a dropped record costs less than a written
// one and would flatter the figure, so any drop fails the benchmark.
// Until the pass is written, however long it takes.
constexpr flopspy::interpose::Recorder::Wait kWaitForAll{.stall_ms = 60'000, .total_ms = 60'000};

void BM_EmitLaunchThroughTheRecorder(benchmark::State& state) {
  using flopspy::interpose::Recorder;
  trace::KernelLaunchRecord record{};
  record.h = trace::MakeHeader<trace::KernelLaunchRecord>();
  uint64_t correlation = 0;
  uint64_t dropped = 0;
  int x = 0;
  Recorder::Get()->FlushNow(kWaitForAll);
  for (auto _ : state) {
    record.enter_ns = NowNs();
    record.correlation = ++correlation;
    benchmark::DoNotOptimize(EmptyCall(x++));
    dropped += flopspy::interpose::Emit(record) ? 0 : 1;
    if ((correlation & 16383) == 0) {
      state.PauseTiming();
      Recorder::Get()->FlushNow(kWaitForAll);
      state.ResumeTiming();
    }
  }
  state.counters["dropped"] = static_cast<double>(dropped);
  if (dropped > 0) state.SkipWithError("records were dropped: the figure would be too low");
}
BENCHMARK(BM_EmitLaunchThroughTheRecorder);

// Same without a consumer: the ring stays full and every record is dropped and counted.
void BM_RecordWhenBufferIsFull(benchmark::State& state) {
  constexpr size_t kCapacity = 64u << 10;
  std::vector<uint8_t> memory(kCapacity);
  ThreadBuffer buffer(memory.data(), kCapacity);
  trace::KernelLaunchRecord record{};
  record.h = trace::MakeHeader<trace::KernelLaunchRecord>();
  int x = 0;
  for (auto _ : state) {
    record.enter_ns = NowNs();
    benchmark::DoNotOptimize(EmptyCall(x++));
    buffer.Write(&record, sizeof(record));
  }
  state.counters["dropped"] = static_cast<double>(buffer.dropped());
}
BENCHMARK(BM_RecordWhenBufferIsFull);

#ifdef FAKECUDA_DRIVER_DIR
// What device attribution adds to every record (current_device.h): the driver's cuCtxGetCurrent
// and a compare with the thread's last context, against the fake libcuda.so.1 (whose
// cuCtxGetCurrent is a thread-local read, as the real driver's). Compare with BM_EmptyCall.
void BM_CurrentDevice(benchmark::State& state) {
  void* driver = dlopen(FAKECUDA_DRIVER_DIR "/libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  using Init = int (*)(unsigned);
  using Retain = int (*)(void**, int);
  using SetCurrent = int (*)(void*);
  const auto init = driver ? reinterpret_cast<Init>(dlsym(driver, "cuInit")) : nullptr;
  const auto retain =
      driver ? reinterpret_cast<Retain>(dlsym(driver, "cuDevicePrimaryCtxRetain")) : nullptr;
  const auto set =
      driver ? reinterpret_cast<SetCurrent>(dlsym(driver, "cuCtxSetCurrent")) : nullptr;
  void* context = nullptr;
  if (!init || !retain || !set || init(0) != 0 || retain(&context, 1) != 0 || set(context) != 0) {
    state.SkipWithError("the fake libcuda.so.1 could not be set up");
    return;
  }
  if (flopspy::interpose::CurrentDevice() != 1) {
    state.SkipWithError("the current device is not the one set");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(flopspy::interpose::CurrentDevice());
}
BENCHMARK(BM_CurrentDevice);
#endif

// The flusher: records of one thread encoded into chunks and written to a file (page cache).
void BM_FlusherThroughput(benchmark::State& state) {
  using flopspy::interpose::Recorder;
  const int records_per_pass = static_cast<int>(state.range(0));
  trace::KernelLaunchRecord record{};
  record.h = trace::MakeHeader<trace::KernelLaunchRecord>();
  uint64_t total = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (int i = 0; i < records_per_pass; ++i) {
      // Fields that vary as a training job's do, so that compression (FLOPSPY_COMPRESS) works
      // on what it meets in practice: a few dozen signatures, some streams, ragged durations,
      // parameter bytes (a size and a pointer).
      record.enter_ns = NowNs();
      record.correlation = ++total;
      record.signature = 1 + static_cast<uint32_t>(total % 53);
      record.stream = 1 + static_cast<uint32_t>(total % 3);
      record.duration_ns = 1500 + static_cast<uint32_t>(total * 7919 % 1000);
      const uint64_t size = 4096u << (total % 7);
      const uint64_t pointer = 0x7f0000000000ull + (total % 97) * 0x100000;
      std::memcpy(record.params, &size, sizeof(size));
      std::memcpy(record.params + 8, &pointer, sizeof(pointer));
      record.param_bytes = 16;
      flopspy::interpose::Emit(record);
    }
    state.ResumeTiming();
    Recorder::Get()->FlushNow(kWaitForAll);
  }
  state.counters["records/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * records_per_pass, benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * records_per_pass * sizeof(record) / 1e6,
      benchmark::Counter::kIsRate);
}
// The work happens on the flusher thread: rates are per second of wall time.
BENCHMARK(BM_FlusherThroughput)
    ->Arg(100'000)
    ->Iterations(20)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Collects results to print the ratios the goals are stated in.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    // With --benchmark_repetitions the median stands for the benchmark.
    for (const auto& run : runs) {
      const std::string name = run.run_name.function_name;
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
      if (run.run_type == Run::RT_Iteration && times_.contains(name + "#median")) continue;
      times_[name] = run.GetAdjustedRealTime();
      if (run.run_type == Run::RT_Aggregate) times_[name + "#median"] = 1;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    const double empty = times_["BM_EmptyCall"];
    const double ring = times_["BM_RecordLaunchOnCallingThread"];
    const double emit = times_["BM_EmitLaunchThroughTheRecorder"];
    if (empty > 0 && emit > 0) {
      std::printf(
          "\nrecord on the calling thread (clock + Emit): %.1f ns per call against %.1f ns for an "
          "empty call: %.1f ns added (goal 15 ns, limit 50 ns), ratio %.1fx\n",
          emit, empty, emit - empty, emit / empty);
    }
    if (empty > 0 && ring > 0) {
      std::printf("the ring alone (clock + ThreadBuffer::Write): %.1f ns added\n", ring - empty);
    }
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace

int main(int argc, char** argv) {
  // A recorder of our own for the flusher benchmark, writing into a scratch folder.
  const auto dir = std::filesystem::temp_directory_path() / "flopspy-bench";
  std::filesystem::remove_all(dir);
  setenv("FLOPSPY_OUT", dir.c_str(), 1);
  setenv("FLOPSPY_BUFFER_KB", "65536", 1);
  setenv("FLOPSPY_FLUSH_MS", "10000", 1);
  setenv("FLOPSPY_QUIET", "1", 1);
  flopspy::interpose::Recorder::Start();
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::filesystem::remove_all(dir);
  return 0;
}
