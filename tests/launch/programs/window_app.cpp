// The capture window (FLOPSPY_DELAY, FLOPSPY_DURATION, FLOPSPY_CAPTURE_RANGE) seen from a
// program: numbered add_kernel launches (the number is the kernel's `n`), so the test can tell
// which were recorded.
//   window_app timed N MS   N launches MS milliseconds apart
//   window_app region       launches 1-3, region "step" {10, 11}, 20-22, "step" {30}, 40
#include <flopspy/flopspy.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "app_util.h"
#include "kernels.h"

namespace {

using namespace launchtest;

void LaunchNumbered(int n) {
  AddArgs args(n);
  cudaLaunchKernel(StubAddress(AddKernelStub), dim3(1), dim3(32), args.args, 0, nullptr);
}

void SleepMs(int ms) {
  timespec t{ms / 1000, (ms % 1000) * 1'000'000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "timed" && argc > 3) {
    const int n = std::atoi(argv[2]), ms = std::atoi(argv[3]);
    for (int i = 0; i < n; ++i) {
      LaunchNumbered(i);
      SleepMs(ms);
    }
    return 0;
  }
  if (mode == "region") {
    for (int i : {1, 2, 3}) LaunchNumbered(i);
    flopspy_region_begin("step");
    LaunchNumbered(10);
    flopspy_region_begin("step");  // nested: the window closes at the outer end
    flopspy_region_end("step");
    LaunchNumbered(11);
    flopspy_region_end("step");
    for (int i : {20, 21, 22}) LaunchNumbered(i);
    flopspy_region_begin("step");
    LaunchNumbered(30);
    flopspy_region_end("step");
    LaunchNumbered(40);
    return 0;
  }
  std::fprintf(stderr, "usage: window_app timed N MS | region\n");
  return 2;
}
