// AnalyzeCallSites: every kernel's GPU time to the call site that launched it (docs/call-sites.md,
// "How the report attributes kernels to lines"). A launch with its own stack sample goes to that
// sample's site; one without goes to the sites its (thread, kernel group) was sampled at, in
// proportion to their sample counts, else to those of its group on any thread; a kernel with
// nothing to go by is "no stack", or "backward" when its thread runs no Python in a Python
// process.
#include <algorithm>
#include <unordered_map>
#include <utility>

#include "call_sites_internal.h"

namespace flopspy::analyzers {
namespace {

using call_sites_internal::FrameResolver;
using call_sites_internal::UserFrameRule;

// What tells two call sites apart: the frame itself, not its (shortened) label.
struct SiteKey {
  CallSiteKind kind;
  bool python;
  std::string file;
  int line;
  std::string function;
  std::string module;
  std::string label;
  auto operator<=>(const SiteKey&) const = default;
};

struct SiteTotals {
  CallSite site;
  std::map<uint32_t, CallSiteKernel> kernels;  // by group
};

// One way a launch was seen: a sample's stacks (or, for launches without any, the words that
// stand for them), the site they resolve to, the stack the icicle files its time under.
struct Resolution {
  size_t site = 0;
  size_t stack_time = 0;
  std::vector<SourceFrame> stack;  // outermost first
  double gpu_ns = 0;
  // Named by its thread (no Python frames): launches on other threads do not borrow it.
  bool thread_bound = false;
};

bool SuggestsAutograd(std::string_view thread_name) {
  return thread_name.find("autograd") != std::string_view::npos;
}

class Attribution {
 public:
  Attribution(const CallSiteLog& log, const TraceAnalysis& run, const CallSiteOptions& options,
              const RangeLog* ranges)
      : log_(log),
        run_(run),
        options_(options),
        ranges_(ranges),
        rule_(options.frames_from),
        frames_(log, options) {
    python_process_ = !log.codes.empty();
    for (size_t i = 0; i < log.samples.size(); ++i) {
      const StackSample& s = log.samples[i];
      if (s.correlation != 0) sample_of_.emplace(s.correlation, i);
      sampled_threads_.insert(s.thread);
      if (s.python_stack != 0) python_threads_.insert(s.thread);
    }
  }

  CallSiteReport Run();

 private:
  using Share = std::vector<std::pair<size_t, double>>;  // (resolution, weight)

  size_t ResolveSample(const StackSample& sample, uint32_t thread);
  size_t Bare(CallSiteKind kind, const std::string& label);
  size_t NoSampleResolution(uint32_t thread);
  // A Python process's thread that runs no Python: sampled without Python frames, or, never
  // sampled, named as autograd's.
  bool WithoutPython(uint32_t thread) const;
  size_t AddResolution(CallSiteKind kind, const SourceFrame* frame, std::string label,
                       std::vector<SourceFrame> stack, std::vector<std::string> icicle);
  std::string ThreadWords(uint32_t thread) const;
  void Credit(const TimedActivity& a, size_t resolution, double weight, bool own_sample);
  static Share Proportional(const std::map<size_t, uint64_t>& counts);
  // Backward kernels inside an emit_nvtx "stashed seq = N" range go to the forward site of the
  // "seq = N" range, as "backward of SITE".
  void TieBackward(std::vector<Share>& shares, CallSiteReport& report);
  size_t BackwardOf(size_t forward_site);

  const CallSiteLog& log_;
  const TraceAnalysis& run_;
  const CallSiteOptions& options_;
  const RangeLog* ranges_;
  UserFrameRule rule_;
  FrameResolver frames_;
  bool python_process_ = false;
  std::unordered_map<uint64_t, size_t> sample_of_;  // correlation -> first sample
  std::set<uint32_t> sampled_threads_, python_threads_;

  std::vector<SiteTotals> sites_;
  std::map<SiteKey, size_t> site_index_;
  std::vector<Resolution> resolutions_;
  std::map<std::tuple<uint64_t, uint64_t, uint32_t>, size_t> sample_resolution_;
  std::map<std::string, size_t> bare_resolution_;  // by label
  std::map<size_t, size_t> backward_of_;           // forward site -> its backward resolution
  std::vector<StackTime> stack_times_;
  std::map<std::pair<std::vector<std::string>, size_t>, size_t> stack_time_index_;
};

std::string Attribution::ThreadWords(uint32_t thread) const {
  const auto name = log_.thread_names.find(thread);
  const std::string shown = name != log_.thread_names.end() ? name->second : std::to_string(thread);
  if (name != log_.thread_names.end() && SuggestsAutograd(name->second)) {
    return "backward (thread " + shown + "), no call site";
  }
  return "thread " + shown + ", no Python frames";
}

size_t Attribution::AddResolution(CallSiteKind kind, const SourceFrame* frame, std::string label,
                                  std::vector<SourceFrame> stack, std::vector<std::string> icicle) {
  SiteKey key{kind, true, "", 0, "", "", label};
  if (frame) {
    key.python = frame->python;
    key.file = frame->file;
    key.line = frame->line;
    key.function = frame->function;
    key.module = frame->module;
  }
  auto [at, added] = site_index_.emplace(std::move(key), sites_.size());
  if (added) {
    SiteTotals totals;
    totals.site.kind = kind;
    totals.site.label = std::move(label);
    if (frame) totals.site.frame = *frame;
    totals.site.frame.user = kind == CallSiteKind::kFrame;
    sites_.push_back(std::move(totals));
  }
  Resolution r;
  r.site = at->second;
  auto [st, new_stack] =
      stack_time_index_.emplace(std::make_pair(std::move(icicle), r.site), stack_times_.size());
  if (new_stack) {
    StackTime time;
    time.frames = st->first.first;
    time.site = static_cast<int32_t>(r.site);
    stack_times_.push_back(std::move(time));
  }
  r.stack_time = st->second;
  r.stack = std::move(stack);
  resolutions_.push_back(std::move(r));
  return resolutions_.size() - 1;
}

size_t Attribution::Bare(CallSiteKind kind, const std::string& label) {
  const auto found = bare_resolution_.find(label);
  if (found != bare_resolution_.end()) return found->second;
  const size_t r = AddResolution(kind, nullptr, label, {}, {label});
  resolutions_[r].thread_bound = kind == CallSiteKind::kBackward;
  bare_resolution_.emplace(label, r);
  return r;
}

size_t Attribution::ResolveSample(const StackSample& s, uint32_t thread) {
  // A sample without Python frames is labelled by its thread: the thread is part of its key.
  const auto key = std::make_tuple(s.python_stack, s.native_stack, s.python_stack ? 0 : thread);
  const auto found = sample_resolution_.find(key);
  if (found != sample_resolution_.end()) return found->second;

  std::vector<SourceFrame> python = frames_.Python(s.python_stack);
  std::vector<SourceFrame> native = frames_.Native(s.native_stack);
  // The Python user frame when there is one; else a native one (the user's own extension).
  const SourceFrame* user = nullptr;
  for (auto* frames : {&python, &native}) {
    for (SourceFrame& f : *frames) {
      f.user = rule_.IsUser(f);
      if (!user && f.user) user = &f;
    }
  }
  std::vector<SourceFrame> stack(python.rbegin(), python.rend());
  stack.insert(stack.end(), native.rbegin(), native.rend());
  std::vector<std::string> icicle;  // the Python stack, else the native one
  const std::vector<SourceFrame>& shown = python.empty() ? native : python;
  for (auto it = shown.rbegin(); it != shown.rend(); ++it) icicle.push_back(FrameLabel(*it));
  const SourceFrame* innermost =
      !python.empty() ? &python.front() : (!native.empty() ? &native.front() : nullptr);

  size_t r = 0;
  const bool stacks_missing =
      (s.python_stack != 0 && python.empty()) || (s.native_stack != 0 && native.empty());
  if (user) {
    r = AddResolution(CallSiteKind::kFrame, user, FrameLabel(*user), std::move(stack),
                      std::move(icicle));
  } else if (!python.empty()) {
    r = AddResolution(CallSiteKind::kNoUserFrame, innermost, FrameLabel(*innermost),
                      std::move(stack), std::move(icicle));
  } else if (python_process_ && !stacks_missing) {
    // A Python process's thread with no Python frames: autograd's backward threads above all.
    std::string label = ThreadWords(thread);
    icicle.insert(icicle.begin(), label);
    // Keyed by its label alone: the thread's native stacks differ from launch to launch.
    r = AddResolution(CallSiteKind::kBackward, nullptr, std::move(label), std::move(stack),
                      std::move(icicle));
    resolutions_[r].thread_bound = true;
  } else if (!native.empty()) {
    r = AddResolution(CallSiteKind::kNoUserFrame, innermost, FrameLabel(*innermost),
                      std::move(stack), std::move(icicle));
  } else {
    r = Bare(CallSiteKind::kNoStack, stacks_missing ? "stack records missing" : "no stack sampled");
  }
  sample_resolution_.emplace(key, r);
  return r;
}

bool Attribution::WithoutPython(uint32_t thread) const {
  if (!python_process_ || thread == 0) return false;
  if (sampled_threads_.count(thread) != 0) return python_threads_.count(thread) == 0;
  const auto name = log_.thread_names.find(thread);
  return name != log_.thread_names.end() && SuggestsAutograd(name->second);
}

size_t Attribution::NoSampleResolution(uint32_t thread) {
  if (WithoutPython(thread)) return Bare(CallSiteKind::kBackward, ThreadWords(thread));
  return Bare(CallSiteKind::kNoStack, "no stack sampled");
}

Attribution::Share Attribution::Proportional(const std::map<size_t, uint64_t>& counts) {
  uint64_t total = 0;
  for (const auto& [r, n] : counts) total += n;
  Share share;
  for (const auto& [r, n] : counts) {
    share.emplace_back(r, static_cast<double>(n) / static_cast<double>(total));
  }
  return share;
}

void Attribution::Credit(const TimedActivity& a, size_t resolution, double weight,
                         bool own_sample) {
  const double ns = static_cast<double>(a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0) * weight;
  Resolution& r = resolutions_[resolution];
  r.gpu_ns += ns;
  stack_times_[r.stack_time].gpu_ns += ns;
  SiteTotals& totals = sites_[r.site];
  CallSite& site = totals.site;
  site.gpu_ns += ns;
  site.launches += weight;
  if (own_sample) site.sampled_ns += ns;
  if (a.flops_known) {
    site.flops += a.flops * weight;
    site.flops_ns += ns;
  }
  const double duration = static_cast<double>(a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0);
  if (a.launch_ns != 0 && duration < static_cast<double>(a.launch_cost_ns)) {
    site.launch_bound_ns += ns;
  }
  // The regime rule of the steps (steps.cpp): a launch counts in its group's regime when its own
  // FLOPs are known, or always for overhead-bound groups.
  Regime regime = Regime::kUnknown;
  if (a.group < run_.kernels.size() && run_.kernels[a.group].placement) {
    const Regime placed = run_.kernels[a.group].placement->regime;
    if (placed == Regime::kOverheadBound || a.flops_known) regime = placed;
  }
  site.regime_ns[static_cast<size_t>(regime) & 3] += ns;
  CallSiteKernel& kernel = totals.kernels[a.group];
  kernel.group = a.group;
  kernel.gpu_ns += ns;
  kernel.launches += weight;
}

size_t Attribution::BackwardOf(size_t site) {
  const auto found = backward_of_.find(site);
  if (found != backward_of_.end()) return found->second;
  const SourceFrame frame = sites_[site].site.frame;
  const std::string label = "backward of " + sites_[site].site.label;
  const size_t r = AddResolution(CallSiteKind::kBackward, &frame, label, {},
                                 {"backward", sites_[site].site.label});
  resolutions_[r].thread_bound = true;
  backward_of_.emplace(site, r);
  return r;
}

void Attribution::TieBackward(std::vector<Share>& shares, CallSiteReport& report) {
  const call_sites_internal::SeqRanges seqs(*ranges_);
  if (seqs.empty()) return;
  const std::vector<TimedActivity>& activities = run_.activities;
  const auto bound = [&](const Share& share) {
    return !share.empty() && resolutions_[share.front().first].thread_bound;
  };
  // Forward: the site that launched most of the GPU time inside each "seq = N" range.
  std::map<uint64_t, std::map<size_t, double>> forward;
  for (size_t i = 0; i < activities.size(); ++i) {
    const TimedActivity& a = activities[i];
    if (a.is_copy || a.launch_ns == 0 || bound(shares[i])) continue;
    const auto seq = seqs.At(a.thread, a.launch_ns, false);
    if (!seq) continue;
    const double ns = static_cast<double>(a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0);
    for (const auto& [r, weight] : shares[i]) forward[*seq][resolutions_[r].site] += ns * weight;
  }
  if (forward.empty()) return;
  std::map<uint64_t, size_t> site_of_seq;
  for (const auto& [seq, by_site] : forward) {
    site_of_seq[seq] =
        std::max_element(by_site.begin(), by_site.end(), [](const auto& x, const auto& y) {
          return x.second < y.second;
        })->first;
  }
  // Backward: a kernel of a thread without Python frames inside a "stashed seq = N" range.
  for (size_t i = 0; i < activities.size(); ++i) {
    const TimedActivity& a = activities[i];
    if (a.is_copy || a.launch_ns == 0 || !bound(shares[i])) continue;
    const auto seq = seqs.At(a.thread, a.launch_ns, true);
    if (!seq) continue;
    const auto site = site_of_seq.find(*seq);
    if (site == site_of_seq.end()) continue;
    shares[i] = {{BackwardOf(site->second), 1.0}};
    report.backward_tied_ns +=
        static_cast<double>(a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0);
  }
}

CallSiteReport Attribution::Run() {
  CallSiteReport report;
  report.samples = log_.samples.size();
  std::map<uint32_t, uint64_t> every;
  for (const StackSample& sample : log_.samples) ++every[sample.sample_every];
  for (const auto& [n, count] : every) {
    if (report.sample_every == 0 || count > every[report.sample_every]) report.sample_every = n;
  }
  report.stacks_seen = log_.stacks.size();
  report.damaged = log_.damaged;
  const std::vector<TimedActivity>& activities = run_.activities;
  if (log_.samples.empty()) {
    // Stacks were off (or the trace predates them): no site to speak of, not one "no stack" site.
    for (const TimedActivity& a : activities) {
      if (!a.is_copy)
        report.kernel_ns += static_cast<double>(a.end_ns - std::min(a.end_ns, a.start_ns));
    }
    report.site_of_activity.assign(activities.size(), -1);
    return report;
  }

  // The samples each (thread, group), and each group on any thread, were taken at.
  std::vector<int64_t> own(activities.size(), -1);
  std::map<std::pair<uint32_t, uint32_t>, std::map<size_t, uint64_t>> by_thread_group;
  std::map<uint32_t, std::map<size_t, uint64_t>> by_group;
  for (size_t i = 0; i < activities.size(); ++i) {
    const TimedActivity& a = activities[i];
    if (a.is_copy || a.correlation == 0) continue;
    const auto sample = sample_of_.find(a.correlation);
    if (sample == sample_of_.end()) continue;
    const size_t r = ResolveSample(log_.samples[sample->second], a.thread);
    own[i] = static_cast<int64_t>(r);
    ++by_thread_group[{a.thread, a.group}][r];
    if (!resolutions_[r].thread_bound) ++by_group[a.group][r];
  }

  // Where each kernel's time goes, and on what basis.
  enum Basis : uint8_t { kOwnSample, kShared, kNothing };
  std::vector<Share> shares(activities.size());
  std::vector<uint8_t> basis(activities.size(), kNothing);
  for (size_t i = 0; i < activities.size(); ++i) {
    const TimedActivity& a = activities[i];
    if (a.is_copy) continue;
    if (own[i] >= 0) {
      shares[i] = {{static_cast<size_t>(own[i]), 1.0}};
      basis[i] = kOwnSample;
      continue;
    }
    const auto on_thread = by_thread_group.find({a.thread, a.group});
    const auto anywhere = by_group.find(a.group);
    if (on_thread != by_thread_group.end()) {
      shares[i] = Proportional(on_thread->second);
    } else if (anywhere != by_group.end() && !WithoutPython(a.thread)) {
      // Not for threads without Python: another thread's lines are not what they ran.
      shares[i] = Proportional(anywhere->second);
    }
    if (!shares[i].empty()) {
      basis[i] = kShared;
    } else {
      shares[i] = {{NoSampleResolution(a.thread), 1.0}};
    }
  }
  if (ranges_) TieBackward(shares, report);

  std::vector<int64_t> site_of(activities.size(), -1);
  for (size_t i = 0; i < activities.size(); ++i) {
    const TimedActivity& a = activities[i];
    if (a.is_copy) continue;
    const double ns = static_cast<double>(a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0);
    report.kernel_ns += ns;
    if (basis[i] == kOwnSample) report.sampled_ns += ns;
    if (basis[i] == kShared) report.estimated_ns += ns;
    double best = -1;
    for (const auto& [r, weight] : shares[i]) {
      Credit(a, r, weight, basis[i] == kOwnSample);
      if (weight > best) best = weight, site_of[i] = static_cast<int64_t>(resolutions_[r].site);
    }
  }

  // Each site keeps the full stack that carried most of its time.
  std::vector<const Resolution*> heaviest(sites_.size(), nullptr);
  for (const Resolution& r : resolutions_) {
    if (!heaviest[r.site] || r.gpu_ns > heaviest[r.site]->gpu_ns) heaviest[r.site] = &r;
  }
  std::vector<size_t> order(sites_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sites_[a].site.gpu_ns > sites_[b].site.gpu_ns;
  });
  std::vector<int32_t> rank(sites_.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t s = order[i];
    rank[s] = static_cast<int32_t>(i);
    CallSite site = std::move(sites_[s].site);
    if (heaviest[s]) site.stack = heaviest[s]->stack;
    site.share = report.kernel_ns > 0 ? site.gpu_ns / report.kernel_ns : 0;
    for (auto& [group, kernel] : sites_[s].kernels) site.kernels.push_back(kernel);
    std::stable_sort(
        site.kernels.begin(), site.kernels.end(),
        [](const CallSiteKernel& a, const CallSiteKernel& b) { return a.gpu_ns > b.gpu_ns; });
    if (site.kernels.size() > options_.top_kernels) site.kernels.resize(options_.top_kernels);
    report.sites.push_back(std::move(site));
  }
  report.site_of_activity.reserve(site_of.size());
  for (const int64_t s : site_of) {
    report.site_of_activity.push_back(s < 0 ? -1 : rank[static_cast<size_t>(s)]);
  }
  for (StackTime& time : stack_times_) {
    time.site = rank[static_cast<size_t>(time.site)];
  }
  std::stable_sort(stack_times_.begin(), stack_times_.end(),
                   [](const StackTime& a, const StackTime& b) { return a.gpu_ns > b.gpu_ns; });
  if (stack_times_.size() > kMaxStackTimes) stack_times_.resize(kMaxStackTimes);
  report.stacks = std::move(stack_times_);
  return report;
}

}  // namespace

CallSiteReport AnalyzeCallSites(const CallSiteLog& log, const TraceAnalysis& run,
                                const CallSiteOptions& options, const RangeLog* ranges) {
  return Attribution(log, run, options, ranges).Run();
}

}  // namespace flopspy::analyzers
