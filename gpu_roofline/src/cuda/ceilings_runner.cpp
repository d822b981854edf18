// `flopspy ceilings --gpu`: opens the driver, picks the device, sets up its primary context, a
// stream and the kernels' module, runs every benchmark and releases everything again.
#include "flopspy/gpu_roofline/ceilings_runner.h"

#include <chrono>
#include <cstddef>

#include "ceilings_bench.h"
#include "driver_api.h"
#include "flopspy/gpu_roofline/device_reader.h"
#include "flopspy/gpu_roofline/device_table.h"

#ifdef FLOPSPY_HAVE_CEILINGS_FATBIN
namespace flopspy::gpuroof {
extern const unsigned char kCeilingsFatbin[];
extern const size_t kCeilingsFatbin_size;
}  // namespace flopspy::gpuroof
#endif

namespace flopspy::gpuroof {
namespace {

const cuda::DriverApi* g_driver = nullptr;  // for the plain-function lookup ReadDevices takes
void* DriverSymbol(const char* name) {
  return g_driver != nullptr ? g_driver->Symbol(name) : nullptr;
}

const void* Fatbin() {
#ifdef FLOPSPY_HAVE_CEILINGS_FATBIN
  return kCeilingsFatbin_size > 0 ? kCeilingsFatbin : nullptr;
#else
  return nullptr;
#endif
}

// The primary context, stream and module of one run; released in reverse order.
struct Session {
  const cuda::DriverApi* cu = nullptr;
  CUdevice device = 0;
  bool retained = false;
  CUstream stream = nullptr;
  CUmodule module = nullptr;
  ~Session() {
    if (cu == nullptr) return;
    if (module) cu->ModuleUnload(module);
    if (stream) cu->StreamDestroy(stream);
    if (retained) cu->DevicePrimaryCtxRelease(device);
  }
};

std::string Open(const cuda::DriverApi& cu, int index, Session* s) {
  s->cu = &cu;
  if (const CUresult rc = cu.DeviceGet(&s->device, index); rc != CUDA_SUCCESS) {
    return cu.Error("cuDeviceGet", rc);
  }
  CUcontext context = nullptr;
  if (const CUresult rc = cu.DevicePrimaryCtxRetain(&context, s->device); rc != CUDA_SUCCESS) {
    return cu.Error("cuDevicePrimaryCtxRetain", rc);
  }
  s->retained = true;
  if (const CUresult rc = cu.CtxSetCurrent(context); rc != CUDA_SUCCESS) {
    return cu.Error("cuCtxSetCurrent", rc);
  }
  if (const CUresult rc = cu.StreamCreate(&s->stream, CU_STREAM_NON_BLOCKING); rc != CUDA_SUCCESS) {
    return cu.Error("cuStreamCreate", rc);
  }
  if (const CUresult rc = cu.ModuleLoadData(&s->module, Fatbin()); rc != CUDA_SUCCESS) {
    return cu.Error("loading the ceilings kernels (cuModuleLoadData)", rc) +
           "; this flopspy carries SASS for sm_75, sm_80 and sm_90 and PTX for newer GPUs, "
           "which needs a driver at least as new as the CUDA toolkit it was built with";
  }
  return "";
}

}  // namespace

bool CeilingsKernelsBuiltIn() {
  return Fatbin() != nullptr;
}

GpuCeilingsRun RunGpuCeilings(const GpuCeilingsOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  GpuCeilingsRun run;
  run.device_index = options.device_index;
  run.quick = options.quick;
  auto finish = [&] {
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
  };

  // The driver stays loaded for the life of the process, as a program's would.
  static cuda::DriverApi cu;
  static std::string load_error;
  static const bool loaded = cu.Load(&load_error);
  if (!loaded) {
    run.error = "no CUDA device: " + load_error;
    return finish();
  }
  g_driver = &cu;
  const DeviceReadResult read = ReadDevices(&DriverSymbol);
  if (!read.initialized) {
    run.error = "no CUDA device: " + read.error;
    return finish();
  }
  if (read.devices.empty()) {
    run.error = "no CUDA device: the driver sees none (check CUDA_VISIBLE_DEVICES)";
    return finish();
  }
  if (options.device_index < 0 || options.device_index >= static_cast<int>(read.devices.size())) {
    run.error = "no CUDA device " + std::to_string(options.device_index) + ": the driver sees " +
                std::to_string(read.devices.size()) + " (0 to " +
                std::to_string(read.devices.size() - 1) + ")";
    return finish();
  }
  run.device = read.devices[static_cast<size_t>(options.device_index)];
  if (!CeilingsKernelsBuiltIn()) {
    run.error =
        "this flopspy was built without nvcc, so it carries no CUDA kernels to measure with; "
        "rebuild it where the CUDA toolkit's nvcc is found";
    return finish();
  }

  Session session;
  if (std::string e = Open(cu, options.device_index, &session); !e.empty()) {
    run.error = "cannot use GPU " + std::to_string(options.device_index) + ": " + e;
    return finish();
  }
  cuda::BenchContext ctx;
  ctx.cu = &cu;
  ctx.device = session.device;
  ctx.stream = session.stream;
  ctx.module = session.module;
  ctx.props = run.device;
  cu.DeviceGetAttribute(&ctx.max_threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                        session.device);
  ctx.roofs = RoofsForDevice(run.device);
  ctx.quick = options.quick;
  ctx.repetitions = options.quick ? 3 : 10;
  ctx.target_seconds = options.quick ? 0.005 : 0.02;
  ctx.progress = options.progress;

  if (options.kernels) {
    for (GpuBenchResult& r : cuda::RunKernelBenchmarks(ctx, &run.sm_clock_mhz)) {
      run.results.push_back(std::move(r));
    }
  }
  if (options.gemms) {
    for (GpuBenchResult& r : cuda::RunGemmBenchmarks(ctx, &run.notes)) {
      run.results.push_back(std::move(r));
    }
  }
  cu.CtxSynchronize();
  return finish();
}

}  // namespace flopspy::gpuroof
