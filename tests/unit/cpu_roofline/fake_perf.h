// A fake perf_event_open kernel for tests: records every open, returns injected errnos, and
// serves read() in the formats the backend asks for.
//
// Each fake event is a real descriptor (a memfd of its own), held by identity as the backend
// holds real counters, so tests can close or dup2 over it as a program would; events are keyed
// by the number the backend uses.
#pragma once

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "flopspy/cpu_roofline/perf_backend.h"

namespace flopspy::cpuroof::testing {

struct FakeEvent {
  perf_event_attr attr;
  pid_t pid = 0;
  int cpu = -1;
  int group_fd = -1;
  int fd = -1;
  uint64_t id = 0;
  uint64_t value = 0;
  uint64_t enabled_ns = 0;
  uint64_t running_ns = 0;
  bool read_fails = false;
  platform::OwnedFd handle;  // the descriptor standing in for the counter
};

class FakePerf {
 public:
  // Errno to return for an open (0: succeed). Called with the attr as the backend filled it.
  std::function<int(const perf_event_attr&, int cpu)> error_for = [](const perf_event_attr&, int) {
    return 0;
  };
  // Fail with EMFILE once this many fds are open (0: no limit).
  size_t max_fds = 0;

  FakePerf() = default;
  FakePerf(const FakePerf&) = delete;
  FakePerf& operator=(const FakePerf&) = delete;
  ~FakePerf() {
    for (const auto& [fd, e] : events) {
      if (e.handle.StillOurs()) ::close(fd);
    }
  }

  PerfSyscalls Syscalls() {
    PerfSyscalls s;
    s.open = [this](perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long,
                    int* error) {
      std::lock_guard<std::mutex> lock(mu);
      opens.push_back(*attr);
      *error = 0;
      if (max_fds && events.size() >= max_fds) *error = EMFILE;
      if (*error == 0) *error = error_for(*attr, cpu);
      if (*error != 0) return platform::OwnedFd();
      platform::OwnedFd handle =
          platform::OwnedFd::Adopt(memfd_create("flopspy-fake-perf", MFD_CLOEXEC));
      if (!handle.valid()) {
        *error = EMFILE;
        return handle;
      }
      FakeEvent e;
      e.attr = *attr;
      e.pid = pid;
      e.cpu = cpu;
      e.group_fd = group_fd;
      e.fd = handle.get();
      e.id = next_id++;
      e.handle = handle;
      events[e.fd] = e;
      return handle;
    };
    s.read = [this](int fd, void* buf, size_t size) -> long {
      std::lock_guard<std::mutex> lock(mu);
      reads.push_back(fd);
      auto it = events.find(fd);
      if (it == events.end()) return -EBADF;
      const FakeEvent& leader = it->second;
      if (leader.read_fails) return -EIO;
      std::vector<uint64_t> out;
      if (leader.attr.read_format & PERF_FORMAT_GROUP) {
        std::vector<const FakeEvent*> members{&leader};
        for (const auto& [f, e] : events) {
          if (e.group_fd == fd) members.push_back(&e);
        }
        out.push_back(members.size());
        out.push_back(leader.enabled_ns);
        out.push_back(leader.running_ns);
        for (const FakeEvent* m : members) {
          out.push_back(m->value);
          out.push_back(m->id);
        }
      } else {
        out = {leader.value, leader.enabled_ns, leader.running_ns, leader.id};
      }
      const size_t bytes = out.size() * sizeof(uint64_t);
      if (bytes > size) return -ENOSPC;
      memcpy(buf, out.data(), bytes);
      return static_cast<long>(bytes);
    };
    s.ioctl = [this](int fd, unsigned long request, void* arg) {
      std::lock_guard<std::mutex> lock(mu);
      ioctls.push_back(fd);
      auto it = events.find(fd);
      if (it == events.end()) return -EBADF;
      if (request == PERF_EVENT_IOC_ID) {
        *static_cast<uint64_t*>(arg) = it->second.id;
      } else if (request == PERF_EVENT_IOC_DISABLE) {
        disabled.insert(fd);
      } else if (request == PERF_EVENT_IOC_ENABLE) {
        enabled.insert(fd);
      }
      return 0;
    };
    s.close = [this](int fd) {
      std::lock_guard<std::mutex> lock(mu);
      events.erase(fd);
      closed.push_back(fd);
      ::close(fd);
    };
    return s;
  }

  // Sets the counts of every open event whose config matches.
  void Set(uint32_t type, uint64_t config, uint64_t value, uint64_t enabled_ns,
           uint64_t running_ns) {
    std::lock_guard<std::mutex> lock(mu);
    for (auto& [fd, e] : events) {
      if (e.attr.type == type && e.attr.config == config) {
        e.value = value;
        e.enabled_ns = enabled_ns;
        e.running_ns = running_ns;
      }
    }
  }
  void SetAll(uint64_t value, uint64_t enabled_ns, uint64_t running_ns) {
    std::lock_guard<std::mutex> lock(mu);
    for (auto& [fd, e] : events) {
      e.value = value;
      e.enabled_ns = enabled_ns;
      e.running_ns = running_ns;
    }
  }

  std::mutex mu;
  std::map<int, FakeEvent> events;
  std::vector<perf_event_attr> opens;
  std::vector<int> closed;
  std::vector<int> reads, ioctls;  // the numbers each call was given
  std::set<int> disabled, enabled;
  uint64_t next_id = 1;
};

}  // namespace flopspy::cpuroof::testing
