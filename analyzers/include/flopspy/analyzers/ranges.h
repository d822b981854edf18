// NVTX ranges and flopspy regions, as one kind of range with its source: how often each ran, its
// CPU time, and the GPU time and FLOPs of the kernels launched inside it (docs/flopspy-report.md,
// "NVTX ranges").
//
// Push/pop ranges nest per thread and domain; start/end ranges pair by range id, across threads;
// flopspy regions nest per thread. A kernel belongs to a push/pop range or region when its
// launching thread launched it inside, and to a start/end range when any thread launched it
// inside the interval. A range never closed is counted as open, not timed.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "flopspy/analyzers/trace_analysis.h"
#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/trace/reader.h"

namespace flopspy::analyzers {

enum class RangeSource : uint8_t { kNvtx, kRegion };
// The name a range's figures are kept under: a trailing number after '#', '_' or a space becomes
// N, so that "ProfilerStep#12" and "training_step_3" gather in one row each.
std::string RangeGroupName(std::string_view name);
std::string_view RangeSourceName(RangeSource source);  // "nvtx", "flopspy region"

// One range as it ran.
struct RangeInstance {
  RangeSource source = RangeSource::kNvtx;
  bool nested = true;  // push/pop or region (false: start/end)
  std::string domain;  // "" for NVTX's default domain and for regions
  std::string name;
  uint32_t thread = 0;  // the thread that opened it
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;
  int64_t parent = -1;  // index of the enclosing range of the same thread and domain
  std::string path;     // "ProfilerStep#N > forward > attention" (RangeGroupName of each)

  // Message size from its NVTX payload (NCCL's collectives; RangePayloadRecord), if it had one.
  bool has_bytes = false;
  uint64_t bytes = 0;
};

// What RangeCollector gathered from a trace's records.
struct RangeLog {
  std::vector<RangeInstance> ranges;  // closed ones, in the order they opened per thread
  // (source, domain, name): never closed.
  std::map<std::tuple<RangeSource, std::string, std::string>, uint64_t> open;
  std::map<std::pair<std::string, std::string>, uint64_t> marks;  // (domain, name): nvtxMark
  uint64_t unmatched_ends = 0;  // a pop or end with nothing open, or an unknown range id
  uint64_t dropped = 0;         // ranges beyond kMaxRanges, counted, not kept
  // nvtxNameCuStream, nvtxNameCudaDevice, nvtxNameOsThread...: (resource, handle) -> name.
  std::map<std::pair<trace::NamedResource, uint64_t>, std::string> resource_names;
};
inline constexpr size_t kMaxRanges = size_t{1} << 22;

class RangeCollector {
 public:
  void Add(const trace::RecordView& record, const StringLookup& strings);
  RangeLog Finish();

 private:
  // Returns the new range's index, or kDropped beyond kMaxRanges.
  size_t OpenRange(RangeInstance range, int64_t parent);
  void CloseRange(size_t index, uint64_t end_ns);
  static constexpr size_t kDropped = SIZE_MAX;
  RangeLog log_;
  std::vector<bool> closed_;
  // (thread, domain) -> open push ranges; thread -> open regions; range id -> start.
  std::map<std::pair<uint32_t, std::string>, std::vector<size_t>> pushed_;
  std::map<uint32_t, std::vector<size_t>> regions_;
  std::map<uint64_t, size_t> started_;
  std::map<uint32_t, size_t> last_opened_;  // thread -> its latest push or start (payloads)
};

// Figures of one (source, domain, RangeGroupName).
struct RangeStats {
  RangeSource source = RangeSource::kNvtx;
  std::string domain;
  std::string name;
  uint64_t count = 0;      // closed ranges
  uint64_t open = 0;       // never closed
  uint64_t marks = 0;      // nvtxMark with this name
  double cpu_ns = 0;       // inclusive
  double cpu_self_ns = 0;  // less the child ranges
  uint64_t kernels = 0;    // launched inside (inclusive)
  double gpu_ns = 0;       // of the kernels launched inside, inclusive
  double gpu_self_ns = 0;  // of those launched outside any child range
  double flops = 0;        // counted FLOPs of the kernels launched inside
  double flops_ns = 0;     // GPU time of those with a FLOP figure: coverage = flops_ns / gpu_ns

  // Bytes moved: the message sizes of its ranges' NVTX payloads, and how many ranges had one
  // (0: `bytes` is unknown, not zero).
  uint64_t bytes = 0;
  uint64_t bytes_ranges = 0;
  double FlopCoverage() const { return gpu_ns > 0 ? flops_ns / gpu_ns : 0; }
  // Counted FLOPs over the GPU time that has them; 0 without.
  double AchievedFlopRate() const { return flops_ns > 0 ? flops / (flops_ns / 1e9) : 0; }
};

struct RangePath {
  std::string path;
  uint64_t count = 0;
  double cpu_ns = 0;
  double gpu_ns = 0;
};

struct RangeReport {
  std::vector<RangeStats> ranges;  // by CPU time, longest first
  std::vector<RangePath> paths;    // nesting paths of two or more levels, by CPU time (kTopPaths)
  uint64_t unmatched_ends = 0;
  uint64_t dropped = 0;
  std::map<std::pair<trace::NamedResource, uint64_t>, std::string> resource_names;
  // Per activity given to AnalyzeRanges: the index into `ranges` of the innermost range its
  // kernel was launched in (the latest-opened one holding the launch), -1 for none and copies
  // (--group-by range).
  std::vector<int32_t> innermost;
  bool empty() const { return ranges.empty() && resource_names.empty(); }
};
inline constexpr size_t kTopPaths = 10;

// The ranges' figures, with the kernels of `activities` (TraceAnalysis::activities) attributed.
RangeReport AnalyzeRanges(const RangeLog& log, std::span<const TimedActivity> activities);

}  // namespace flopspy::analyzers
