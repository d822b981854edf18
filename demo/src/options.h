// Command line of flopspy-demo.
#ifndef FLOPSPY_DEMO_OPTIONS_H_
#define FLOPSPY_DEMO_OPTIONS_H_

#include <cstddef>
#include <optional>

namespace flopspy_demo {

// Exit statuses the demo promises (docs/demo.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadArguments = 2;

struct GpuConfig {
  int n = 8192;  // side of the fp32 matrices
  int repeats = 3;
  int launch_loop_launches = 2000;
  int launch_loop_elements = 1024;
  int memory_loop_launches = 10;
};

struct CpuConfig {
  int n = 512;  // side of the fp64 matrices
  int naive_repeats = 3;
  int blocked_repeats = 6;
  std::size_t triad_bytes_per_array = std::size_t{64} << 20;
  int triad_passes = 30;
};

struct Options {
  bool run_cpu = true;
  bool run_gpu = true;
  GpuConfig gpu;
  CpuConfig cpu;
};

// Returns the options, or nothing when the program should exit at once with *exit_status
// (0 after --help, kExitBadArguments after a message on stderr).
std::optional<Options> ParseOptions(int argc, char** argv, int* exit_status);

}  // namespace flopspy_demo

#endif  // FLOPSPY_DEMO_OPTIONS_H_
