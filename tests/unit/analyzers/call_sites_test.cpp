// The call-site analysis over traces built in memory: sampled launches go to their own stack's
// user frame, unsampled ones share their signature's samples in proportion, the user-frame rule
// (standard library, torch and flopspy skipped; the user's installed packages kept;
// --frames-from), backward threads, native frames, and launches with nothing to go by.
#include "flopspy/analyzers/call_sites.h"

#include <gtest/gtest.h>

#include <regex>

#include "call_site_records.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/ranges.h"
#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::analyzers {
namespace {

using testing::TraceBuilder;
using trace::ChunkSource;

constexpr uint32_t kMain = 7;

class CallSitesTest : public ::testing::Test {
 protected:
  CallSitesTest() {
    b_.String(1, "mystery_kernel").String(2, "other_kernel");
    b_.String(3, "pt_autograd_0").String(4, "worker").String(5, "MainThread");
    b_.Add(testing::KernelFunction(1, 1)).Add(testing::KernelFunction(2, 2));
    b_.Add(testing::KernelSignature(1, 1, 4, 1, 256)).Add(testing::KernelSignature(2, 2, 1, 1, 32));
  }

  void Raw(uint32_t thread, const std::vector<uint8_t>& bytes) {
    b_.Chunk(ChunkSource::kThread, thread).AddRaw(bytes.data(), bytes.size());
  }
  // Code object `key` of `file`, function `name`, whose every instruction is on `line`.
  void Code(uint64_t key, std::string_view file, std::string_view name, int line) {
    Raw(kMain, testing::PyCode(key, file, name, line - 3, testing::OneLineTable(3)));
  }
  // A launch of `signature` on `thread` running `gpu_ns` on the GPU; with a stack sample when
  // either stack id is set. Returns its correlation.
  uint64_t Kernel(uint32_t thread, uint32_t signature, uint64_t gpu_ns, uint64_t python_stack,
                  uint64_t native_stack = 0, uint64_t launch_cost_ns = 10) {
    const uint64_t c = ++correlation_;
    time_ += 10'000;
    b_.Chunk(ChunkSource::kThread, thread)
        .Add(testing::KernelLaunch(signature, c, time_, launch_cost_ns, 1000));
    if (python_stack != 0 || native_stack != 0) {
      b_.Add(testing::StackSample(c, python_stack, native_stack));
    }
    b_.Chunk(ChunkSource::kGpuActivity)
        .Add(testing::KernelExecution(signature, c, time_ + 100, gpu_ns, 1));
    return c;
  }
  // A launch with a sample record whose stack ids are both 0 (a thread without Python frames).
  void KernelWithEmptySample(uint32_t thread, uint32_t signature, uint64_t gpu_ns) {
    const uint64_t c = ++correlation_;
    time_ += 10'000;
    b_.Chunk(ChunkSource::kThread, thread)
        .Add(testing::KernelLaunch(signature, c, time_, 10, 1000))
        .Add(testing::StackSample(c, 0, 0));
    b_.Chunk(ChunkSource::kGpuActivity)
        .Add(testing::KernelExecution(signature, c, time_ + 100, gpu_ns, 1));
  }

  CallSiteReport Analyze(const CallSiteOptions& options = {}) {
    trace::TraceReader reader(trace::MemorySource(b_.Bytes()));
    TraceAnalyzer analyzer;
    CallSiteCollector collector;
    RangeCollector ranges;
    const StringLookup strings = [&](uint32_t id) { return reader.String(id); };
    reader.ForEachRecord([&](const trace::RecordView& r) {
      analyzer.Add(r, strings);
      collector.Add(r, strings);
      ranges.Add(r, strings);
    });
    run_ = analyzer.Finish({});
    log_ = collector.Finish();
    ranges_ = ranges.Finish();
    return AnalyzeCallSites(log_, run_, options, &ranges_);
  }

  static const CallSite& Find(const CallSiteReport& report, std::string_view label) {
    for (const CallSite& s : report.sites) {
      if (s.label == label) return s;
    }
    std::string labels;
    for (const CallSite& s : report.sites) labels += " [" + s.label + "]";
    ADD_FAILURE() << "no site " << label << "; sites:" << labels;
    static const CallSite none;
    return none;
  }

  TraceBuilder b_;
  uint64_t correlation_ = 0;
  uint64_t time_ = 0;
  // NVTX push and pop of string `name` on `thread`, around the kernels between them.
  void Push(uint32_t thread, uint32_t name) {
    b_.Chunk(ChunkSource::kThread, thread)
        .Add(testing::RangeEvent(trace::RangeEdge::kPush, ++time_, name));
  }
  void Pop(uint32_t thread) {
    b_.Chunk(ChunkSource::kThread, thread)
        .Add(testing::RangeEvent(trace::RangeEdge::kPop, time_ += 200));
  }

  TraceAnalysis run_;
  CallSiteLog log_;
  RangeLog ranges_;
};

constexpr char kTorchLinear[] = "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py";

TEST_F(CallSitesTest, ASampledLaunchGoesToItsInnermostUserFrame) {
  Code(1, kTorchLinear, "Linear.forward", 116);
  Code(2, "/home/me/proj/model.py", "Block.forward", 88);
  Code(3, "train.py", "main", 12);
  Raw(kMain, testing::PythonStack(100, {{1, 4}, {2, 0}, {3, 6}}));
  Kernel(kMain, 1, 500, 100);
  const CallSiteReport report = Analyze();
  ASSERT_EQ(report.sites.size(), 1u);
  const CallSite& site = report.sites[0];
  EXPECT_EQ(site.kind, CallSiteKind::kFrame);
  EXPECT_EQ(site.label, "model.py:88 (Block.forward)");
  EXPECT_EQ(site.frame.file, "/home/me/proj/model.py");
  EXPECT_TRUE(site.frame.user);
  EXPECT_DOUBLE_EQ(site.gpu_ns, 500);
  EXPECT_DOUBLE_EQ(site.sampled_ns, 500);
  EXPECT_DOUBLE_EQ(site.share, 1.0);
  EXPECT_DOUBLE_EQ(site.launches, 1);
  ASSERT_EQ(site.stack.size(), 3u);  // outermost first
  EXPECT_EQ(site.stack[0].function, "main");
  EXPECT_EQ(site.stack[1].line, 88);
  EXPECT_FALSE(site.stack[2].user);
  EXPECT_EQ(site.stack[2].line, 116);
  ASSERT_EQ(site.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(site.kernels[0].gpu_ns, 500);
  EXPECT_EQ(report.samples, 1u);
  EXPECT_EQ(report.sample_every, 32u);
  EXPECT_DOUBLE_EQ(report.sampled_ns, 500);
  EXPECT_DOUBLE_EQ(report.estimated_ns, 0);
  ASSERT_EQ(report.stacks.size(), 1u);
  EXPECT_EQ(report.stacks[0].frames,
            (std::vector<std::string>{"train.py:12 (main)", "model.py:88 (Block.forward)",
                                      "linear.py:116 (Linear.forward)"}));
  EXPECT_EQ(report.stacks[0].site, 0);
  EXPECT_EQ(report.site_of_activity, std::vector<int32_t>{0});
}

TEST_F(CallSitesTest, UnsampledLaunchesShareTheirSignaturesSamplesInProportion) {
  Code(1, "model.py", "a", 10);
  Code(2, "model.py", "b", 20);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  Raw(kMain, testing::PythonStack(200, {{2, 0}}));
  Kernel(kMain, 1, 100, 100);
  Kernel(kMain, 1, 100, 100);
  Kernel(kMain, 1, 100, 200);
  Kernel(kMain, 1, 300, 0);  // no sample: 2/3 to line 10, 1/3 to line 20
  const CallSiteReport report = Analyze();
  const CallSite& a = Find(report, "model.py:10 (a)");
  const CallSite& b = Find(report, "model.py:20 (b)");
  EXPECT_DOUBLE_EQ(a.gpu_ns, 200 + 200);
  EXPECT_DOUBLE_EQ(b.gpu_ns, 100 + 100);
  EXPECT_DOUBLE_EQ(a.launches, 2 + 2.0 / 3);
  EXPECT_DOUBLE_EQ(a.sampled_ns, 200);
  EXPECT_DOUBLE_EQ(report.estimated_ns, 300);
  EXPECT_DOUBLE_EQ(report.sampled_ns, 300);
  EXPECT_DOUBLE_EQ(report.kernel_ns, 600);
  EXPECT_NEAR(a.share, 400.0 / 600, 1e-12);
  ASSERT_EQ(report.sites[0].label, "model.py:10 (a)");  // longest first
  EXPECT_EQ(report.site_of_activity, (std::vector<int32_t>{0, 0, 1, 0}));
}

TEST_F(CallSitesTest, AThreadWithoutSamplesUsesItsSignaturesSamplesOnOtherThreads) {
  Code(1, "model.py", "a", 10);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  Kernel(kMain, 1, 100, 100);
  Kernel(8, 1, 400, 0);
  Kernel(8, 2, 50, 0);  // a signature never sampled anywhere
  const CallSiteReport report = Analyze();
  EXPECT_DOUBLE_EQ(Find(report, "model.py:10 (a)").gpu_ns, 500);
  const CallSite& none = Find(report, "no stack sampled");
  EXPECT_EQ(none.kind, CallSiteKind::kNoStack);
  EXPECT_DOUBLE_EQ(none.gpu_ns, 50);
  EXPECT_DOUBLE_EQ(report.estimated_ns, 400);
}

TEST_F(CallSitesTest, StandardLibraryFrozenTorchAndFlopspyAreSkippedInstalledUserPackagesKept) {
  Code(1, "<frozen importlib._bootstrap>", "_call_with_frames_removed", 241);
  Code(2, "/usr/lib/python3.11/contextlib.py", "inner", 81);
  Code(3, "/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py", "linear", 5);
  Code(4, "/opt/venv/lib/python3.11/site-packages/triton/runtime/jit.py", "run", 9);
  Code(5, "/work/flopspy/python/flopspy/_markers.py", "region", 30);
  Code(6, "/opt/venv/lib/python3.11/site-packages/mylib/layers.py", "Dense.__call__", 42);
  Code(7, "/usr/lib/python3.11/runpy.py", "_run_code", 86);
  Raw(kMain, testing::PythonStack(100, {{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}}));
  Kernel(kMain, 1, 100, 100);
  const CallSiteReport report = Analyze();
  ASSERT_EQ(report.sites.size(), 1u);
  EXPECT_EQ(report.sites[0].label, "layers.py:42 (Dense.__call__)");
  EXPECT_EQ(report.sites[0].kind, CallSiteKind::kFrame);
}

TEST_F(CallSitesTest, FramesFromChoosesTheInnermostMatchingFrameOrNone) {
  Code(1, kTorchLinear, "Linear.forward", 116);
  Code(2, "/home/me/proj/model.py", "Block.forward", 88);
  Code(3, "/home/me/proj/train.py", "main", 12);
  Raw(kMain, testing::PythonStack(100, {{1, 0}, {2, 0}, {3, 0}}));
  Kernel(kMain, 1, 100, 100);
  CallSiteOptions options;
  options.frames_from = "train\\.py$";
  EXPECT_EQ(Analyze(options).sites.at(0).label, "train.py:12 (main)");
  options.frames_from = "torch/nn";  // a framework frame, when asked for
  EXPECT_EQ(Analyze(options).sites.at(0).label, "linear.py:116 (Linear.forward)");
  options.frames_from = "nothing-matches";
  const CallSiteReport none = Analyze(options);
  EXPECT_EQ(none.sites.at(0).kind, CallSiteKind::kNoUserFrame);
  EXPECT_EQ(none.sites.at(0).label, "linear.py:116 (Linear.forward)");  // the innermost
  options.frames_from = "(";
  EXPECT_THROW(Analyze(options), std::regex_error);
}

TEST_F(CallSitesTest, FramesInTheFrameworkOnlyGiveNoUserFrame) {
  Code(1, kTorchLinear, "Linear.forward", 116);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  Kernel(kMain, 1, 100, 100);
  const CallSiteReport report = Analyze();
  EXPECT_EQ(report.sites.at(0).kind, CallSiteKind::kNoUserFrame);
  EXPECT_FALSE(report.sites.at(0).frame.user);
}

TEST_F(CallSitesTest, ThreadsWithoutPythonFramesInAPythonProcessAreLabelledByRole) {
  b_.Chunk(ChunkSource::kProcess)
      .Add(testing::NamedThread(9, 3))
      .Add(testing::NamedThread(10, 4))
      .Add(testing::NamedThread(11, 3));
  Code(1, "model.py", "forward", 10);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  Kernel(kMain, 1, 100, 100);
  KernelWithEmptySample(9, 2, 300);  // autograd's thread
  Kernel(9, 2, 300, 0);              // unsampled: shares the thread's (backward) samples
  KernelWithEmptySample(10, 2, 40);  // another thread of the program's own
  Kernel(11, 1, 70, 0);  // autograd-named thread, no samples: not the forward thread's line
  Kernel(11, 2, 20, 0);  // sampled only on other threads without Python: labelled by its own
  const CallSiteReport report = Analyze();
  const CallSite& backward = Find(report, "backward (thread pt_autograd_0), no call site");
  EXPECT_EQ(backward.kind, CallSiteKind::kBackward);
  EXPECT_DOUBLE_EQ(backward.gpu_ns, 300 + 300 + 70 + 20);  // threads 9 and 11 share the name
  const CallSite& worker = Find(report, "thread worker, no Python frames");
  EXPECT_EQ(worker.kind, CallSiteKind::kBackward);
  EXPECT_DOUBLE_EQ(worker.gpu_ns, 40);
  EXPECT_DOUBLE_EQ(Find(report, "model.py:10 (forward)").gpu_ns, 100);
}

TEST_F(CallSitesTest, AnAutogradNamedThreadWithoutAnySampleIsBackward) {
  b_.Chunk(ChunkSource::kProcess).Add(testing::NamedThread(9, 3));
  Code(1, "model.py", "forward", 10);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  Kernel(kMain, 1, 100, 100);
  Kernel(9, 2, 300, 0);
  const CallSiteReport report = Analyze();
  EXPECT_DOUBLE_EQ(Find(report, "backward (thread pt_autograd_0), no call site").gpu_ns, 300);
}

TEST_F(CallSitesTest, WithoutAnySampleThereAreNoSites) {
  Kernel(kMain, 1, 100, 0);
  Kernel(kMain, 2, 200, 0);
  const CallSiteReport report = Analyze();
  EXPECT_TRUE(report.empty());
  EXPECT_TRUE(report.sites.empty());
  EXPECT_TRUE(report.stacks.empty());
  EXPECT_DOUBLE_EQ(report.kernel_ns, 300);
  EXPECT_EQ(report.site_of_activity, (std::vector<int32_t>{-1, -1}));
}

TEST_F(CallSitesTest, KernelsOfSignaturesNeverSampledAreNoStack) {
  Raw(kMain, testing::Module("/home/me/app", "", 0, 0x400000, 0x500000));
  Raw(kMain, testing::NativeStack(500, {0x401234}));
  Kernel(kMain, 1, 100, 0, 500);
  Kernel(kMain, 2, 200, 0);
  Kernel(kMain, 2, 300, 0);
  const CallSiteReport report = Analyze();
  const CallSite& none = Find(report, "no stack sampled");
  EXPECT_EQ(none.kind, CallSiteKind::kNoStack);
  EXPECT_DOUBLE_EQ(none.gpu_ns, 500);
  EXPECT_DOUBLE_EQ(none.launches, 2);
  EXPECT_EQ(report.sites.at(0).label, "no stack sampled");
}

TEST_F(CallSitesTest, AKernelOfALibraryCallGoesToItsLaunchsSampleThoughItsRecordCarriesTheCalls) {
  // On a real GPU a cuBLAS kernel's GPU record carries the call's correlation (the hook pushes
  // it), not the launch's that its stack sample names: the join of kernel to launch decides.
  Code(1, "model.py", "Net.forward", 59);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  for (int i = 0; i < 2; ++i) {
    const uint64_t launch = ++correlation_;
    const uint64_t call = ++correlation_;
    time_ += 10'000;
    trace::LibraryCallRecord c{};
    c.routine = static_cast<uint16_t>(BlasRoutine::kGemm);
    c.enter_ns = time_ - 100;
    c.exit_ns = time_ + 5000;
    c.correlation = call;
    b_.Chunk(ChunkSource::kThread, kMain)
        .Add(testing::KernelLaunch(1, launch, time_, 10, 1000, /*inside_library=*/true));
    if (i == 0) b_.Add(testing::StackSample(launch, 100, 0));  // only the first is sampled
    b_.Add(c);
    b_.Chunk(ChunkSource::kGpuActivity).Add(testing::KernelExecution(1, call, time_ + 100, 700, 1));
  }
  const CallSiteReport report = Analyze();
  const CallSite& line = Find(report, "model.py:59 (Net.forward)");
  EXPECT_DOUBLE_EQ(line.gpu_ns, 1400);
  EXPECT_DOUBLE_EQ(report.sampled_ns, 700);
  EXPECT_DOUBLE_EQ(report.estimated_ns, 700);
  EXPECT_DOUBLE_EQ(report.kernel_ns, 1400);
}

TEST_F(CallSitesTest, NativeFramesSkipTheDriverAndRuntimeAndAreResolvedOncePerAddress) {
  // The program at bias 0x400000 (PIE), libcudart and libcuda, a library without symbols.
  Raw(kMain, testing::Module("/home/me/solver", "\x12\xab", 0x400000, 0x400000, 0x500000));
  Raw(kMain, testing::Module("/usr/lib/libcudart.so.12", "", 0x7000000, 0x7000000, 0x7100000));
  Raw(kMain, testing::Module("/usr/lib/libcuda.so.1", "", 0x8000000, 0x8000000, 0x8100000));
  Raw(kMain, testing::Module("/home/me/libfoo.so", "", 0x9000000, 0x9000000, 0x9100000));
  Raw(kMain,
      testing::NativeStack(500, {0x8000010, 0x7000020, 0x401000, 0x9001a2b, 0x400500, 0xdead0000}));
  Raw(kMain, testing::NativeStack(501, {0x8000010, 0x7000020, 0x9001a2b, 0xdead0000}));
  Kernel(kMain, 1, 100, 0, 500);
  Kernel(kMain, 1, 100, 0, 500);
  Kernel(kMain, 2, 50, 0, 501);
  int calls = 0;
  CallSiteOptions options;
  options.resolve_native = [&calls](const NativeModule& m, uint64_t address) {
    ++calls;
    NativeSymbol s;
    if (m.path == "/home/me/solver" && address == 0x401000) {
      EXPECT_EQ(m.build_id, "12ab");
      s = {"run_layer(int)", "/home/me/solver.cc", 41};
    }
    if (m.path == "/home/me/solver" && address == 0x400500) s = {"main", "/home/me/main.cc", 9};
    return s;
  };
  const CallSiteReport report = Analyze(options);
  EXPECT_EQ(calls, 5);  // five distinct addresses in modules; 0xdead0000 lies in none
  const CallSite& site = Find(report, "solver.cc:41 (run_layer(int))");
  EXPECT_EQ(site.kind, CallSiteKind::kFrame);
  EXPECT_FALSE(site.frame.python);
  EXPECT_EQ(site.frame.module, "/home/me/solver");
  EXPECT_DOUBLE_EQ(site.gpu_ns, 200);
  ASSERT_EQ(site.stack.size(), 6u);
  EXPECT_EQ(site.stack[0].function, "0xdead0000");
  EXPECT_EQ(site.stack[1].line, 9);
  EXPECT_EQ(site.stack[3].function, "run_layer(int)");
  // A library without symbols is still the user's code, named by its offset.
  const CallSite& foo = Find(report, "libfoo.so+0x1a2b");
  EXPECT_DOUBLE_EQ(foo.gpu_ns, 50);
  EXPECT_EQ(foo.frame.module, "/home/me/libfoo.so");
}

TEST_F(CallSitesTest, WithoutAResolverNativeFramesAreModuleAndOffset) {
  Raw(kMain, testing::Module("/usr/lib/libcuda.so.1", "", 0x8000000, 0x8000000, 0x8100000));
  Raw(kMain, testing::Module("/home/me/app", "", 0x10000, 0x400000, 0x500000));
  Raw(kMain, testing::NativeStack(500, {0x8000010, 0x401234}));
  Kernel(kMain, 1, 100, 0, 500);
  const CallSiteReport report = Analyze();
  ASSERT_EQ(report.sites.size(), 1u);
  EXPECT_EQ(report.sites[0].label, "app+0x3f1234");  // address - bias
  ASSERT_EQ(report.stacks.size(), 1u);
  EXPECT_EQ(report.stacks[0].frames,
            (std::vector<std::string>{"app+0x3f1234", "libcuda.so.1+0x10"}));
}

TEST_F(CallSitesTest, ANativeProcessWithOnlyDriverFramesHasNoUserFrame) {
  Raw(kMain, testing::Module("/usr/lib/libcuda.so.1", "", 0x8000000, 0x8000000, 0x8100000));
  Raw(kMain, testing::NativeStack(500, {0x8000010}));
  Kernel(kMain, 1, 100, 0, 500);
  const CallSiteReport report = Analyze();
  EXPECT_EQ(report.sites.at(0).kind, CallSiteKind::kNoUserFrame);
  EXPECT_EQ(report.sites.at(0).label, "libcuda.so.1+0x10");
}

TEST_F(CallSitesTest, FiguresOfASiteFlopsLaunchBoundAndTopKernels) {
  Code(1, "model.py", "f", 10);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  Kernel(kMain, 1, 100, 100, 0, /*launch_cost_ns=*/5000);  // shorter than its launch call
  Kernel(kMain, 2, 900, 100, 0, 10);
  Kernel(kMain, 2, 900, 0, 0, 10);
  CallSiteOptions options;
  options.top_kernels = 1;
  const CallSiteReport report = Analyze(options);
  const CallSite& site = Find(report, "model.py:10 (f)");
  EXPECT_DOUBLE_EQ(site.launch_bound_ns, 100);
  EXPECT_DOUBLE_EQ(site.regime_ns[0], 1900);  // no roofs: every launch's regime is unknown
  ASSERT_EQ(site.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(site.kernels[0].gpu_ns, 1800);
  EXPECT_DOUBLE_EQ(site.kernels[0].launches, 2);
  EXPECT_EQ(run_.kernels.at(site.kernels[0].group).name, "other_kernel");
  EXPECT_DOUBLE_EQ(site.flops, 0);  // the kernels are not modelled
  EXPECT_DOUBLE_EQ(site.AchievedFlopRate(), 0);
}

TEST_F(CallSitesTest, TwoStacksWithTheSameUserFrameAreOneSiteAndKeepTheHeavierStack) {
  Code(1, "model.py", "forward", 10);
  Code(2, kTorchLinear, "Linear.forward", 116);
  Code(3, "/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py", "relu", 5);
  Raw(kMain, testing::PythonStack(100, {{2, 0}, {1, 0}}));
  Raw(kMain, testing::PythonStack(200, {{3, 0}, {1, 0}}));
  Kernel(kMain, 1, 100, 100);
  Kernel(kMain, 2, 700, 200);
  const CallSiteReport report = Analyze();
  ASSERT_EQ(report.sites.size(), 1u);
  EXPECT_DOUBLE_EQ(report.sites[0].gpu_ns, 800);
  ASSERT_EQ(report.sites[0].stack.size(), 2u);
  EXPECT_EQ(report.sites[0].stack[1].function, "relu");
  ASSERT_EQ(report.stacks.size(), 2u);  // the icicle keeps both
  EXPECT_DOUBLE_EQ(report.stacks[0].gpu_ns, 700);
}

TEST_F(CallSitesTest, BackwardKernelsAreTiedToTheirForwardLineThroughNvtxSeqNumbers) {
  b_.String(20, "aten::addmm, seq = 12, sizes = [[4, 4], [4, 4]]")
      .String(21, "aten::relu, seq = 13");
  b_.String(22, "AddmmBackward0, stashed seq = 12").String(23, "aten::mm, seq = 99");
  b_.String(24, "ReluBackward0, stashed seq=13").String(25, "XBackward0, stashed seq = 77");
  b_.Chunk(ChunkSource::kProcess).Add(testing::NamedThread(9, 3));
  Code(1, "model.py", "a", 88);
  Code(2, "model.py", "b", 90);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  Raw(kMain, testing::PythonStack(200, {{2, 0}}));
  Push(kMain, 20);
  Kernel(kMain, 1, 100, 100);
  Pop(kMain);
  Push(kMain, 21);
  Kernel(kMain, 2, 100, 200);
  Pop(kMain);
  Push(9, 22);
  Push(9, 23);  // the backward op's own aten op: its seq is the autograd thread's, not the tie
  KernelWithEmptySample(9, 1, 300);
  Pop(9);
  Pop(9);
  Push(9, 24);
  Kernel(9, 2, 400, 0);  // no sample of its own: still inside its backward op's range
  Pop(9);
  Push(9, 25);
  Kernel(9, 2, 50, 0);  // a seq with no forward range
  Pop(9);
  Kernel(9, 2, 60, 0);  // outside any range
  const CallSiteReport report = Analyze();
  const CallSite& addmm = Find(report, "backward of model.py:88 (a)");
  EXPECT_EQ(addmm.kind, CallSiteKind::kBackward);
  EXPECT_EQ(addmm.frame.file, "model.py");
  EXPECT_DOUBLE_EQ(addmm.gpu_ns, 300);
  EXPECT_DOUBLE_EQ(Find(report, "backward of model.py:90 (b)").gpu_ns, 400);
  EXPECT_DOUBLE_EQ(Find(report, "backward (thread pt_autograd_0), no call site").gpu_ns, 110);
  EXPECT_DOUBLE_EQ(report.backward_tied_ns, 700);
  EXPECT_DOUBLE_EQ(Find(report, "model.py:88 (a)").gpu_ns, 100);
}

TEST_F(CallSitesTest, WithoutRangesBackwardKernelsStayUntied) {
  b_.Chunk(ChunkSource::kProcess).Add(testing::NamedThread(9, 3));
  Code(1, "model.py", "a", 88);
  Raw(kMain, testing::PythonStack(100, {{1, 0}}));
  Kernel(kMain, 1, 100, 100);
  KernelWithEmptySample(9, 1, 300);
  const CallSiteReport report = Analyze();
  EXPECT_DOUBLE_EQ(report.backward_tied_ns, 0);
  EXPECT_DOUBLE_EQ(Find(report, "backward (thread pt_autograd_0), no call site").gpu_ns, 300);
}

}  // namespace
}  // namespace flopspy::analyzers
