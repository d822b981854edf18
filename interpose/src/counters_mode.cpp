#include "counters_mode.h"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <exception>
#include <nlohmann/json.hpp>
#include <span>

#include "clock.h"
#include "driver_probe.h"
#include "log.h"
#include "recorder.h"

namespace flopspy::interpose {
namespace {

constexpr char kCatalogOnly[] = "; FLOPs from the catalog only";

// Kernel replay re-runs a kernel once per pass; a collective kernel would wait for peers that run
// it once: never measured.
bool NeverMeasured(const std::string& mangled_name) {
  return mangled_name.find("nccl") != std::string::npos;
}

analyzers::ParamLayout CatalogLayout(const interpose::ParamLayout& layout) {
  analyzers::ParamLayout out;
  out.count = std::min<int>(layout.known, trace::kMaxParamLayout);
  for (int i = 0; i < out.count; ++i) out.slots[i] = {layout.offset[i], layout.size[i]};
  return out;
}

std::mutex g_process_mutex;
std::atomic<CounterMode*> g_process{nullptr};

}  // namespace

CounterEnvironment CounterEnvironment::Production() {
  CounterEnvironment e;
  e.loaded_driver = [] { return LoadedDriver(); };
  e.locate = [](std::string_view configured) { return LocateCupti(configured); };
  e.resolve = [](void* cupti, void* driver, CounterApi* api) {
    ResolveCounterApi(cupti, driver, api);
  };
  e.timing_state = [](std::string* reason) {
    const CuptiSession* session = CuptiSession::Process();
    if (session == nullptr) {
      *reason = "GPU timing never started";
      return CuptiState::kUnavailable;
    }
    const CuptiState state = session->state();
    if (state == CuptiState::kUnavailable) *reason = session->reason();
    return state;
  };
  e.report = [](std::string_view key, trace::WarningCode code, std::string_view message) {
    ReportOnce(key, code, message);
  };
  e.metadata = [](std::string json) {
    if (Recorder* r = Recorder::Get()) r->AddMetadata(std::move(json));
  };
  e.emit = [](const RawKernelMetrics& raw) { EmitBytes(&raw, sizeof(raw)); };
  // The flusher's catalogue step, not its writes: a stuck file costs one wait per process.
  e.catalog = [] {
    if (Recorder* r = Recorder::Get()) r->CatalogueNow(100);
  };
  return e;
}

CounterMode::CounterMode(CounterOptions options, CounterEnvironment environment)
    : options_(std::move(options)), env_(std::move(environment)), sampler_(options_.samples) {}

CounterMode::~CounterMode() {
  if (profiler_ && TryMeasure()) profiler_->DisableAll();
}

CounterMode* CounterMode::Process() {
  if (process_state_.load(std::memory_order_acquire) == kProcessOff) return nullptr;
  if (CounterMode* mode = g_process.load(std::memory_order_acquire)) return mode;
  const Recorder* recorder = Recorder::Get();
  if (recorder == nullptr || !recorder->config().counters) {
    process_state_.store(kProcessOff, std::memory_order_release);
    return nullptr;
  }
  std::lock_guard lock(g_process_mutex);
  if (CounterMode* mode = g_process.load(std::memory_order_acquire)) return mode;
  const Config& c = recorder->config();
  CounterOptions options;
  options.samples = c.counters_samples;
  options.groups = c.counters_groups;
  options.grouping = c.counters_replay == CountersReplay::kLaunches
                         ? gpuroof::PassGrouping::kOnePass
                         : gpuroof::PassGrouping::kReplayed;
  options.timing_off = c.gpu_timing == GpuTiming::kOff;
  options.cupti_path = c.cupti_path;
  // CUDA does not carry over fork(): a child never measures.
  pthread_atfork(nullptr, nullptr,
                 [] { process_state_.store(kProcessOff, std::memory_order_relaxed); });
  // Never destroyed: launches may come while the process exits.
  auto* mode = new CounterMode(std::move(options), CounterEnvironment::Production());
  g_process.store(mode, std::memory_order_release);
  Recorder::Get()->SetFinalMetadata([]() -> std::string {
    try {
      const CounterMode* m = g_process.load(std::memory_order_acquire);
      if (m == nullptr) return "";
      const Cost spent = m->cost();
      return spent.samples + spent.abandoned > 0 ? m->CostJson() : "";
    } catch (...) {
      return "";  // a bad_alloc at exit: the cost is left out
    }
  });
  process_state_.store(kProcessOn, std::memory_order_release);
  return mode;
}

void CounterMode::TurnOff(const std::string& reason, bool permission) {
  if (off_.exchange(true, std::memory_order_acq_rel)) return;
  if (g_process.load(std::memory_order_acquire) == this) {
    process_state_.store(kProcessOff, std::memory_order_release);
  }
  const std::string line = permission ? "GPU counters need profiling permission (" + reason +
                                            "; run as root or load the NVIDIA driver with "
                                            "NVreg_RestrictProfilingToAdminUsers=0)" +
                                            kCatalogOnly
                                      : "GPU counters unavailable: " + reason + kCatalogOnly;
  env_.report("gpu-counters", trace::WarningCode::kCountersUnavailable, line);
  nlohmann::json j;
  j["gpu_counters"] = {{"available", false},
                       {"reason", reason},
                       {"permission", permission},
                       {"measured_launches", measured()}};
  env_.metadata(j.dump());
}

bool CounterMode::Ready() {
  if (off()) return false;
  if (started_.load(std::memory_order_acquire)) return true;
  std::lock_guard lock(state_mutex_);
  if (started_.load(std::memory_order_relaxed)) return true;
  // The GPU-timing session settles first: it finds the driver and CUPTI, and if another tool
  // holds CUPTI (nsys, ncu, a running torch.profiler) counters leave it alone too.
  std::string why;
  switch (env_.timing_state(&why)) {
    case CuptiState::kNotStarted:
    case CuptiState::kStarting:
      return false;  // not yet: this launch runs untouched
    case CuptiState::kStopped:
      TurnOff("the trace is already finished", false);
      return false;
    case CuptiState::kUnavailable:
      if (!options_.timing_off) {
        TurnOff("CUPTI is unavailable (" + why + ")", false);
        return false;
      }
      break;  // GPU timing is off by choice: counters check the driver themselves
    case CuptiState::kActive:
      break;
  }
  void* driver = env_.loaded_driver();
  if (driver == nullptr) {
    if (driver_waits_++ < options_.max_driver_waits) return false;
    TurnOff("no CUDA driver is loaded (libcuda.so.1)", false);
    return false;
  }
  const CuptiLibrary library = env_.locate(options_.cupti_path);
  if (library.handle == nullptr) {
    TurnOff(library.error.empty() ? "no libcupti found" : library.error, false);
    return false;
  }
  CounterApi api;
  env_.resolve(library.handle, driver, &api);
  if (const std::string missing = api.MissingDriver(); !missing.empty()) {
    TurnOff("the loaded libcuda.so.1 lacks " + missing, false);
    return false;
  }
  if (const std::string missing = api.MissingCupti(); !missing.empty()) {
    TurnOff(
        library.path + " lacks " + missing + " (the CUPTI range profiler needs CUDA 12.6 or newer)",
        false);
    return false;
  }
  // Device-side CUPTI only over a working driver (docs/cuda-notes.md, "CUPTI without a driver").
  if (const DriverProbe probe = ProbeDriver(api.cuInit, api.cuDeviceGetCount); !probe.ok()) {
    TurnOff(probe.failure, false);
    return false;
  }
  profiler_ = std::make_unique<CounterProfiler>(std::move(api), options_.groups, options_.grouping);
  started_.store(true, std::memory_order_release);
  return true;
}

// Kernels the catalog knows run no tensor-core instructions (ATen's elementwise, reduction,
// softmax, norm, index, copy and optimizer loops): their samples skip the tensor-path groups.
// Listed one by one (no default): a family added later is measured in full until placed here.
bool MayUseTensorCores(analyzers::KernelFamily family) {
  using analyzers::KernelFamily;
  switch (family) {
    case KernelFamily::kElementwiseVectorized:
    case KernelFamily::kElementwiseUnrolled:
    case KernelFamily::kElementwiseLegacy:
    case KernelFamily::kReduce:
    case KernelFamily::kSoftmax:
    case KernelFamily::kLayerNorm:
    case KernelFamily::kIndex:
    case KernelFamily::kCat:
    case KernelFamily::kCopy:
    case KernelFamily::kFill:
    case KernelFamily::kMultiTensorApply:
      return false;
    case KernelFamily::kUnknown:
    case KernelFamily::kTriton:
    case KernelFamily::kDemo:
    case KernelFamily::kAttention:
    case KernelFamily::kCount:
      return true;
  }
  return true;
}

const analyzers::KernelClass* CounterMode::ClassOf(const FunctionInfo& function) {
  const analyzers::KernelClass* kernel_class =
      function.kernel_class.load(std::memory_order_acquire);
  if (kernel_class == nullptr && env_.catalog &&
      !function.catalog_requested.exchange(true, std::memory_order_acq_rel)) {
    env_.catalog();
    kernel_class = function.kernel_class.load(std::memory_order_acquire);
  }
  return kernel_class;
}

namespace {

uint64_t SignatureKey(const gpuroof::CounterSignature& s) {
  return KeyHash()
      .Add(s.function)
      .Add(s.grid)
      .Add(s.block)
      .Add(s.cluster)
      .Add(s.dynamic_smem)
      .Add(s.shape_key.data(), s.shape_key.size())
      .value();
}

}  // namespace

bool CounterMode::SignatureOf(const Launch& launch, Ticket* ticket, bool* tensor_capable) {
  const FunctionInfo* f = launch.function;
  if (f == nullptr || f->id == 0 || launch.shape == nullptr) return false;
  if (NeverMeasured(f->mangled_name)) return false;
  const analyzers::KernelClass* kernel_class = ClassOf(*f);
  if (kernel_class == nullptr) return false;  // not catalogued yet: a later launch is measured
  const LaunchShape& shape = *launch.shape;
  // The catalog's shape parameters, from the same parameter bytes the launch record keeps, so
  // that the report's kernel groups and the sampled signatures are the same.
  uint8_t params[trace::kInlineParamBytes + trace::kExtraParamBytes];
  const uint32_t wanted =
      std::min<uint32_t>(f->wanted_param_bytes.load(std::memory_order_relaxed), UINT8_MAX);
  bool truncated = false;
  const uint32_t n = CopyParams(f, launch.params, wanted, params, &truncated);
  // The signature is a function of these: a launch seen complete before needs nothing more.
  const uint64_t launch_key = KeyHash()
                                  .Add(f->id)
                                  .Add(shape.grid)
                                  .Add(shape.block)
                                  .Add(shape.cluster)
                                  .Add(shape.dynamic_smem)
                                  .Add(params, n)
                                  .value();
  if (complete_launches_.Contains(launch_key)) return false;
  gpuroof::CounterSignature& signature = ticket->signature;
  signature.function = f->id;
  std::copy(std::begin(shape.grid), std::end(shape.grid), signature.grid.begin());
  std::copy(std::begin(shape.block), std::end(shape.block), signature.block.begin());
  std::copy(std::begin(shape.cluster), std::end(shape.cluster), signature.cluster.begin());
  signature.dynamic_smem = shape.dynamic_smem;
  analyzers::LaunchFacts facts;
  facts.params = std::span<const uint8_t>(params, n);
  facts.layout = CatalogLayout(f->layout);
  facts.grid = {shape.grid[0], shape.grid[1], shape.grid[2]};
  facts.block = {shape.block[0], shape.block[1], shape.block[2]};
  signature.shape_key = analyzers::EstimateKernel(*kernel_class, facts).shape_key;
  if (complete_signatures_.Contains(SignatureKey(signature))) {
    complete_launches_.Insert(launch_key);
    return false;
  }
  if (sampler_.Finished(signature)) return false;  // samples still being measured, or untracked
  ticket->kernel_class = kernel_class;
  *tensor_capable = MayUseTensorCores(kernel_class->family);
  return true;
}

void CounterMode::NoteContexts() {
  std::vector<CounterContextInfo>& fresh = profiler_->new_contexts();
  for (const CounterContextInfo& info : fresh) {
    nlohmann::json j;
    j["gpu_counters"] = {
        {"available", true},
        {"source", options_.grouping == gpuroof::PassGrouping::kOnePass
                       ? "CUPTI range profiler, auto range, one one-pass group "
                         "of metrics per launch"
                       : "CUPTI range profiler, auto range, kernel replay"},
        {"replay", options_.grouping == gpuroof::PassGrouping::kOnePass ? "launches" : "kernel"},
        {"samples_per_signature", options_.samples},
        {"groups", gpuroof::CounterGroupsText(options_.groups)},
        {"chip", info.chip},
        {"metrics", info.metrics},
        {"passes", info.passes},
        {"pass_groups", info.pass_groups},
        {"non_tensor_groups", info.non_tensor_groups},
        {"notes", info.notes}};
    env_.metadata(j.dump());
  }
  fresh.clear();
}

CounterMode::GiveUpOnThrow::~GiveUpOnThrow() {
  if (!armed) return;
  mode->profiler_->Cancel();
  try {
    mode->sampler_.Abandon(ticket->signature, ticket->slot);
  } catch (...) {  // the slot stays claimed: one sample fewer
  }
  mode->DoneMeasuring();
}

void CounterMode::Begin(const Launch& launch, Ticket* ticket) {
  if (off() || !Ready()) return;
  bool tensor_capable = true;
  if (!SignatureOf(launch, ticket, &tensor_capable)) return;  // enough samples: run untouched
  // One measurement at a time; another thread's launch being measured: a later launch will do.
  if (!TryMeasure()) return;
  GiveUpOnThrow give_up{this, ticket};
  std::string skip;
  const uint64_t setup_start = NowNs();
  CounterStep step = CounterStep::kSkipped;
  uint32_t configured_group = 0;
  const uint64_t switches_before = profiler_->switches();
  const gpuroof::CounterPlan* plan =
      profiler_->CurrentPlan(reinterpret_cast<CUstream>(launch.shape->stream),
                             launch.shape->per_thread_stream, &step, &skip, &configured_group);
  // No group for this kernel (FLOPSPY_COUNTERS_METRICS=tensor, a kernel without tensor paths):
  // nothing to measure.
  if (plan != nullptr && plan->GroupsFor(tensor_capable) > 0) {
    std::array<uint32_t, gpuroof::CounterSampler::kMaxGroups> layout{};
    const size_t groups =
        std::min(plan->GroupsFor(tensor_capable), gpuroof::CounterSampler::kMaxGroups);
    for (size_t g = 0; g < groups; ++g) layout[g] = plan->groups[g].quantities;
    // The group the profiler is set for, while this signature needs it: a switch costs.
    ticket->slot =
        sampler_.Claim(ticket->signature, std::span(layout.data(), groups), configured_group);
    step = ticket->slot
               ? profiler_->Before(reinterpret_cast<CUstream>(launch.shape->stream),
                                   launch.shape->per_thread_stream, ticket->slot.group, &skip)
               : CounterStep::kSkipped;
  }
  const uint64_t setup_end = NowNs();
  // The first launch in a context also plans its metrics and enables the profiler there.
  AddCost(profiler_->new_contexts().empty() ? cost_.setup_ns : cost_.context_setup_ns,
          setup_end - setup_start);
  if (const uint64_t switched = profiler_->switches() - switches_before; switched > 0) {
    AddCost(cost_.switches, switched);
    AddCost(cost_.switch_setup_ns, setup_end - setup_start);
  }
  NoteContexts();
  if (step == CounterStep::kMeasured) {
    ticket->setup_start_ns = setup_start;
    ticket->launch_start_ns = setup_end;
    ticket->measuring = true;  // measuring_ stays set until End
    ticket->record.record.correlation = launch.correlation;
    ticket->record.function = launch.function->id;
    std::copy(std::begin(launch.shape->grid), std::end(launch.shape->grid), ticket->record.grid);
    std::copy(std::begin(launch.shape->block), std::end(launch.shape->block), ticket->record.block);
    std::copy(std::begin(launch.shape->cluster), std::end(launch.shape->cluster),
              ticket->record.cluster);
    ticket->record.dynamic_smem = launch.shape->dynamic_smem;
    give_up.armed = false;
    return;
  }
  const CounterFailure failure = profiler_->failure();
  give_up.armed = false;
  DoneMeasuring();
  sampler_.Abandon(ticket->signature, ticket->slot);
  if (step == CounterStep::kFailed) TurnOff(failure.reason, failure.permission);
}

void CounterMode::End(Ticket* ticket, int result) {
  if (!ticket->measuring) return;
  ticket->measuring = false;
  GiveUpOnThrow give_up{this, ticket};
  CounterMeasurement m;
  std::string skip;
  const uint64_t readout_start = NowNs();
  const CounterStep step = profiler_->After(result, &m, &skip);
  const uint64_t readout_end = NowNs();
  const CounterFailure failure = profiler_->failure();
  AddCost(cost_.launch_ns, readout_start - ticket->launch_start_ns);
  AddCost(cost_.readout_ns, readout_end - readout_start);
  const uint64_t sample_ns = readout_end - ticket->setup_start_ns;
  if (sample_ns > cost_.max_sample_ns.load(std::memory_order_relaxed)) {
    cost_.max_sample_ns.store(sample_ns, std::memory_order_relaxed);  // one measurer at a time
  }
  AddCost(step == CounterStep::kMeasured ? cost_.samples : cost_.abandoned, 1);
  give_up.armed = false;
  DoneMeasuring();
  if (step != CounterStep::kMeasured) {
    sampler_.Abandon(ticket->signature, ticket->slot);
    if (step == CounterStep::kFailed) TurnOff(failure.reason, failure.permission);
    return;
  }
  // The record carries the sample so far (its groups measured up to this launch); the report
  // keeps the fullest record of each sample.
  const gpuroof::CounterSampler::Recorded recorded =
      sampler_.Record(ticket->signature, ticket->slot, m.values);
  const uint64_t correlation = ticket->record.record.correlation;
  ticket->record.record = gpuroof::ToMetricsRecord(
      recorded.sample, static_cast<uint16_t>(std::min<uint32_t>(ticket->slot.sample, UINT16_MAX)),
      m.passes);
  ticket->record.record.correlation = correlation;
  if (!recorded.sample_complete) ticket->record.record.valid |= trace::kMetricsPartialSample;
  if (recorded.complete) complete_signatures_.Insert(SignatureKey(ticket->signature));
  ticket->record.Seal();
  ticket->has_record = true;
  measured_.fetch_add(1, std::memory_order_relaxed);
  if (recorded.disagree && !disagree_reported_.exchange(true, std::memory_order_acq_rel)) {
    const std::string kernel = ticket->kernel_class != nullptr ? ticket->kernel_class->kernel : "";
    env_.report(
        "gpu-counters-disagree", trace::WarningCode::kGeneric,
        "GPU counter samples of " + (kernel.empty() ? "a kernel" : kernel) + " disagree by " +
            std::to_string(static_cast<int>(recorded.spread * 100 + 0.5)) + "% in " +
            recorded.what + " over " + std::to_string(recorded.samples) +
            " samples of one signature; the report uses their mean (said once; the report marks "
            "every such kernel)");
  }
}

CounterMode::Cost CounterMode::cost() const {
  Cost c;
  c.samples = cost_.samples.load(std::memory_order_relaxed);
  c.abandoned = cost_.abandoned.load(std::memory_order_relaxed);
  c.context_setup_ns = cost_.context_setup_ns.load(std::memory_order_relaxed);
  c.setup_ns = cost_.setup_ns.load(std::memory_order_relaxed);
  c.launch_ns = cost_.launch_ns.load(std::memory_order_relaxed);
  c.readout_ns = cost_.readout_ns.load(std::memory_order_relaxed);
  c.max_sample_ns = cost_.max_sample_ns.load(std::memory_order_relaxed);
  c.switches = cost_.switches.load(std::memory_order_relaxed);
  c.switch_setup_ns = cost_.switch_setup_ns.load(std::memory_order_relaxed);
  return c;
}

std::string CounterMode::CostJson() const {
  const Cost c = cost();
  nlohmann::json j;
  j["gpu_counters_cost"] = {{"samples", c.samples},
                            {"abandoned", c.abandoned},
                            {"context_setup_ns", c.context_setup_ns},
                            {"setup_ns", c.setup_ns},
                            {"launch_ns", c.launch_ns},
                            {"readout_ns", c.readout_ns},
                            {"max_sample_ns", c.max_sample_ns},
                            {"switches", c.switches},
                            {"switch_setup_ns", c.switch_setup_ns}};
  return j.dump();
}

void CounterMode::Emit(Ticket* ticket) {
  if (!ticket->has_record) return;
  ticket->has_record = false;
  env_.emit(ticket->record);
}

// --- CounterLaunch -----------------------------------------------------------------------------

void CounterLaunch::BeginSlow() noexcept {
  try {
    CounterMode* mode = CounterMode::Process();
    if (mode == nullptr) return;
    ticket_.emplace();
    mode->Begin(launch_, &*ticket_);
    if (ticket_->measuring) {
      mode_ = mode;
    } else {
      ticket_.reset();
    }
  } catch (const std::exception& e) {
    ReportOnce("gpu-counters-internal", trace::WarningCode::kInternalError,
               std::string("internal error in counter mode: ") + e.what());
  } catch (...) {
    ReportOnce("gpu-counters-internal", trace::WarningCode::kInternalError,
               "internal error in counter mode");
  }
}

void CounterLaunch::EndSlow(int result) noexcept {
  try {
    mode_->End(&*ticket_, result);
  } catch (...) {
    ReportOnce("gpu-counters-internal", trace::WarningCode::kInternalError,
               "internal error in counter mode");
  }
}

void CounterLaunch::Finish() noexcept {
  try {
    if (ticket_->measuring) mode_->End(&*ticket_, -1);  // End was never reached: stop profiling
    mode_->Emit(&*ticket_);
  } catch (...) {
    ReportOnce("gpu-counters-internal", trace::WarningCode::kInternalError,
               "internal error in counter mode");
  }
}

}  // namespace flopspy::interpose
