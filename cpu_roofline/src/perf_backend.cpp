#include "flopspy/cpu_roofline/perf_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "flopspy/platform/owned_fd.h"
#include "flopspy/trace/schema.h"

namespace flopspy::cpuroof {

PerfSyscalls RealPerfSyscalls() {
  PerfSyscalls s;
  s.open = [](perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags,
              int* error) {
    const long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
    if (fd < 0) {
      *error = errno;
      return platform::OwnedFd();
    }
    platform::OwnedFd owned = platform::OwnedFd::Adopt(static_cast<int>(fd));
    *error = owned.valid() ? 0 : errno;
    return owned;
  };
  s.read = [](int fd, void* buf, size_t size) -> long {
    const ssize_t n = ::read(fd, buf, size);
    return n < 0 ? -errno : static_cast<long>(n);
  };
  s.ioctl = [](int fd, unsigned long request, void* arg) {
    const int r = ::ioctl(fd, request, arg);
    return r < 0 ? -errno : r;
  };
  s.close = [](int fd) { ::close(fd); };
  return s;
}

std::string ErrnoName(int err) {
  switch (err) {
    case ENOENT:
      return "ENOENT";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case EINVAL:
      return "EINVAL";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    case EMFILE:
      return "EMFILE";
    case ENFILE:
      return "ENFILE";
    case EBUSY:
      return "EBUSY";
    case ENODEV:
      return "ENODEV";
    case ENOSYS:
      return "ENOSYS";
    case E2BIG:
      return "E2BIG";
    case ENOSPC:
      return "ENOSPC";
    case EFAULT:
      return "EFAULT";
    case EINTR:
      return "EINTR";
    case ESRCH:
      return "ESRCH";
    default:
      return "errno " + std::to_string(err);
  }
}

std::string DescribePerfError(int err, const PlannedEvent& event, bool core_pmu_present,
                              std::optional<int> paranoid) {
  const bool system_wide = event.cpu >= 0;
  const bool hardware = event.kind != EventTypeKind::kSoftware;
  std::string why;
  const std::string par = paranoid ? std::to_string(*paranoid) : std::string("unknown");
  switch (err) {
    case ENOENT:
      if (hardware && !system_wide && !core_pmu_present) {
        why =
            "no hardware PMU (no core PMU in /sys/bus/event_source/devices); in a VM enable the "
            "virtual PMU (e.g. KVM -cpu host,pmu=on, or an instance type with a vPMU)";
      } else {
        why = "this CPU or kernel does not know the event";
      }
      break;
    case EACCES:
    case EPERM:
      if (system_wide) {
        why =
            "system-wide (uncore) events need CAP_PERFMON or kernel.perf_event_paranoid <= 0 "
            "(now " +
            par + "); e.g. sudo sysctl kernel.perf_event_paranoid=0";
      } else if (paranoid && *paranoid >= 3) {
        why = "kernel.perf_event_paranoid is " + par +
              " (Debian/Ubuntu: no unprivileged perf at all); sudo sysctl "
              "kernel.perf_event_paranoid=2, or grant CAP_PERFMON";
      } else {
        why = "not permitted (perf_event_paranoid " + par +
              "); in a container a seccomp profile may block perf_event_open: docker run "
              "--cap-add PERFMON, or grant CAP_PERFMON";
      }
      break;
    case EOPNOTSUPP:
      why = "the PMU does not support this mode (sampling or exclude bits)";
      break;
    case EINVAL:
      why = "the kernel rejected the event (bad encoding, group too large or unsupported bits)";
      break;
    case EMFILE:
    case ENFILE:
      why = "too many open files (raise ulimit -n)";
      break;
    case EBUSY:
      why = "the PMU is used exclusively by another tool";
      break;
    case ENODEV:
      why = "no such PMU or CPU (a container seccomp profile may also answer ENODEV)";
      break;
    case ENOSYS:
      why = "perf_event_open is not available (kernel without perf events, or blocked)";
      break;
    case E2BIG:
      why = "the kernel does not accept this perf_event_attr size";
      break;
    default:
      why = strerror(err);
      break;
  }
  return "perf_event_open(" + event.name + ") failed with " + ErrnoName(err) + ": " + why;
}

PerfEventBackend::PerfEventBackend(const EventPlan& plan, PerfSyscalls sys, Options options)
    : plan_(plan), sys_(std::move(sys)), options_(options) {}

PerfEventBackend::~PerfEventBackend() {
  CloseAll(true);
}

std::unique_ptr<PerfEventBackend> PerfEventBackend::Open(const EventPlan& plan, PerfSyscalls sys,
                                                         Options options) {
  std::unique_ptr<PerfEventBackend> b(new PerfEventBackend(plan, std::move(sys), options));
  b->OpenAll();
  return b;
}

namespace {

constexpr uint64_t kGroupFormat = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                  PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
constexpr uint64_t kSingleFormat =
    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;

void FillAttr(const PlannedEvent& e, bool leader, bool group_read, bool inherit,
              bool thread_inherit, perf_event_attr* attr) {
  memset(attr, 0, sizeof(*attr));
  attr->size = sizeof(*attr);
  switch (e.kind) {
    case EventTypeKind::kHardware:
      attr->type = PERF_TYPE_HARDWARE;
      break;
    case EventTypeKind::kSoftware:
      attr->type = PERF_TYPE_SOFTWARE;
      break;
    case EventTypeKind::kRaw:
      attr->type = e.type;
      break;
  }
  attr->config = e.config;
  attr->config1 = e.config1;
  attr->config2 = e.config2;
  attr->read_format = group_read ? kGroupFormat : kSingleFormat;
  attr->disabled = leader ? 1 : 0;
  if (e.cpu < 0) {
    // This process only, user space only (perf_event_paranoid 2 allows nothing else).
    attr->exclude_kernel = 1;
    attr->exclude_hv = 1;
    attr->inherit = inherit ? 1 : 0;
    if (inherit && thread_inherit) {
      attr->inherit_thread = 1;
      attr->remove_on_exec = 1;
    }
  }
}

Channel ChannelFor(const PlannedEvent& e) {
  Channel c;
  c.name = e.name;
  c.quantity = e.quantity;
  c.weight = e.weight;
  c.precision = e.precision;
  c.direction = e.direction;
  c.system_wide = e.cpu >= 0;
  c.scale = e.scale;
  return c;
}

}  // namespace

void PerfEventBackend::OpenAll() {
  owner_pid_ = getpid();
  groups_.clear();
  channels_.clear();
  statuses_.clear();
  // Plan groups in first-appearance order.
  std::vector<std::pair<int, int>> order;  // (group, cpu)
  for (const PlannedEvent& e : plan_.events) {
    const std::pair<int, int> key{e.group, e.cpu};
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
  }
  for (const auto& [group_no, cpu] : order) {
    std::vector<const PlannedEvent*> events;
    for (const PlannedEvent& e : plan_.events) {
      if (e.group == group_no && e.cpu == cpu) events.push_back(&e);
    }
    const pid_t pid = cpu >= 0 ? -1 : 0;
    Group group;
    bool group_read = true;
    std::vector<std::pair<const PlannedEvent*, int>> failed;
    for (const PlannedEvent* e : events) {
      const bool leader = group.members.empty() || !group_read;
      perf_event_attr attr;
      platform::OwnedFd fd;
      int error = EINVAL;
      // Kernels before 5.13 reject inherit_thread/remove_on_exec; some reject group reads of
      // inherited counters. On EINVAL a leader tries the other combinations, in this order.
      const bool inherited = cpu < 0 && options_.inherit;
      std::vector<std::pair<bool, bool>> modes{{thread_inherit_, group_read}};  // (thread, group)
      if (leader && inherited) {
        if (thread_inherit_) modes.emplace_back(false, group_read);
        if (group_read) modes.emplace_back(thread_inherit_, false);
        if (thread_inherit_ && group_read) modes.emplace_back(false, false);
      }
      for (const auto& [thread, grouped] : modes) {
        FillAttr(*e, leader, grouped, options_.inherit, thread, &attr);
        const int group_fd = leader ? -1 : group.members.front().fd.get();
        fd = sys_.open(&attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC, &error);
        if (fd.valid()) {
          thread_inherit_ = thread_inherit_ && (thread || !inherited);
          group_read = grouped;
          break;
        }
        if (error != EINVAL) break;
      }
      if (!fd.valid()) {
        failed.emplace_back(e, error);
        continue;
      }
      uint64_t id = 0;
      if (sys_.ioctl(fd.get(), PERF_EVENT_IOC_ID, &id) < 0) id = 0;
      Member m{fd, id, channels_.size()};
      channels_.push_back(ChannelFor(*e));
      statuses_.push_back(EventOpenStatus{*e, 0, ""});
      if (leader && !group.members.empty()) {
        // Without group reads every event is its own group.
        groups_.push_back(group);
        group = Group{};
      }
      group.group_read = group_read;
      group.members.push_back(m);
    }
    if (!group.members.empty()) groups_.push_back(group);
    for (const auto& [e, err] : failed) {
      statuses_.push_back(EventOpenStatus{
          *e, err, DescribePerfError(err, *e, plan_.core_pmu_present, options_.paranoid)});
    }
  }
  // A W precision or Q counts only when every event of it opened.
  std::map<std::pair<Quantity, int>, bool> complete;
  for (const EventOpenStatus& st : statuses_) {
    if (st.event.quantity != Quantity::kFlops && st.event.quantity != Quantity::kBytes) continue;
    const int sub =
        st.event.quantity == Quantity::kFlops ? static_cast<int>(st.event.precision) : 0;
    auto [it, inserted] = complete.emplace(std::make_pair(st.event.quantity, sub), true);
    (void)inserted;
    if (st.error != 0) it->second = false;
  }
  for (Channel& c : channels_) {
    if (c.quantity != Quantity::kFlops && c.quantity != Quantity::kBytes) continue;
    const int sub = c.quantity == Quantity::kFlops ? static_cast<int>(c.precision) : 0;
    c.counted = complete[{c.quantity, sub}];
  }
  for (const Group& g : groups_) {
    sys_.ioctl(g.members.front().fd.get(), PERF_EVENT_IOC_RESET, nullptr);
    sys_.ioctl(g.members.front().fd.get(), PERF_EVENT_IOC_ENABLE, nullptr);
  }
  lost_.store(false);
}

bool PerfEventBackend::StillOurs(const Member& m) const {
  if (!m.fd.StillOurs()) return false;
  if (m.id == 0) return true;
  // Only an anonymous-inode file (eventfd, epoll, another perf event...) gets this far, and
  // none of those answers this ioctl but a perf event.
  uint64_t id = 0;
  return sys_.ioctl(m.fd.get(), PERF_EVENT_IOC_ID, &id) >= 0 && id == m.id;
}

void PerfEventBackend::CloseAll(bool disable) {
  // In a forked child the fds still name the parent's counters: never disable those, even when
  // the child destroys the backend without having reopened it.
  if (getpid() != owner_pid_) disable = false;
  for (Group& g : groups_) {
    if (disable && StillOurs(g.members.front())) {
      sys_.ioctl(g.members.front().fd.get(), PERF_EVENT_IOC_DISABLE, nullptr);
    }
    // A number the program closed or reused is its own now: forgotten, never closed.
    for (auto it = g.members.rbegin(); it != g.members.rend(); ++it) {
      if (StillOurs(*it)) sys_.close(it->fd.get());
      it->fd.Forget();
    }
  }
  groups_.clear();
}

std::string PerfEventBackend::LostReason() const {
  if (!lost_.load(std::memory_order_relaxed)) return {};
  return "the program closed or replaced the descriptors of the CPU counters (close_range, "
         "dup2...); flopspy leaves those numbers alone and stops sampling the CPU";
}

bool PerfEventBackend::ReadGroup(const Group& g, std::vector<ChannelValue>* values,
                                 bool* gone) const {
  uint64_t buf[3 + 2 * 64];
  if (g.group_read) {
    const size_t n = g.members.size();
    if (n > 64) return false;
    if (!StillOurs(g.members.front())) {
      *gone = true;
      return false;
    }
    const long got = sys_.read(g.members.front().fd.get(), buf, (3 + 2 * n) * sizeof(uint64_t));
    if (got < static_cast<long>(3 * sizeof(uint64_t))) return false;
    const uint64_t nr = buf[0];
    if (nr > n || got < static_cast<long>((3 + 2 * nr) * sizeof(uint64_t))) return false;
    for (uint64_t i = 0; i < nr; ++i) {
      const uint64_t value = buf[3 + 2 * i];
      const uint64_t id = buf[4 + 2 * i];
      // Match by id; fall back to position when the kernel gave no ids.
      const Member* m = nullptr;
      for (const Member& cand : g.members) {
        if (cand.id != 0 && cand.id == id) m = &cand;
      }
      if (!m && i < n) m = &g.members[i];
      if (!m) continue;
      (*values)[m->channel] = ChannelValue{value, buf[1], buf[2], true};
    }
    return true;
  }
  bool ok = true;
  for (const Member& m : g.members) {
    if (!StillOurs(m)) {
      *gone = true;
      return false;
    }
    const long got = sys_.read(m.fd.get(), buf, 4 * sizeof(uint64_t));
    if (got < static_cast<long>(3 * sizeof(uint64_t))) {
      ok = false;
      continue;
    }
    (*values)[m.channel] = ChannelValue{buf[0], buf[1], buf[2], true};
  }
  return ok;
}

bool PerfEventBackend::Read(uint64_t now_ns, bool /*fast*/, Snapshot* out) {
  out->t_ns = now_ns;
  out->values.assign(channels_.size(), ChannelValue{0, 0, 0, false});
  if (lost_.load(std::memory_order_relaxed)) return false;
  bool any = false;
  for (const Group& g : groups_) {
    bool gone = false;
    if (ReadGroup(g, &out->values, &gone)) any = true;
    if (gone) {
      lost_.store(true, std::memory_order_relaxed);
      return false;
    }
  }
  return any || channels_.empty();
}

bool PerfEventBackend::ReopenInChild(std::string* why) {
  CloseAll(false);
  OpenAll();
  if (channels_.empty()) {
    *why = "no counter could be opened in the child";
    return false;
  }
  return true;
}

void PerfEventBackend::Describe(Capabilities* caps) const {
  // Planned and opened counts per (quantity, precision/direction).
  std::map<std::pair<Quantity, int>, std::pair<int, int>> count;  // planned, opened
  std::map<std::pair<Quantity, int>, std::string> first_error;
  auto key = [](const PlannedEvent& e) {
    int sub = 0;
    if (e.quantity == Quantity::kFlops) sub = static_cast<int>(e.precision);
    if (e.quantity == Quantity::kBytes) sub = static_cast<int>(e.direction);
    return std::make_pair(e.quantity, sub);
  };
  for (const EventOpenStatus& s : statuses_) {
    auto& c = count[key(s.event)];
    ++c.first;
    if (s.error == 0) {
      ++c.second;
    } else if (first_error.find(key(s.event)) == first_error.end()) {
      first_error[key(s.event)] = s.message;
    }
  }
  auto complete = [&](Quantity q, int sub) {
    auto it = count.find({q, sub});
    return it != count.end() && it->second.first > 0 && it->second.first == it->second.second;
  };
  auto error_of = [&](Quantity q) -> std::string {
    for (const auto& [k, msg] : first_error) {
      if (k.first == q) return msg;
    }
    return "";
  };
  uint32_t mask = 0;

  caps->time.available = true;
  caps->time.source = "CLOCK_MONOTONIC";
  if (complete(Quantity::kTaskClock, 0)) {
    caps->time.source += " + perf task-clock";
    mask |= trace::kCpuTaskClock;
  } else {
    caps->time.reason = "no task-clock (CPU time): " + error_of(Quantity::kTaskClock);
  }

  if (complete(Quantity::kCycles, 0)) {
    caps->cycles.available = true;
    caps->cycles.source = "perf cycles";
    mask |= trace::kCpuCycles;
  } else {
    caps->cycles.reason = error_of(Quantity::kCycles);
  }
  if (complete(Quantity::kInstructions, 0)) mask |= trace::kCpuInstructions;
  if (complete(Quantity::kRefCycles, 0)) mask |= trace::kCpuRefCycles;

  // W: each precision is valid only if all its events opened (a partial sum would under-count).
  bool any_w_planned = false, all_w = true, some_w = false;
  std::string w_source;
  static const std::pair<Precision, uint32_t> kBits[] = {{Precision::kDp, trace::kCpuFlopsDp},
                                                         {Precision::kSp, trace::kCpuFlopsSp},
                                                         {Precision::kHp, trace::kCpuFlopsHp},
                                                         {Precision::kAny, 0}};
  for (const auto& [p, bit] : kBits) {
    auto it = count.find({Quantity::kFlops, static_cast<int>(p)});
    if (it == count.end()) continue;
    any_w_planned = true;
    if (complete(Quantity::kFlops, static_cast<int>(p))) {
      some_w = true;
      mask |= bit;
      w_source += (w_source.empty() ? "" : ", ") + std::string(PrecisionName(p));
    } else {
      all_w = false;
    }
  }
  if (!any_w_planned) {
    caps->work.reason = plan_.work_missing;
  } else if (some_w) {
    caps->work.available = true;
    caps->work.source = "perf " + std::string(plan_.family.name) + " FP events (" + w_source + ")";
    mask |= trace::kCpuFlopsAny;
    caps->work_flags = plan_.work_flags;
    if (!(mask & (trace::kCpuFlopsDp | trace::kCpuFlopsSp | trace::kCpuFlopsHp))) {
      caps->work_flags |= trace::kCpuNoPrecisionSplit;
    }
    if (!all_w) caps->work.reason = "some precisions missing: " + error_of(Quantity::kFlops);
  } else {
    caps->work.reason = error_of(Quantity::kFlops);
  }

  bool any_q_planned = false, all_q = true;
  for (int d = 0; d < 3; ++d) {
    if (count.find({Quantity::kBytes, d}) == count.end()) continue;
    any_q_planned = true;
    if (!complete(Quantity::kBytes, d)) all_q = false;
  }
  if (!any_q_planned) {
    caps->traffic.reason = plan_.traffic_missing;
  } else if (all_q) {
    caps->traffic.available = true;
    caps->traffic.source = "perf memory-controller PMUs";
    if (complete(Quantity::kBytes, static_cast<int>(Direction::kRead))) {
      mask |= trace::kCpuBytesRead;
    }
    if (complete(Quantity::kBytes, static_cast<int>(Direction::kWrite))) {
      mask |= trace::kCpuBytesWrite;
    }
    mask |= trace::kCpuBytesAny;
    caps->traffic_flags = plan_.traffic_flags | trace::kCpuSystemWideMemory;
  } else {
    caps->traffic.reason = error_of(Quantity::kBytes);
  }
  caps->valid_mask |= mask;
  if (!thread_inherit_ && options_.inherit) {
    caps->notes.push_back(
        "kernel has no inherit_thread (Linux < 5.13): forked child processes are counted too");
  }
}

}  // namespace flopspy::cpuroof
