#include "call_sites_page.h"

#include "demo_trace.h"
#include "report/call_sites_json.h"
#include "subprocess.h"

namespace flopspy::testing {

using analyzers::CallSite;
using analyzers::CallSiteKind;
using analyzers::SourceFrame;
using nlohmann::json;

namespace {

SourceFrame Py(std::string file, int line, std::string function, bool user = false) {
  SourceFrame f;
  f.file = std::move(file);
  f.line = line;
  f.function = std::move(function);
  f.user = user;
  return f;
}

CallSite Site(CallSiteKind kind, std::string label, double gpu_ns, std::vector<SourceFrame> stack,
              std::vector<analyzers::CallSiteKernel> kernels) {
  CallSite s;
  s.kind = kind;
  s.label = std::move(label);
  s.gpu_ns = gpu_ns;
  s.share = gpu_ns / 10e6;
  s.launches = 40;
  s.stack = std::move(stack);
  for (const SourceFrame& f : s.stack) {
    if (f.user) s.frame = f;
  }
  s.kernels = std::move(kernels);
  return s;
}

}  // namespace

json CallSitesJson() {
  tools::TraceReport t;
  for (const char* name :
       {"ampere_sgemm_128x64_nn", "vectorized_layer_norm_kernel",
        "void at::native::vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>"}) {
    analyzers::KernelGroup g;
    g.name = name;
    t.run.kernels.push_back(g);
  }
  analyzers::CallSiteReport& r = t.call_sites;
  r.kernel_ns = 10e6;
  r.sampled_ns = 2e6;
  r.estimated_ns = 7e6;
  r.samples = 120;
  r.stacks_seen = 5;
  r.modules_without_symbols = {"/usr/lib/libstripped.so: no symbols"};
  const SourceFrame train = Py("train.py", 40, "main");
  const SourceFrame block = Py("model.py", 88, "Block.forward", true);
  const SourceFrame norm = Py("model.py", 90, "Block.forward", true);
  const SourceFrame linear = Py("/site-packages/torch/nn/modules/linear.py", 125, "Linear.forward");
  const SourceFrame evil = Py("<img src=x onerror=alert(1)>.py", 7, "evil", true);
  r.sites = {Site(CallSiteKind::kFrame, "model.py:88 (Block.forward)", 5e6, {train, block, linear},
                  {{0, 5e6, 40}}),
             Site(CallSiteKind::kBackward, "backward, no call site", 2.5e6, {},
                  {{0, 2e6, 40}, {2, 0.5e6, 40}}),
             Site(CallSiteKind::kFrame, "model.py:90 (Block.forward)", 1.5e6, {train, norm},
                  {{1, 1.5e6, 40}}),
             Site(CallSiteKind::kFrame, kHostileSite, 1e6, {train, evil}, {{2, 1e6, 40}})};
  r.sites[0].flops = 4e12;
  r.sites[0].flops_ns = 5e6;
  r.sites[0].regime_ns = {0, 4e6, 1e6, 0};  // by analyzers::Regime: unknown, compute, memory...
  r.sites[2].regime_ns = {0, 0, 1.2e6, 0.3e6};
  r.sites[2].launch_bound_ns = 0.3e6;
  const auto label = [](const SourceFrame& f) { return analyzers::FrameLabel(f); };
  r.stacks = {{{label(train), label(block), label(linear)}, 5e6, 0},
              {{label(train), label(norm)}, 1.5e6, 2},
              {{label(train), label(evil)}, 1e6, 3},
              {{"backward, no call site"}, 2.5e6, 1}};
  json trace = json::object();
  tools::AddCallSitesJson(t, trace);
  return trace.at("call_sites");
}

json DemoModelWithCallSites(const std::string& report, const std::string& dir) {
  const std::string path = dir + "/demo.fspy";
  WriteFile(path, DemoTrace());
  const auto r = RunChild({report, path, "--json"});
  if (r.exit_code != 0) return json();
  json model = json::parse(r.out);
  model["traces"][0]["call_sites"] = CallSitesJson();
  return model;
}

}  // namespace flopspy::testing
