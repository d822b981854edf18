// overhead_launch_loop: what one kernel launch costs the CPU, for comparing a run with and without
// flopspy (tests/gpu/overhead_check.py). Launches a kernel that does nothing, in a tight
// loop on one stream, two ways:
//
//   call   batches of --batch launches, each batch followed by a synchronisation outside the
//          timed part, so the launch queue never fills: the CPU time of the launch call itself
//   wall   --launches launches back to back, then one synchronisation: wall time per launch,
//          which is the larger of the CPU's launch rate and the GPU's kernel rate
//
//   overhead_launch_loop [--launches N] [--batch N] [--repeat N] --json FILE
//
// FILE gets the nanoseconds per launch of every repetition of both. Exit status: 0 ok, 1 a CUDA
// call failed, 2 bad arguments, 77 no GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" __global__ void fs_empty(int n) {
  // Never true: keeps the parameter and the kernel from being optimised into nothing.
  if (n < 0 && threadIdx.x == 0) asm volatile("trap;");
}

namespace {

struct Options {
  int launches = 100000;
  int batch = 256;
  int repeat = 5;
  std::string json;
};

bool ParseInt(const char* text, int min, int max, int& out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > max) return false;
  out = static_cast<int>(v);
  return true;
}

int ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--launches" && has_value && ParseInt(argv[++i], 1, 100000000, o.launches)) continue;
    if (a == "--batch" && has_value && ParseInt(argv[++i], 1, 1000000, o.batch)) continue;
    if (a == "--repeat" && has_value && ParseInt(argv[++i], 1, 1000, o.repeat)) continue;
    if (a == "--json" && has_value) {
      o.json = argv[++i];
      continue;
    }
    std::fprintf(stderr,
                 "usage: overhead_launch_loop [--launches N] [--batch N] [--repeat N] --json FILE\n"
                 "(bad or incomplete argument: %s)\n",
                 a.c_str());
    return 2;
  }
  if (o.json.empty()) {
    std::fprintf(stderr, "overhead_launch_loop: --json FILE is required\n");
    return 2;
  }
  return 0;
}

using Clock = std::chrono::steady_clock;

double Ns(Clock::duration d) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

bool Check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "overhead_launch_loop: %s failed: %s\n", what, cudaGetErrorString(e));
  return false;
}

void PrintList(FILE* f, const char* key, const std::vector<double>& v, bool last) {
  std::fprintf(f, "  \"%s\": [", key);
  for (size_t i = 0; i < v.size(); ++i) std::fprintf(f, "%s%.2f", i ? ", " : "", v[i]);
  std::fprintf(f, "]%s\n", last ? "" : ",");
}

int Run(const Options& o) {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    std::printf("overhead_launch_loop: no usable CUDA GPU (%s)\n",
                probe != cudaSuccess ? cudaGetErrorString(probe) : "no device");
    return 77;
  }
  cudaStream_t stream = nullptr;
  if (!Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate")) {
    return 1;
  }
  // Warm up: module loading, the first launch's lazy set-up and flopspy's first sight of the
  // function stay out of the timings.
  for (int i = 0; i < 1000; ++i) fs_empty<<<1, 32, 0, stream>>>(i);
  if (!Check(cudaGetLastError(), "launch") || !Check(cudaStreamSynchronize(stream), "sync")) {
    return 1;
  }

  std::vector<double> call_ns, wall_ns;
  long total_launches = 1000;
  for (int rep = 0; rep < o.repeat; ++rep) {
    Clock::duration in_calls{};
    for (int done = 0; done < o.launches; done += o.batch) {
      const int count = std::min(o.batch, o.launches - done);
      const auto t0 = Clock::now();
      for (int i = 0; i < count; ++i) fs_empty<<<1, 32, 0, stream>>>(i);
      in_calls += Clock::now() - t0;
      if (!Check(cudaStreamSynchronize(stream), "sync")) return 1;
    }
    call_ns.push_back(Ns(in_calls) / o.launches);

    const auto t0 = Clock::now();
    for (int i = 0; i < o.launches; ++i) fs_empty<<<1, 32, 0, stream>>>(i);
    if (!Check(cudaStreamSynchronize(stream), "sync")) return 1;
    wall_ns.push_back(Ns(Clock::now() - t0) / o.launches);
    total_launches += 2L * o.launches;
  }
  if (!Check(cudaGetLastError(), "launch")) return 1;
  cudaStreamDestroy(stream);

  FILE* f = std::fopen(o.json.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "overhead_launch_loop: cannot write %s\n", o.json.c_str());
    return 1;
  }
  std::fprintf(f, "{\n  \"program\": \"overhead_launch_loop\",\n  \"cudart\": \"%s\",\n",
               FLOPSPY_CUDART_KIND);
  std::fprintf(f, "  \"kernel\": \"fs_empty\",\n  \"launches_per_repeat\": %d,\n", o.launches);
  std::fprintf(f, "  \"batch\": %d,\n  \"total_launches\": %ld,\n", o.batch, total_launches);
  PrintList(f, "call_ns_per_launch", call_ns, false);
  PrintList(f, "wall_ns_per_launch", wall_ns, true);
  std::fprintf(f, "}\n");
  if (std::fclose(f) != 0) return 1;
  std::printf(
      "overhead_launch_loop: %ld launches, first repetition %.0f ns per call, %.0f ns wall\n",
      total_launches, call_ns.front(), wall_ns.front());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const int status = ParseOptions(argc, argv, o); status != 0) return status;
  return Run(o);
}
