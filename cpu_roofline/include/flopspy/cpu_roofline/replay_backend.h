// Recorded counter readings played back: for tests on machines without a PMU, for demos, and
// for readings recorded on hosts with one. A replay file is JSON Lines:
//
//   {"flopspy_cpu_replay": 1, "cpu": "...", "family": "skx", "source": "how it was made",
//    "channels": [{"name": "...", "quantity": "flops", "precision": "dp", "weight": 8},
//                 {"name": "...", "quantity": "bytes", "direction": "read", "weight": 64,
//                  "system_wide": true}, ...],   optional per channel: "wrap_bits", "scale"
//    "work_flags": ["..."], "traffic_flags": ["..."],
//    "unavailable": {"work": "reason", "traffic": "reason", "cycles": "reason"}}
//   {"t_ns": 0,         "values": [[raw, enabled_ns, running_ns], ...]}
//   {"t_ns": 100000000, "values": [...], "begin": "region name"}
//   {"t_ns": 200000000, "values": [...], "end": "region name", "gpu_copy": [b_ns, e_ns]}
//
// "values" entries may also be plain numbers (enabled = running: not multiplexed), or null (a
// failed read). Cumulative values, as a perf read() returns them. Readings are sorted by time.
// FLOPSPY_CPU_RECORD=FILE makes the sampler write such a file (ReplayHeaderLine, ReplayEntryLine).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"

namespace flopspy::cpuroof {

struct ReplayEntry {
  Snapshot snapshot;
  std::string begin_region;  // non-empty: a region begins at this reading
  std::string end_region;
  std::optional<std::pair<uint64_t, uint64_t>> gpu_copy;  // a host<->device copy seen then
};

struct ReplayData {
  std::string cpu;
  std::string family;
  std::string source;
  std::vector<Channel> channels;
  Capabilities capabilities;         // derived from the header
  std::vector<ReplayEntry> entries;  // in time order
};

std::optional<ReplayData> ParseReplay(std::string_view text, std::string* error);
// The header and reading lines of a replay file (no trailing newline).
std::string ReplayHeaderLine(const std::vector<Channel>& channels, const Capabilities& caps,
                             std::string_view source);
std::string ReplayEntryLine(const Snapshot& snapshot, std::string_view begin_region = {},
                            std::string_view end_region = {},
                            std::optional<std::pair<uint64_t, uint64_t>> gpu_copy = std::nullopt);
// The most LoadReplay reads: a day of readings every 10 ms is about 100 MiB.
inline constexpr uint64_t kMaxReplayBytes = uint64_t{256} << 20;
// Reads a replay file: a regular file of at most kMaxReplayBytes. A FIFO, a device or a folder
// is refused without being opened, so a bad name never blocks or fills memory.
std::optional<ReplayData> LoadReplay(const std::string& path, std::string* error);

class ReplayBackend : public CounterBackend {
 public:
  // `rebase`: shift recorded times so the first reading is at `start_ns` (live demos); off for
  // tests, which drive time with the recorded timestamps.
  ReplayBackend(ReplayData data, bool rebase, uint64_t start_ns);
  std::string_view name() const override { return "replay"; }
  const std::vector<Channel>& channels() const override { return data_.channels; }
  // The latest recorded reading at or before now_ns (the first one before that).
  bool Read(uint64_t now_ns, bool fast, Snapshot* out) override;
  bool ReopenInChild(std::string*) override { return true; }
  const ReplayData& data() const { return data_; }

 private:
  ReplayData data_;
  int64_t offset_ = 0;  // recorded = now + offset
};

}  // namespace flopspy::cpuroof
