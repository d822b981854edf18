// flopspy-demo: a GPU and CPU workload whose costs are known, to run under flopspy and compare
// with flopspy-report. See docs/demo.md.
#include <dlfcn.h>
#include <fmt/core.h>

#include <cstdio>
#include <exception>

#include "cpu_workload.h"
#include "gpu_workload.h"
#include "options.h"

int main(int argc, char** argv) {
  using namespace flopspy_demo;
  int exit_status = kExitOk;
  const auto options = ParseOptions(argc, argv, &exit_status);
  if (!options) return exit_status;

  try {
    // libflopspy.so exports the region functions; finding them tells whether flopspy is tracing.
    const bool traced = dlsym(RTLD_DEFAULT, "flopspy_region_begin") != nullptr;
    fmt::print("flopspy-demo: {}\n",
               traced ? "running under flopspy" : "not traced (try: flopspy run -- flopspy-demo)");
    std::fflush(stdout);

    bool passed = true;
    if (options->run_gpu) {
      passed = RunGpuWorkload(options->gpu, options->run_cpu) != GpuOutcome::kFailed;
    }
    if (options->run_cpu) passed = RunCpuWorkload(options->cpu) && passed;
    return passed ? kExitOk : kExitCheckFailed;
  } catch (const std::exception& error) {
    // Host allocations are the only thing that can throw (std::bad_alloc for a large --size).
    fmt::print(stderr, "flopspy-demo: {}\n", error.what());
    return kExitCheckFailed;
  }
}
