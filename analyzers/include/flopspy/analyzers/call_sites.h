// Call sites: which line of the user's code launched the kernels that take the time
// (docs/call-sites.md). The process records stacks for a sample of launches (StackSampleRecord,
// StackRecord, PyCodeRecord, ModuleRecord); this analysis resolves them to frames, picks each
// stack's user frame, and attributes every kernel's GPU time to a call site: the launch's own
// sample when it has one, otherwise its signature's samples on the same thread, in proportion.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "flopspy/analyzers/ranges.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/trace/reader.h"

namespace flopspy::analyzers {

// --- What the trace holds ----------------------------------------------------------------------

struct NativeModule {
  std::string path;
  std::string build_id;  // hex; "" when the object has none
  uint64_t bias = 0;     // runtime address - link-time address
  uint64_t start = 0, end = 0;
};

struct PyCode {
  std::string filename;
  std::string name;  // co_qualname (co_name before 3.11)
  int32_t first_line = 0;
  uint16_t python_version = 0;  // 0x030B
  trace::PyLinetableFormat format = trace::PyLinetableFormat::kUnknown;
  std::string linetable;  // co_linetable bytes
  bool linetable_cut = false;
};

struct RawStack {
  trace::StackKind kind = trace::StackKind::kPython;
  bool truncated = false;
  std::vector<trace::PyFrame> python;  // innermost first
  std::vector<uint64_t> native;        // innermost first
};

struct StackSample {
  uint64_t correlation = 0;
  uint32_t thread = 0;
  uint64_t python_stack = 0;
  uint64_t native_stack = 0;
  trace::StackSampleReason reason = trace::StackSampleReason::kSampled;
  uint32_t sample_every = 0;
};

struct CallSiteLog {
  std::map<uint64_t, PyCode> codes;              // by code_key; the first record of a key is kept
  std::map<uint64_t, RawStack> stacks;           // by stack id; the first record of an id is kept
  std::vector<NativeModule> modules;             // as listed, duplicates removed
  std::vector<StackSample> samples;              // in file order
  std::map<uint32_t, std::string> thread_names;  // ThreadDef names
  uint64_t damaged = 0;                          // records refused as malformed (counted, skipped)
  uint64_t dropped = 0;  // well-formed records beyond the collector's bounds (counted, not kept)
};

// Collects the call-site records of one trace, in file order.
class CallSiteCollector {
 public:
  void Add(const trace::RecordView& record, const StringLookup& strings);
  CallSiteLog Finish();

 private:
  // Each returns false for a malformed record.
  bool AddCode(const trace::RecordView& record);
  bool AddStack(const trace::RecordView& record);
  bool AddModule(const trace::RecordView& record);
  bool AddSample(const trace::RecordView& record);
  CallSiteLog log_;
  std::set<std::tuple<std::string, uint64_t, uint64_t, uint64_t>> module_seen_;
};

// --- Resolution ----------------------------------------------------------------------------

// The line of a Python code object's instruction at byte offset `instr_offset` (0: unknown),
// from its line table in the format CPython `code.python_version` wrote.
int PythonLineOf(const PyCode& code, uint32_t instr_offset);

// A native address resolved against the module it lies in (tools/report: libdw).
struct NativeSymbol {
  std::string function;  // demangled; "" when the module has no symbol for it
  std::string file;      // source file from debug info; "" without
  int line = 0;
};
// `address` is the return address as recorded (the resolver looks at the call before it).
using NativeResolver = std::function<NativeSymbol(const NativeModule&, uint64_t address)>;

struct SourceFrame {
  bool python = true;
  std::string file;      // Python: co_filename; native: source file, else ""
  std::string function;  // Python: qualified name; native: symbol, else "module+0xOFFSET"
  int line = 0;          // 0: unknown
  std::string module;    // native: the object's path
  bool user = false;     // the user-frame rule picked it as user code
};
// "model.py:88 (Block.forward)", "main.cc:41 (run_layer)", "libfoo.so+0x1a2b".
std::string FrameLabel(const SourceFrame& frame);

struct CallSiteOptions {
  // When set, a frame is the user's when its file (Python) or file or module (native) matches
  // this ECMAScript regex, instead of the default rule (docs/call-sites.md, "The user's frame").
  std::string frames_from;
  NativeResolver resolve_native;  // empty: native frames are named by module and offset
  size_t top_kernels = 5;         // kernels kept under each call site
};

// --- Figures ---------------------------------------------------------------------------------

enum class CallSiteKind : uint8_t {
  kFrame,        // a user frame was found
  kNoUserFrame,  // frames were captured but none passed the rule (the innermost is shown)
  kBackward,     // launched from a thread without Python frames in a Python process: autograd
  kNoStack,      // launches without any stack sample to go by
};
std::string_view CallSiteKindName(CallSiteKind kind);  // "frame", "no user frame", ...

struct CallSiteKernel {
  uint32_t group = 0;  // index into TraceAnalysis::kernels
  double gpu_ns = 0;
  double launches = 0;  // may be fractional where time was shared out by samples
};

struct CallSite {
  CallSiteKind kind = CallSiteKind::kFrame;
  std::string label;  // FrameLabel of `frame`, or the kind's own words ("backward, no call site")
  SourceFrame frame;  // the user frame (kFrame), else the innermost captured frame, if any
  std::vector<SourceFrame> stack;  // one full stack of the site, outermost first
  double gpu_ns = 0;
  double share = 0;  // of all kernel time in the trace
  double launches = 0;
  double flops = 0;                   // counted FLOPs of its kernels with a figure
  double flops_ns = 0;                // GPU time of those kernels: coverage = flops_ns / gpu_ns
  double launch_bound_ns = 0;         // of its kernels that ran shorter than their launch call took
  std::array<double, 4> regime_ns{};  // GPU time by its kernels' Regime (index: Regime value)
  double sampled_ns = 0;  // GPU time of launches with their own sample (the rest is shared out)
  std::vector<CallSiteKernel> kernels;  // by GPU time, at most CallSiteOptions::top_kernels
  double AchievedFlopRate() const { return flops_ns > 0 ? flops / (flops_ns / 1e9) : 0; }
};

// GPU time by full Python (else native) stack, for the icicle chart: frames outermost first.
struct StackTime {
  std::vector<std::string> frames;  // FrameLabel of each frame
  double gpu_ns = 0;
  int32_t site = -1;  // index into CallSiteReport::sites
};

struct CallSiteReport {
  std::vector<CallSite> sites;    // by GPU time, longest first
  std::vector<StackTime> stacks;  // by GPU time; at most kMaxStackTimes
  double kernel_ns = 0;           // all kernel time of the trace (the shares' base)
  double sampled_ns = 0;          // GPU time of launches with their own sample
  double estimated_ns = 0;        // shared out from their signature's samples
  double backward_tied_ns = 0;    // backward kernels tied to a forward line by NVTX seq numbers
  uint64_t samples = 0;
  uint32_t sample_every = 0;  // FLOPSPY_STACK_SAMPLE of the samples (the most common); 0: none
  uint64_t stacks_seen = 0;
  std::vector<std::string> modules_without_symbols;
  uint64_t damaged = 0;
  // Per activity given to AnalyzeCallSites: the site its GPU time went to (the one with the
  // largest share when it was shared out), -1 for copies and activities without a site
  // (--group-by call-site).
  std::vector<int32_t> site_of_activity;
  bool empty() const { return samples == 0; }
};
inline constexpr size_t kMaxStackTimes = 2000;

// With `ranges` (NVTX, from RangeCollector), backward kernels are tied to the forward line of
// their op through emit_nvtx's sequence numbers where the trace has them.
// Throws std::regex_error for a bad options.frames_from (the command line checks it first).
CallSiteReport AnalyzeCallSites(const CallSiteLog& log, const TraceAnalysis& run,
                                const CallSiteOptions& options, const RangeLog* ranges = nullptr);

}  // namespace flopspy::analyzers
