// A small analysed trace with two kernels (ATen's mul, 4 x 500 us; "add_kernel", 2 x 100 us and
// 1 x 300 us) and a hand-built CallSiteReport over it: the call-site renderers' tests build on
// this until the analysis lands (docs/call-sites.md).
#pragma once

#include <cstdint>
#include <string>

#include "flopspy/analyzers/call_sites.h"
#include "report/trace_report.h"
#include "trace_builder.h"

namespace flopspy::tools::call_sites_test {

inline constexpr char kAddKernel[] = "void add_kernel(float*, float const*, int)";
inline constexpr char kForward[] = "model.py:88 (Block.forward)";
inline constexpr char kLoss[] = "train.py:41 (compute_loss)";

inline void WriteTwoKernelTrace(testing::TraceBuilder& b) {
  b.String(1, testing::kAtenMulKernel).String(2, kAddKernel);
  trace::FunctionDef mul = testing::KernelFunction(1, 1, 3);
  testing::SetElementwiseLayout(mul, 4, 24);
  b.Add(mul).Add(testing::KernelFunction(2, 2)).Add(testing::KernelSignature(1, 1, 4, 1, 256));
  b.Add(testing::KernelSignature(2, 2, 1, 1, 32));
  // Activities in launch order: mul x4 (correlations 1-4), then add x3 (5-7).
  uint64_t t = 1'001'000'000;
  for (uint64_t c = 1; c <= 7; ++c) {
    const uint32_t sig = c <= 4 ? 1 : 2;
    const uint64_t ns = c <= 4 ? 500'000 : (c == 7 ? 300'000 : 100'000);
    b.Chunk(trace::ChunkSource::kThread, 7).Add(testing::KernelLaunch(sig, c, t, 3000, 1000));
    b.Chunk(trace::ChunkSource::kGpuActivity)
        .Add(testing::KernelExecution(sig, c, t + 5000, ns, 1));
    t += 1'000'000;
  }
}

inline uint32_t GroupOf(const TraceReport& t, uint32_t signature) {
  for (size_t i = 0; i < t.run.kernels.size(); ++i) {
    if (t.run.kernels[i].signature == signature) return static_cast<uint32_t>(i);
  }
  return UINT32_MAX;
}

inline analyzers::SourceFrame Frame(const char* file, const char* function, int line, bool user) {
  analyzers::SourceFrame f;
  f.file = file;
  f.function = function;
  f.line = line;
  f.user = user;
  return f;
}

// Two sites: model.py:88 launched the four muls and two adds (2.2 ms), train.py:41 the last add
// (300 us); each launch has its own sample but one add, shared out.
inline void AddCallSites(TraceReport& t) {
  analyzers::CallSiteReport& r = t.call_sites;
  const uint32_t mul = GroupOf(t, 1), add = GroupOf(t, 2);
  r.kernel_ns = 2'500'000;
  r.sampled_ns = 2'400'000;
  r.estimated_ns = 100'000;
  r.samples = 6;
  r.stacks_seen = 2;
  r.modules_without_symbols = {"/usr/lib/libstripped.so: no symbols"};
  analyzers::CallSite forward;
  forward.kind = analyzers::CallSiteKind::kFrame;
  forward.label = kForward;
  forward.frame = Frame("model.py", "Block.forward", 88, true);
  forward.stack = {Frame("train.py", "<module>", 5, true), forward.frame};
  forward.gpu_ns = 2'200'000;
  forward.share = 0.88;
  forward.launches = 6;
  forward.flops = 4000;
  forward.flops_ns = 2'000'000;
  forward.launch_bound_ns = 200'000;
  forward.regime_ns[static_cast<size_t>(analyzers::Regime::kUnknown)] = 200'000;
  forward.regime_ns[static_cast<size_t>(analyzers::Regime::kMemoryBound)] = 2'000'000;
  forward.sampled_ns = 2'100'000;
  forward.kernels = {{mul, 2'000'000, 4}, {add, 200'000, 2}};
  analyzers::CallSite loss;
  loss.kind = analyzers::CallSiteKind::kFrame;
  loss.label = kLoss;
  loss.frame = Frame("train.py", "compute_loss", 41, true);
  loss.stack = {Frame("train.py", "<module>", 9, true), loss.frame};
  loss.gpu_ns = 300'000;
  loss.share = 0.12;
  loss.launches = 1;
  loss.regime_ns[static_cast<size_t>(analyzers::Regime::kUnknown)] = 300'000;
  loss.sampled_ns = 300'000;
  loss.kernels = {{add, 300'000, 1}};
  r.sites = {forward, loss};
  r.stacks = {{{"train.py:5 (<module>)", kForward}, 2'200'000, 0},
              {{"train.py:9 (<module>)", kLoss}, 300'000, 1}};
  r.site_of_activity.assign(t.run.activities.size(), -1);
  for (size_t i = 0; i < t.run.activities.size(); ++i) {
    const uint64_t c = t.run.activities[i].correlation;
    r.site_of_activity[i] = c == 0 ? -1 : (c == 7 ? 1 : 0);
  }
}

// The trace analysed, with its call sites; `with_sites` false leaves them empty.
inline TraceReport AnalyzedWithSites(bool with_sites = true, const std::string& path = "") {
  testing::TraceBuilder b;
  WriteTwoKernelTrace(b);
  if (!path.empty()) b.WriteTo(path);
  TraceReport t = AnalyzeTrace(trace::TraceReader(trace::MemorySource(b.Bytes())),
                               path.empty() ? "sites.fspy" : path);
  if (with_sites) AddCallSites(t);
  return t;
}

}  // namespace flopspy::tools::call_sites_test
