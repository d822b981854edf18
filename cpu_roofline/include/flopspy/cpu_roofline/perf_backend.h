// Counters through perf_event_open(2): one process-wide group per plan group, inherited by every
// thread created after the open (inherit_thread where the kernel has it, so forked processes are
// not counted), read with time enabled and running so multiplexed counts can be scaled.
// Uncore (memory-controller) groups are system-wide, one per CPU of the PMU's cpumask.
//
// The descriptors live inside a program that may close or replace any of them (close_range,
// dup2 over every number above 2, daemons). Each is held by identity (platform::OwnedFd, plus
// the event's kernel id) and checked before every read, ioctl and close: once one is no longer
// ours the backend stops for good (LostReason) and never touches a number again, so it never
// reads, disables or closes the program's files.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/cpu_roofline/event_catalog.h"
#include "flopspy/platform/owned_fd.h"

struct perf_event_attr;

namespace flopspy::cpuroof {

// The system calls the backend makes, injectable so tests can return any errno.
struct PerfSyscalls {
  // Opens one counter and holds it by identity at a high number (platform::OwnedFd::Adopt).
  // Empty, with the errno in *error, when it fails.
  std::function<platform::OwnedFd(perf_event_attr* attr, pid_t pid, int cpu, int group_fd,
                                  unsigned long flags, int* error)>
      open;
  // Each returns the result or -errno.
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
  std::string LostReason() const override;

  const std::vector<EventOpenStatus>& statuses() const { return statuses_; }
  // Fills time, cycles, work and traffic availability, flags and valid_mask from the open results.
  void Describe(Capabilities* caps) const;
  bool thread_inherit() const { return thread_inherit_; }

 private:
  struct Member {
    platform::OwnedFd fd;
    uint64_t id = 0;  // the kernel's event id (0: the kernel gave none)
    size_t channel = 0;
  };
  struct Group {
    bool group_read = true;       // one read() for all members (PERF_FORMAT_GROUP)
    std::vector<Member> members;  // members[0] is the leader
  };

  PerfEventBackend(const EventPlan& plan, PerfSyscalls sys, Options options);
  void OpenAll();
  void CloseAll(bool disable);
  // Whether the member's number still refers to the counter it was opened as: the same file
  // (every perf descriptor shares one anonymous inode) and the same event id.
  bool StillOurs(const Member& m) const;
  // False when the read failed; `*gone` when a descriptor to read is no longer ours.
  bool ReadGroup(const Group& g, std::vector<ChannelValue>* values, bool* gone) const;

  EventPlan plan_;
  PerfSyscalls sys_;
  Options options_;
  bool thread_inherit_ = true;     // inherit_thread + remove_on_exec accepted by the kernel
  pid_t owner_pid_ = 0;            // the process that opened the fds
  std::atomic<bool> lost_{false};  // a descriptor was closed or replaced by the program
  std::vector<Group> groups_;
  std::vector<Channel> channels_;
  std::vector<EventOpenStatus> statuses_;
};

}  // namespace flopspy::cpuroof
