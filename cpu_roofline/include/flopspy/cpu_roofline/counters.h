// What every counter backend produces: channels (one per opened counter, with its meaning for the
// roofline method) and snapshots of their cumulative values. Backends: perf_event_open
// (perf_backend.h), Intel PCM tools (pcm_source.h), recorded readings (replay_backend.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace flopspy::cpuroof {

// What a counter measures, for the method (docs/cpu-roofline.md, "What is measured").
enum class Quantity : uint8_t {
  kFlops = 0,         // W: count x weight = floating-point operations
  kBytes = 1,         // Q: count x weight = bytes moved to or from DRAM
  kCycles = 2,        // unhalted core cycles, summed over threads
  kRefCycles = 3,     // unhalted reference cycles
  kInstructions = 4,  // retired instructions
  kTaskClock = 5,     // CPU time in ns (software event), summed over threads
};
std::string_view QuantityName(Quantity q);

enum class Precision : uint8_t { kAny = 0, kDp = 1, kSp = 2, kHp = 3 };
std::string_view PrecisionName(Precision p);

enum class Direction : uint8_t { kAny = 0, kRead = 1, kWrite = 2 };
std::string_view DirectionName(Direction d);

// One opened counter.
struct Channel {
  std::string
      name;  // e.g. "fp_arith_inst_retired.256b_packed_double", "uncore_imc_0/cas_count_read/@cpu0"
  Quantity quantity = Quantity::kFlops;
  double weight = 1;  // flops or bytes per count (1 for cycles, instructions, ns)
  Precision precision = Precision::kAny;  // kFlops only
  Direction direction = Direction::kAny;  // kBytes only
  bool system_wide = false;               // counts every requester on the socket (uncore, PCM)
  uint8_t wrap_bits = 64;  // the source's counter width; deltas are taken modulo 2^wrap_bits
  // False: opened, but left out of W or Q because other counters of the same sum failed to open
  // (a partial sum would under-count).
  bool counted = true;
  // False: a count that stops while the thread runs elsewhere (hybrid P-core events on an
  // E-core) is not extrapolated by enabled/running; it is reported as counted.
  bool scale = true;
};

// Cumulative value of one channel since the backend opened it.
struct ChannelValue {
  uint64_t raw = 0;
  uint64_t enabled = 0;  // ns the counter was enabled (perf's time_enabled)
  uint64_t running = 0;  // ns it was actually on a hardware counter (less when multiplexed)
  bool ok = true;        // false: this read failed (e.g. PCM daemon unreachable)
};

struct Snapshot {
  uint64_t t_ns = 0;                 // CLOCK_MONOTONIC (replay: recorded time, possibly rebased)
  std::vector<ChannelValue> values;  // parallel to CounterBackend::channels()
};

// Availability of one quantity of the roofline (time, cycles, W, Q).
struct QuantityStatus {
  bool available = false;
  std::string source;  // "perf fp_ret_sse_avx_ops", "pcm-sensor-server", "CLOCK_MONOTONIC", ...
  std::string reason;  // why not available (or a caveat when available); one line
};

// What the CPU roofline collector can measure here. Also goes into the trace metadata.
struct Capabilities {
  std::string backend;  // "off", "perf", "perf+pcm-http", "perf+pcm-csv", "replay"
  std::string cpu;      // human description of the CPU and family
  std::string family;   // catalog key, e.g. "zen4", "spr"
  std::string cpu_key;  // CpuModelKey: names the ceilings file (ceilings-cpu-<key>.json)
  QuantityStatus time;
  QuantityStatus cycles;
  QuantityStatus work;     // W
  QuantityStatus traffic;  // Q
  // CpuSampleFlags that apply to every point whose W (resp. Q) is valid.
  uint32_t work_flags = 0;
  uint32_t traffic_flags = 0;
  // trace::CpuValue bits that may be valid at all (the rest are missing in every point).
  uint32_t valid_mask = 0;
  int perf_event_paranoid = -100;  // -100: unknown
  std::vector<std::string> notes;  // further one-line caveats (hybrid E-cores, multiplexing, ...)
  // Set when the source as a whole could not be opened (a replay file that cannot be read):
  // what was wrong, in one line; Lines() then says only that.
  std::string failure;

  // One line per unavailable quantity (and per note), each starting with "flopspy: "; one line
  // in all when `failure` is set.
  std::vector<std::string> Lines() const;
  std::string ToJson() const;
};

// A source of counter readings. Read() may be called concurrently from the sampler thread and
// application threads (region markers); implementations keep per-call state on the stack.
class CounterBackend {
 public:
  virtual ~CounterBackend() = default;
  virtual std::string_view name() const = 0;
  virtual const std::vector<Channel>& channels() const = 0;
  // Cumulative values at `now_ns`. `fast`: the caller is an application thread, so sources that
  // may block (HTTP, files) return their latest cached values instead. False: nothing read.
  virtual bool Read(uint64_t now_ns, bool fast, Snapshot* out) = 0;
  // In a child after fork(): drop inherited handles without disturbing the parent's counters
  // and count the child from now on. False when the child cannot count (channels then empty).
  virtual bool ReopenInChild(std::string* why) {
    *why = "not supported by this backend";
    return false;
  }
  // Non-empty once the backend has stopped for good because the program closed or replaced its
  // descriptors (close_range, dup2): why, in one line. Read() then fails without touching any.
  virtual std::string LostReason() const { return {}; }
};

}  // namespace flopspy::cpuroof
