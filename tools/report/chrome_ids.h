// Process and thread ids of the Chrome export. Perfetto reads pid and tid as 32-bit numbers (an id
// beyond that becomes 0, merging tracks), so every id stays below 2^31: a CPU process keeps its
// own pid; a GPU of a trace, and a trace whose pid is taken or out of range, gets an id from a
// range no Linux pid reaches (PID_MAX_LIMIT is 2^22), skipping every pid the traces hold.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

namespace flopspy::tools {

inline constexpr int64_t kMaxChromeId = (int64_t{1} << 31) - 1;
inline constexpr int64_t kSyntheticPidBase = int64_t{1} << 30;

class ChromePids {
 public:
  // `real`: every trace's own pid, which no synthetic id may take.
  explicit ChromePids(std::set<int64_t> real) : real_(std::move(real)) {}

  // The pid of a trace whose header says `pid`: its own, unless an earlier trace took it.
  int64_t Process(int64_t pid);
  // The pid of device `device` of trace `index`, the same for every call.
  int64_t Gpu(int index, int32_t device);

 private:
  int64_t Synthetic();

  std::set<int64_t> real_;
  std::set<int64_t> used_;
  std::map<std::pair<int, int32_t>, int64_t> gpus_;
  int64_t next_ = kSyntheticPidBase;
};

// Thread ids within one process: the preferred id (a thread's own, a stream's number) when it is
// in range and free, else the next from the top of the range down.
class ChromeTids {
 public:
  int64_t Get(uint64_t key, int64_t preferred);

 private:
  std::unordered_map<uint64_t, int64_t> by_key_;
  std::set<int64_t> used_;
  int64_t next_ = kMaxChromeId;
};

}  // namespace flopspy::tools
