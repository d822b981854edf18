#include "flopspy/cpu_roofline/sampler.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <nlohmann/json.hpp>

#include "flopspy/platform/safe_file.h"

namespace flopspy::cpuroof {

namespace {

pid_t CurrentTid() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

constexpr size_t kMaxCopies = 4096;
constexpr size_t kMaxPendingLines = 100000;

}  // namespace

std::unique_ptr<Sampler> Sampler::Start(const SamplerConfig& config, Callback callback) {
  return Start(config, std::move(callback), Options{});
}

std::unique_ptr<Sampler> Sampler::Start(const SamplerConfig& config, Callback callback,
                                        Options options) {
  try {
    const bool only_with_counters = options.thread_only_with_counters;
    std::unique_ptr<Sampler> s(new Sampler(config, std::move(callback), std::move(options)));
    if (s->want_thread_ && s->active() && (!only_with_counters || s->counts_roofline())) {
      s->StartThread();
    }
    return s;
  } catch (...) {
    return nullptr;  // out of memory or no thread: the program runs on without the sampler
  }
}

Sampler::Sampler(const SamplerConfig& config, Callback callback, Options options)
    : config_(config),
      callback_(std::move(callback)),
      clock_(options.clock ? options.clock : std::function<uint64_t()>(MonotonicNowNs)),
      warn_(std::move(options.warn)),
      want_thread_(options.start_thread) {
  method_.min_trusted_ns = config.min_trusted_ns;
  if (options.backend) {
    backend_ = std::move(options.backend);
    caps_ = options.capabilities;
  } else {
    BackendDeps deps = options.deps;
    if (!deps.clock) deps.clock = clock_;
    OpenedBackend opened = OpenBackend(config, deps);
    backend_ = std::move(opened.backend);
    caps_ = std::move(opened.capabilities);
  }
  if (!backend_ || caps_.valid_mask == 0) return;
  const uint64_t now = Now();
  if (!ReadNow(now, false, &run_start_)) return;
  last_interval_ = run_start_;
  active_.store(true);
  if (!config.record_path.empty()) OpenRecording();
}

void Sampler::Warn(const std::string& line) {
  if (!warn_) return;
  try {
    warn_(line);
  } catch (...) {
    problems_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Sampler::CheckLost() {
  const std::string why = backend_->LostReason();
  if (why.empty()) return;
  active_.store(false);
  if (!lost_reported_.exchange(true)) Warn(why);
}

void Sampler::OpenRecording() {
  std::string path = config_.record_path;
  const bool per_process = path.find("%p") != std::string::npos;
  if (per_process) path.replace(path.find("%p"), 2, std::to_string(getpid()));
  // Never through a link and never over a file: a name already there may be a planted link.
  int fd = platform::CreateExclusive(AT_FDCWD, path, platform::kPrivateFileMode);
  std::string moved;
  if (fd < 0 && errno == EEXIST && !per_process) {
    // Without %p every process of a run (an exec'd image) and every later run share the name:
    // the first keeps it, the others record beside it.
    const std::string beside = path + "." + std::to_string(getpid());
    fd = platform::CreateExclusive(AT_FDCWD, beside, platform::kPrivateFileMode);
    if (fd >= 0) {
      moved = "FLOPSPY_CPU_RECORD file " + path +
              " already exists (never overwritten or followed); recording to " + beside;
      path = beside;
    } else if (errno == EEXIST) {
      path += " (and " + beside + ")";
    }
  }
  const int open_errno = errno;
  platform::OwnedFd owned = platform::OwnedFd::Adopt(fd);
  if (!owned.valid()) {
    Warn(open_errno == EEXIST
             ? "FLOPSPY_CPU_RECORD file " + path +
                   " already exists (never overwritten or followed); no recording is written"
             : "cannot create FLOPSPY_CPU_RECORD file " + path + ": " + std::strerror(open_errno) +
                   "; no recording is written");
    return;
  }
  const std::string text =
      ReplayHeaderLine(backend_->channels(), caps_, "recorded by flopspy from " + caps_.backend) +
      "\n" + ReplayEntryLine(run_start_) + "\n";
  if (!platform::WriteAll(owned.get(), text.data(), text.size())) {
    Warn("cannot write FLOPSPY_CPU_RECORD file " + path + ": " + std::strerror(errno) +
         "; no recording is written");
    owned.CloseIfOurs();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(record_mu_);
    record_fd_ = owned;
    record_name_ = path;
  }
  if (!moved.empty()) Warn(moved);
}

void Sampler::RecordLocked(const Snapshot& s, std::string_view begin, std::string_view end) {
  if (record_pending_.size() >= kMaxPendingLines) {
    problems_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  record_pending_.push_back(ReplayEntryLine(s, begin, end, record_copy_));
  record_copy_.reset();
}

void Sampler::FlushRecording(bool close) {
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lines.swap(record_pending_);
  }
  std::string warning;
  {
    std::lock_guard<std::mutex> lock(record_mu_);
    if (!record_fd_.valid()) return;
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    if (!record_fd_.StillOurs()) {
      warning = "the program closed or replaced the descriptor of FLOPSPY_CPU_RECORD file " +
                record_name_ + "; the recording ends here (what that number is now is left alone)";
      record_fd_.Forget();
    } else if (!text.empty() && !platform::WriteAll(record_fd_.get(), text.data(), text.size())) {
      warning = "cannot write FLOPSPY_CPU_RECORD file " + record_name_ + ": " +
                std::strerror(errno) + "; the recording ends here";
      record_fd_.CloseIfOurs();
    } else if (close) {
      record_fd_.CloseIfOurs();
    }
  }
  if (!warning.empty()) Warn(warning);
}

Sampler::~Sampler() {
  try {
    Stop();
  } catch (...) {
  }
}

uint64_t Sampler::Now() const {
  return clock_();
}

std::string Sampler::MetadataJson() const {
  try {
    nlohmann::json j;
    j["capabilities"] = nlohmann::json::parse(caps_.ToJson());
    j["mode"] = BackendModeName(config_.mode);
    j["interval_ms"] = config_.interval_ms;
    j["min_trusted_ms"] = static_cast<double>(config_.min_trusted_ns) * 1e-6;
    j["peak_gflops"] = config_.peak_gflops ? nlohmann::json(*config_.peak_gflops) : nullptr;
    j["bandwidth_gbs"] = config_.bandwidth_gbs ? nlohmann::json(*config_.bandwidth_gbs) : nullptr;
    return j.dump();
  } catch (...) {
    return "{}";
  }
}

bool Sampler::ReadNow(uint64_t now_ns, bool fast, Snapshot* out) {
  if (!backend_->Read(now_ns, fast, out)) {
    problems_.fetch_add(1, std::memory_order_relaxed);
    CheckLost();
    return false;
  }
  return true;
}

void Sampler::Emit(const trace::CpuSampleRecord& record, std::string_view region) {
  if (!callback_) return;
  try {
    callback_(record, region);
  } catch (...) {
    problems_.fetch_add(1, std::memory_order_relaxed);
  }
}

trace::CpuSampleRecord Sampler::Point(const Snapshot& begin, const Snapshot& end,
                                      trace::CpuSampleScope scope) {
  trace::CpuSampleRecord r = ComputeSample(backend_->channels(), begin, end, caps_, scope, method_);
  std::lock_guard<std::mutex> lock(mu_);
  const bool overlap =
      scope == trace::CpuSampleScope::kRun ? any_copy_ : OverlapsCopyLocked(r.begin_ns, r.end_ns);
  if (overlap) r.flags |= trace::kCpuOverlapsGpuCopies;
  return r;
}

bool Sampler::OverlapsCopyLocked(uint64_t begin_ns, uint64_t end_ns) const {
  // First copy ending at or after begin; it overlaps if it starts before end.
  auto it = std::lower_bound(
      copies_.begin(), copies_.end(), begin_ns,
      [](const std::pair<uint64_t, uint64_t>& c, uint64_t t) { return c.second < t; });
  return it != copies_.end() && it->first <= end_ns;
}

void Sampler::PruneCopiesLocked() {
  uint64_t horizon = last_interval_.t_ns;
  for (const auto& [key, stack] : open_regions_) {
    if (!stack.empty()) horizon = std::min(horizon, stack.front().t_ns);
  }
  copies_.erase(copies_.begin(),
                std::find_if(copies_.begin(), copies_.end(),
                             [horizon](const auto& c) { return c.second >= horizon; }));
}

void Sampler::NoteGpuCopy(uint64_t begin_ns, uint64_t end_ns) {
  if (!active()) return;
  try {
    if (end_ns < begin_ns) std::swap(begin_ns, end_ns);
    std::lock_guard<std::mutex> lock(mu_);
    any_copy_ = true;
    if (!config_.record_path.empty()) {
      record_copy_ = record_copy_ ? std::make_pair(std::min(record_copy_->first, begin_ns),
                                                   std::max(record_copy_->second, end_ns))
                                  : std::make_pair(begin_ns, end_ns);
    }
    auto pos = std::lower_bound(copies_.begin(), copies_.end(), std::make_pair(begin_ns, end_ns));
    pos = copies_.insert(pos, {begin_ns, end_ns});
    // Merge with neighbours so the list stays sorted and disjoint.
    if (pos != copies_.begin() && (pos - 1)->second >= pos->first) {
      --pos;
      pos->second = std::max(pos->second, (pos + 1)->second);
      copies_.erase(pos + 1);
    }
    while (pos + 1 != copies_.end() && (pos + 1)->first <= pos->second) {
      pos->second = std::max(pos->second, (pos + 1)->second);
      copies_.erase(pos + 1);
    }
    if (copies_.size() > kMaxCopies) {
      // Too many to keep: one covering interval flags conservatively.
      const auto span = std::make_pair(copies_.front().first, copies_.back().second);
      copies_.assign(1, span);
    }
  } catch (...) {
    problems_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Sampler::RegionBegin(std::string_view name, uint64_t now_ns) {
  if (!active()) return;
  try {
    Snapshot snap;
    if (!ReadNow(now_ns, true, &snap)) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    if (!config_.record_path.empty()) RecordLocked(snap, name, {});
    open_regions_[{CurrentTid(), std::string(name)}].push_back(std::move(snap));
  } catch (...) {
    problems_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Sampler::RegionEnd(std::string_view name, uint64_t now_ns) {
  if (!active()) return;
  try {
    Snapshot end;
    if (!ReadNow(now_ns, true, &end)) return;
    Snapshot begin;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      if (!config_.record_path.empty()) RecordLocked(end, {}, name);
      auto it = open_regions_.find({CurrentTid(), std::string(name)});
      if (it == open_regions_.end() || it->second.empty()) {
        problems_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      begin = std::move(it->second.back());
      it->second.pop_back();
      if (it->second.empty()) open_regions_.erase(it);
    }
    Emit(Point(begin, end, trace::CpuSampleScope::kRegion), name);
  } catch (...) {
    problems_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Sampler::SampleOnce(uint64_t now_ns) {
  if (!active()) return;
  try {
    Snapshot now;
    if (!ReadNow(now_ns, false, &now)) return;
    Snapshot prev;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_ || now.t_ns <= last_interval_.t_ns) return;
      prev = last_interval_;
      last_interval_ = now;
      if (!config_.record_path.empty()) RecordLocked(now, {}, {});
    }
    const trace::CpuSampleRecord r = Point(prev, now, trace::CpuSampleScope::kInterval);
    {
      std::lock_guard<std::mutex> lock(mu_);
      PruneCopiesLocked();
    }
    Emit(r, {});
    if (!config_.record_path.empty()) FlushRecording(false);
  } catch (...) {
    problems_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Sampler::Stop(uint64_t now_ns) {
  try {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      stop_requested_ = true;
    }
    cv_.notify_all();
    if (thread_ && thread_->joinable()) thread_->join();
    thread_.reset();
    if (!active()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stopped_ = true;
      }
      // Stopped early (descriptors taken): what was queued is written, if the file is ours.
      if (!config_.record_path.empty()) FlushRecording(true);
      return;
    }
    if (now_ns == 0) now_ns = Now();
    SampleOnce(now_ns);  // the last, partial interval
    Snapshot end;
    {
      std::lock_guard<std::mutex> lock(mu_);
      end = last_interval_;
      stopped_ = true;
      open_regions_.clear();
    }
    Emit(Point(run_start_, end, trace::CpuSampleScope::kRun), {});
    active_.store(false);
    if (!config_.record_path.empty()) FlushRecording(true);
  } catch (...) {
    problems_.fetch_add(1, std::memory_order_relaxed);
  }
}

bool Sampler::counts_roofline() const {
  constexpr uint32_t kRoofline = trace::kCpuFlopsDp | trace::kCpuFlopsSp | trace::kCpuFlopsHp |
                                 trace::kCpuFlopsAny | trace::kCpuBytesRead |
                                 trace::kCpuBytesWrite | trace::kCpuBytesAny;
  return active() && (caps_.valid_mask & kRoofline) != 0;
}

void Sampler::StartThread() {
  // The sampler thread takes no signals: the program's handlers stay on the program's threads.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    thread_ = std::make_unique<std::thread>([this] { ThreadMain(); });
  } catch (...) {
    problems_.fetch_add(1, std::memory_order_relaxed);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void Sampler::ThreadMain() {
  pthread_setname_np(pthread_self(), "flopspy-cpu");
  const auto period = std::chrono::milliseconds(config_.interval_ms);
  auto next = std::chrono::steady_clock::now() + period;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (cv_.wait_until(lock, next, [this] { return stop_requested_; })) return;
    }
    SampleOnce(Now());
    next += period;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now + period;  // fell behind (suspended): don't burst
  }
}

void Sampler::AfterForkInChild(uint64_t now_ns) {
  // Only the forking thread exists here; a lock may be held, and a container half-changed, by a
  // thread that is gone. Start from fresh objects; the old ones are leaked, never read.
  new (&mu_) std::mutex();
  new (&cv_) std::condition_variable();
  new (&record_mu_) std::mutex();
  new (&open_regions_) decltype(open_regions_)();
  new (&copies_) decltype(copies_)();
  new (&record_pending_) decltype(record_pending_)();
  // The parent's recording stays the parent's: the child never writes it, and closes its own
  // copy of the descriptor only while that is still ours.
  record_fd_.CloseIfOurs();
  config_.record_path.clear();
  (void)thread_.release();  // the parent's thread does not exist in the child: never join it
  try {
    any_copy_ = false;
    stop_requested_ = false;
    // A sampler the parent stopped (its descriptors taken) stays stopped.
    if (stopped_ || !backend_ || !active()) return;
    std::string why;
    if (!backend_->ReopenInChild(&why) || backend_->channels().empty()) {
      active_.store(false);
      caps_.notes.push_back("counters could not be reopened in the forked child: " + why);
      return;
    }
    if (now_ns == 0) now_ns = Now();
    if (!ReadNow(now_ns, false, &run_start_)) {
      active_.store(false);
      return;
    }
    last_interval_ = run_start_;
    if (want_thread_) StartThread();
  } catch (...) {
    active_.store(false);
  }
}

ReplayRun RunReplay(const ReplayData& data, const SamplerConfig& config,
                    const Sampler::Callback& callback) {
  ReplayRun run;
  run.capabilities = data.capabilities;
  if (data.entries.empty()) return run;
  uint64_t now = data.entries.front().snapshot.t_ns;
  Sampler::Options options;
  options.start_thread = false;
  options.clock = [&now] { return now; };
  options.backend = std::make_unique<ReplayBackend>(data, false, 0);
  options.capabilities = data.capabilities;
  auto counting = [&](const trace::CpuSampleRecord& r, std::string_view region) {
    ++run.points;
    if (callback) callback(r, region);
  };
  std::unique_ptr<Sampler> sampler = Sampler::Start(config, counting, std::move(options));
  if (!sampler) return run;
  for (size_t i = 1; i < data.entries.size(); ++i) {
    const ReplayEntry& e = data.entries[i];
    now = e.snapshot.t_ns;
    if (e.gpu_copy) sampler->NoteGpuCopy(e.gpu_copy->first, e.gpu_copy->second);
    if (!e.begin_region.empty()) sampler->RegionBegin(e.begin_region, now);
    if (!e.end_region.empty()) sampler->RegionEnd(e.end_region, now);
    if (e.begin_region.empty() && e.end_region.empty()) sampler->SampleOnce(now);
  }
  sampler->Stop(now);
  return run;
}

}  // namespace flopspy::cpuroof
