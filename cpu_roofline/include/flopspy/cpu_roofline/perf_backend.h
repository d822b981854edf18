// Counters through perf_event_open(2): one process-wide group per plan group, inherited by every
// thread created after the open (inherit_thread where the kernel has it, so forked processes are
// not counted), read with time enabled and running so multiplexed counts can be scaled.
// Uncore (memory-controller) groups are system-wide, one per CPU of the PMU's cpumask.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/cpu_roofline/event_catalog.h"

struct perf_event_attr;

namespace flopspy::cpuroof {

// The system calls the backend makes, injectable so tests can return any errno.
// Each returns the result or -errno.
struct PerfSyscalls {
  std::function<int(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags)>
      open;
  std::function<long(int fd, void* buf, size_t size)> read;
  std::function<int(int fd, unsigned long request, void* arg)> ioctl;
  std::function<void(int fd)> close;
};
PerfSyscalls RealPerfSyscalls();

// Outcome of opening one planned event.
struct EventOpenStatus {
  PlannedEvent event;
  int error = 0;        // 0: opened; else the errno
  std::string message;  // DescribePerfError text when error != 0
};

// "ENOENT", "EACCES", ... (the symbolic name, not strerror).
std::string ErrnoName(int err);

// One line: what failed, the errno and what to do about it.
std::string DescribePerfError(int err, const PlannedEvent& event, bool core_pmu_present,
                              std::optional<int> paranoid);

class PerfEventBackend : public CounterBackend {
 public:
  struct Options {
    bool inherit = true;  // count threads created after the open
    std::optional<int> paranoid;
  };

  // Opens what it can (never throws). Check statuses() and Describe() for what opened.
  static std::unique_ptr<PerfEventBackend> Open(const EventPlan& plan, PerfSyscalls sys,
                                                Options options);
  ~PerfEventBackend() override;

  std::string_view name() const override { return "perf"; }
  const std::vector<Channel>& channels() const override { return channels_; }
  bool Read(uint64_t now_ns, bool fast, Snapshot* out) override;
  bool ReopenInChild(std::string* why) override;

  const std::vector<EventOpenStatus>& statuses() const { return statuses_; }
  // Fills time, cycles, work and traffic availability, flags and valid_mask from the open results.
  void Describe(Capabilities* caps) const;
  bool thread_inherit() const { return thread_inherit_; }

 private:
  struct Member {
    int fd = -1;
    uint64_t id = 0;
    size_t channel = 0;
  };
  struct Group {
    bool group_read = true;       // one read() for all members (PERF_FORMAT_GROUP)
    std::vector<Member> members;  // members[0] is the leader
  };

  PerfEventBackend(const EventPlan& plan, PerfSyscalls sys, Options options);
  void OpenAll();
  void CloseAll(bool disable);
  bool ReadGroup(const Group& g, std::vector<ChannelValue>* values) const;

  EventPlan plan_;
  PerfSyscalls sys_;
  Options options_;
  bool thread_inherit_ = true;  // inherit_thread + remove_on_exec accepted by the kernel
  pid_t owner_pid_ = 0;         // the process that opened the fds
  std::vector<Group> groups_;
  std::vector<Channel> channels_;
  std::vector<EventOpenStatus> statuses_;
};

}  // namespace flopspy::cpuroof
