// The golden trace of the "NVTX ranges" and "Steps" sections: a training loop on an H100 marked
// with NVTX as PyTorch's profiler marks it, the first step slow (warm-up), an NCCL range that
// ends on another thread, a mark, a named stream, and the model's FLOPs in the recorded config.
#include <string>

#include "golden_traces.h"
#include "trace_builder.h"

namespace flopspy::testing {

namespace {

using trace::ChunkSource;
using trace::RangeEdge;

constexpr uint64_t kBase = 9'000'000'000;
constexpr uint32_t kMain = 7, kComm = 8;
constexpr char kAdam[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous "
    "namespace)::FusedAdamMathFunctor<float, 4>>(...)";

}  // namespace

std::vector<uint8_t> StepsTrace() {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.pid = 7300;
  id.start_monotonic_ns = kBase;
  TraceBuilder b(id);
  b.Metadata(
      R"({"process":{"command":["python","train.py"]},"config":{"model_flops":"2e9"},)"
      R"("devices":[{"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0,"sm_count":132,)"
      R"("clock_khz":1980000,"memory_clock_khz":2619000,"memory_bus_width_bits":5120,)"
      R"("l2_bytes":52428800,"total_memory_bytes":85520809984,"uuid":"GPU-steps-0",)"
      R"("driver_version":"580.0"}]})");
  b.String(1, kAtenMulKernel).String(2, "attention_fwd_kernel").String(3, kAdam);
  const char* names[] = {"ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4",
                         "forward",        "backward",       "optimizer",      "ncclAllReduce",
                         "NCCL",           "checkpoint",     "compute"};
  for (uint32_t i = 0; i < 11; ++i) b.String(10 + i, names[i]);
  trace::FunctionDef mul = KernelFunction(1, 1, 3);
  SetElementwiseLayout(mul, 4, 24);
  b.Add(mul).Add(KernelFunction(2, 2)).Add(KernelFunction(3, 3));
  for (uint32_t i = 1; i <= 3; ++i) b.Add(KernelSignature(i, i, 1024, 1, 256));
  b.Chunk(ChunkSource::kThread, kMain)
      .Add(ResourceName(trace::NamedResource::kCudaStream, 0x5000, 20));

  uint64_t correlation = 0;
  const auto kernel = [&](uint32_t thread, uint32_t signature, uint64_t at, uint64_t gpu_ns) {
    ++correlation;
    b.Chunk(ChunkSource::kThread, thread)
        .Add(KernelLaunch(signature, correlation, kBase + at, 5000, 1u << 22));
    b.Chunk(ChunkSource::kGpuActivity)
        .Add(KernelExecution(signature, correlation, kBase + at + 20'000, gpu_ns, 7));
  };
  const auto nvtx = [&](uint32_t thread, RangeEdge edge, uint64_t at, uint32_t name = 0,
                        uint32_t domain = 0, uint64_t range = 0) {
    b.Chunk(ChunkSource::kThread, thread).Add(RangeEvent(edge, kBase + at, name, domain, range));
  };
  // Steps of 10 ms from t = 1 ms; the first takes 40 ms (autotuning).
  uint64_t t = 1'000'000;
  for (uint32_t step = 0; step < 4; ++step) {
    const uint64_t length = step == 0 ? 40'000'000 : 10'000'000;
    nvtx(kMain, RangeEdge::kPush, t, 10 + step);
    nvtx(kMain, RangeEdge::kPush, t + 100'000, 14);  // forward
    kernel(kMain, 1, t + 200'000, 300'000);
    kernel(kMain, 2, t + 600'000, 2'000'000);
    nvtx(kMain, RangeEdge::kPop, t + 3'000'000);
    nvtx(kMain, RangeEdge::kPush, t + 3'100'000, 15);  // backward
    kernel(kMain, 2, t + 3'200'000, 4'000'000);
    nvtx(kMain, RangeEdge::kStart, t + 7'300'000, 17, 18, step + 1);  // NCCL, ends on kComm
    nvtx(kComm, RangeEdge::kEnd, t + 8'300'000, 0, 18, step + 1);
    nvtx(kMain, RangeEdge::kPop, t + 8'400'000);
    nvtx(kMain, RangeEdge::kPush, t + 8'500'000, 16);  // optimizer
    kernel(kMain, 3, t + 8'600'000, 500'000);
    nvtx(kMain, RangeEdge::kPop, t + length - 200'000);
    nvtx(kMain, RangeEdge::kPop, t + length - 100'000);
    t += length;
  }
  nvtx(kMain, RangeEdge::kMark, t, 19);
  nvtx(kMain, RangeEdge::kPush, t + 1000, 19);  // never popped: the process exited inside
  b.Chunk(ChunkSource::kProcess).Add(ExitEnd(kBase + t + 2'000'000));
  return b.Bytes();
}

}  // namespace flopspy::testing
