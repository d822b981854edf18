// NCCL communication in a trace and across the traces of a job (docs/nccl.md): per collective
// the bytes, the GPU time of its kernels, the algorithm and bus bandwidth nccl-tests would give,
// how much of the communication time compute kernels on other streams hid, and across ranks the
// start skew of each collective, so that waiting for the last rank is told apart from transfer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "flopspy/trace/reader.h"

namespace flopspy::analyzers {

// One NCCL call of a trace, with the GPU time of the kernels it launched.
struct CommCall {
  BlasRoutine routine = BlasRoutine::kUnknown;
  uint32_t thread = 0;
  int32_t device = -1;
  uint64_t enter_ns = 0, exit_ns = 0;  // the call on the CPU
  uint64_t correlation = 0;
  int64_t count = 0;  // as given (group ends: the group's calls)
  uint8_t type = 0xFF;
  int64_t nranks = 0;  // 0: unknown
  int64_t rank = -1;
  uint64_t comm_id = 0;  // 0: unknown
  int64_t seq = 0;       // the call's number on its communicator; 0 for a group's end
  double bytes = 0;      // nccl-tests' size S (group ends: the sum of the group's calls')
  bool in_group = false;
  bool failed = false;
  // Its kernels on the GPU (none for a call inside a group: the group's end launched them).
  uint32_t kernels = 0;
  uint64_t gpu_start_ns = 0, gpu_end_ns = 0;
  double gpu_ns = 0;
};

struct CommLog {
  std::vector<CommCall> calls;  // in the order the records came
};

// Gathers a trace's NCCL calls and their kernels' GPU records, which carry the call's
// correlation id (or, when launched inside it, a launch that the call's record then claims).
// A group of one call (PyTorch wraps single collectives in ncclGroupStart/End) gives its end's
// kernels to that call, so that the collective has its own time and bandwidth.
class CommCollector {
 public:
  void Add(const trace::RecordView& record, const trace::StringLookup& strings);
  CommLog Finish();

 private:
  struct Run {
    uint64_t start, end;
  };
  struct InsideLaunch {
    uint64_t correlation, enter_ns;
  };
  std::vector<CommCall> calls_;
  std::unordered_map<uint64_t, size_t> call_of_;  // correlation (the call's or a launch's)
  std::unordered_set<uint32_t> nccl_signatures_;  // kernels named nccl*
  std::unordered_multimap<uint64_t, Run> runs_;   // nccl kernels' GPU runs by correlation
  std::unordered_map<uint32_t, std::vector<InsideLaunch>> pending_;  // by thread
  // The calls of each thread's open group, and each group end's calls.
  std::unordered_map<uint32_t, std::vector<size_t>> open_group_;
  std::vector<std::pair<size_t, std::vector<size_t>>> groups_;
};

// One row of a trace's communication table: the calls of one collective, data type, size and
// rank count.
struct CommRow {
  BlasRoutine routine = BlasRoutine::kUnknown;
  uint8_t type = 0xFF;
  double bytes = 0;  // S of one call
  int64_t nranks = 0;
  uint64_t calls = 0;
  uint64_t in_group = 0;        // calls made inside a group (their time is the group's)
  uint64_t timed_calls = 0;     // calls with kernels of their own
  double gpu_ns = 0;            // their kernels' time
  double cpu_ns = 0;            // time in the calls on the CPU
  std::optional<double> algbw;  // bytes per second: S x timed calls / GPU time
  std::optional<double> busbw;  // algbw x nccl-tests' factor
};

// A finding on a trace's communication, with the sentence the report prints.
struct CommAdvice {
  enum class Kind : uint8_t { kExposed, kSmallMessages };
  Kind kind;
  double ns = 0;  // the time it is about
  std::string sentence;
};

struct CommReport {
  std::vector<CommRow> rows;  // most GPU time first
  std::vector<CommAdvice> advice;
  uint64_t calls = 0;
  uint64_t failed = 0;
  double bytes = 0;          // S summed over calls (group ends not counted again)
  double gpu_ns = 0;         // the collectives' kernels (also those not joined to a call)
  double kernel_ns = 0;      // every kernel of the trace
  double overlapped_ns = 0;  // collective time during which a compute kernel ran
  bool empty() const { return calls == 0 && gpu_ns == 0; }
  // The share of the communication time that no compute kernel hid.
  double exposed_share() const { return gpu_ns > 0 ? 1 - overlapped_ns / gpu_ns : 0; }
};

// The trace's table; `run` gives every kernel's interval for the overlap (collectives are the
// kernels of category "collective"). Advice: exposed communication over a tenth of the kernel
// time; most collective time in calls under 1 MiB.
CommReport AnalyzeCommunication(const CommLog& log, const TraceAnalysis& run);

// --- Across ranks --------------------------------------------------------------------------

struct RankComm {
  std::string label;  // the trace
  std::string host;
  int64_t realtime_offset_ns = 0;  // added to the trace's times: CLOCK_REALTIME
  const CommLog* log = nullptr;
};

struct RankSkew {
  size_t trace = 0;
  std::string label;  // the trace's
  int64_t rank = -1;
  uint64_t matched = 0;  // collectives also seen on another trace
  double wait_ns = 0;    // how long after this rank's start the last rank started, summed
  double comm_ns = 0;    // GPU time of those collectives on this rank
  uint64_t last = 0;     // times this rank started last
};

// Calls whose mean message is under this are latency-bound rather than bandwidth-bound.
inline constexpr double kSmallMessageBytes = 1024.0 * 1024.0;

struct CommSkewReport {
  uint64_t matched = 0;  // collectives (communicator, number) seen on two traces or more
  double mean_skew_ns = 0;
  double max_skew_ns = 0;
  std::vector<RankSkew> ranks;      // by trace
  std::optional<size_t> straggler;  // index into ranks: last in most collectives, clearly
  bool several_hosts = false;       // skew then includes the hosts' clock offsets
  bool empty() const { return matched == 0; }
};

// Sets the same collective of every trace side by side (communicator id and call number) on
// the wall clock: its start on each rank (its first kernel, else the call), the skew (last start
// minus first) and each rank's wait for the last one.
CommSkewReport AnalyzeCommSkew(std::span<const RankComm> ranks);

}  // namespace flopspy::analyzers
