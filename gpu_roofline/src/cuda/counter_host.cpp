#include "flopspy/gpu_roofline/counter_host.h"

#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>

#include <algorithm>
#include <set>

namespace flopspy::gpuroof {

struct HostProfiler::Impl {
  decltype(&::cuptiProfilerHostInitialize) initialize = nullptr;
  decltype(&::cuptiProfilerHostDeinitialize) deinitialize = nullptr;
  decltype(&::cuptiProfilerHostGetBaseMetrics) base_metrics = nullptr;
  decltype(&::cuptiProfilerHostConfigAddMetrics) add_metrics = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImageSize) config_size = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImage) config_image = nullptr;
  decltype(&::cuptiProfilerHostGetNumOfPasses) passes = nullptr;
  decltype(&::cuptiProfilerHostEvaluateToGpuValues) evaluate = nullptr;
  decltype(&::cuptiRangeProfilerGetCounterDataInfo) data_info = nullptr;
  decltype(&::cuptiGetResultString) result_string = nullptr;  // optional

  std::string chip;
  CUpti_Profiler_Host_Object* object = nullptr;
  bool configured = false;
  std::vector<MetricTerm> terms;
  std::vector<uint8_t> image;
  size_t pass_count = 0;

  std::string Error(const char* call, CUptiResult rc) const {
    const char* text = nullptr;
    if (result_string == nullptr || result_string(rc, &text) != CUPTI_SUCCESS) text = nullptr;
    return std::string(call) + " failed: " + (text != nullptr ? text : "CUPTI error") + " (" +
           std::to_string(static_cast<int>(rc)) + ")";
  }
};

namespace {

// A CUPTI parameter struct: zeroed, with its size set.
template <class T>
T Params(size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}

template <class F>
bool Resolve(const CuptiSymbolLookup& lookup, const char* name, F& out, std::string* missing) {
  out = reinterpret_cast<F>(lookup(name));
  if (out != nullptr) return true;
  if (!missing->empty()) *missing += ", ";
  *missing += name;
  return false;
}

}  // namespace

HostProfiler::HostProfiler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HostProfiler::~HostProfiler() {
  if (impl_ && impl_->object != nullptr) {
    auto p = Params<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = impl_->object;
    impl_->deinitialize(&p);
  }
}

std::unique_ptr<HostProfiler> HostProfiler::Create(const CuptiSymbolLookup& lookup,
                                                   std::string_view chip,
                                                   std::span<const uint8_t> availability,
                                                   std::string* error) {
  auto impl = std::make_unique<Impl>();
  std::string missing;
  Resolve(lookup, "cuptiProfilerHostInitialize", impl->initialize, &missing);
  Resolve(lookup, "cuptiProfilerHostDeinitialize", impl->deinitialize, &missing);
  Resolve(lookup, "cuptiProfilerHostGetBaseMetrics", impl->base_metrics, &missing);
  Resolve(lookup, "cuptiProfilerHostConfigAddMetrics", impl->add_metrics, &missing);
  Resolve(lookup, "cuptiProfilerHostGetConfigImageSize", impl->config_size, &missing);
  Resolve(lookup, "cuptiProfilerHostGetConfigImage", impl->config_image, &missing);
  Resolve(lookup, "cuptiProfilerHostGetNumOfPasses", impl->passes, &missing);
  Resolve(lookup, "cuptiProfilerHostEvaluateToGpuValues", impl->evaluate, &missing);
  Resolve(lookup, "cuptiRangeProfilerGetCounterDataInfo", impl->data_info, &missing);
  impl->result_string =
      reinterpret_cast<decltype(impl->result_string)>(lookup("cuptiGetResultString"));
  if (!missing.empty()) {
    *error = "CUPTI lacks the profiler host API (" + missing + "; CUDA 12.6 or newer has it)";
    return nullptr;
  }
  impl->chip = std::string(chip);
  auto p = Params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = impl->chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  const CUptiResult rc = impl->initialize(&p);
  if (rc != CUPTI_SUCCESS || p.pHostObject == nullptr) {
    *error = impl->Error("cuptiProfilerHostInitialize", rc) + " for chip " + impl->chip;
    return nullptr;
  }
  impl->object = p.pHostObject;
  return std::unique_ptr<HostProfiler>(new HostProfiler(std::move(impl)));
}

const std::string& HostProfiler::chip() const {
  return impl_->chip;
}

std::vector<std::string> HostProfiler::CounterMetrics(std::string* error) const {
  auto p = Params<CUpti_Profiler_Host_GetBaseMetrics_Params>(
      CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
  p.pHostObject = impl_->object;
  p.metricType = CUPTI_METRIC_TYPE_COUNTER;
  const CUptiResult rc = impl_->base_metrics(&p);
  std::vector<std::string> names;
  if (rc != CUPTI_SUCCESS) {
    *error = impl_->Error("cuptiProfilerHostGetBaseMetrics", rc);
    return names;
  }
  for (size_t i = 0; i < p.numMetrics && p.ppMetricNames != nullptr; ++i) {
    if (p.ppMetricNames[i] != nullptr) names.emplace_back(p.ppMetricNames[i]);
  }
  return names;
}

bool HostProfiler::Configure(std::span<const MetricTerm> terms, std::string* error) {
  Impl& m = *impl_;
  if (m.configured) {
    *error = "the profiler host object is already configured";
    return false;
  }
  if (terms.empty()) {
    *error = "no metrics to configure";
    return false;
  }
  m.terms.assign(terms.begin(), terms.end());
  std::vector<const char*> names = MetricNames(m.terms);
  auto add = Params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = m.object;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  CUptiResult rc = m.add_metrics(&add);
  if (rc != CUPTI_SUCCESS) {
    *error = m.Error("cuptiProfilerHostConfigAddMetrics", rc);
    return false;
  }
  auto size = Params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = m.object;
  rc = m.config_size(&size);
  if (rc != CUPTI_SUCCESS || size.configImageSize == 0) {
    *error = m.Error("cuptiProfilerHostGetConfigImageSize", rc);
    return false;
  }
  m.image.assign(size.configImageSize, 0);
  auto image = Params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = m.object;
  image.configImageSize = m.image.size();
  image.pConfigImage = m.image.data();
  rc = m.config_image(&image);
  if (rc != CUPTI_SUCCESS) {
    *error = m.Error("cuptiProfilerHostGetConfigImage", rc);
    return false;
  }
  auto passes = Params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = m.image.size();
  passes.pConfigImage = m.image.data();
  rc = m.passes(&passes);
  if (rc != CUPTI_SUCCESS || passes.numOfPasses == 0) {
    *error = m.Error("cuptiProfilerHostGetNumOfPasses", rc);
    return false;
  }
  m.pass_count = passes.numOfPasses;
  m.configured = true;
  return true;
}

const std::vector<uint8_t>& HostProfiler::config_image() const {
  return impl_->image;
}

size_t HostProfiler::passes() const {
  return impl_->pass_count;
}

const std::vector<MetricTerm>& HostProfiler::terms() const {
  return impl_->terms;
}

bool HostProfiler::Evaluate(std::span<const uint8_t> counter_data, size_t range,
                            std::vector<double>* values, std::string* error) const {
  const Impl& m = *impl_;
  if (!m.configured) {
    *error = "the profiler host object has no metrics";
    return false;
  }
  if (counter_data.empty()) {
    *error = "the counter data image is empty";
    return false;
  }
  std::vector<const char*> names = MetricNames(m.terms);
  values->assign(names.size(), 0.0);
  auto p = Params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  p.pHostObject = m.object;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values->data();
  const CUptiResult rc = m.evaluate(&p);
  if (rc != CUPTI_SUCCESS) {
    *error = m.Error("cuptiProfilerHostEvaluateToGpuValues", rc);
    return false;
  }
  return true;
}

bool HostProfiler::RangeCount(std::span<const uint8_t> counter_data, size_t* ranges,
                              std::string* error) const {
  const Impl& m = *impl_;
  if (counter_data.empty()) {
    *error = "the counter data image is empty";
    return false;
  }
  auto p = Params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  const CUptiResult rc = m.data_info(&p);
  if (rc != CUPTI_SUCCESS) {
    *error = m.Error("cuptiRangeProfilerGetCounterDataInfo", rc);
    return false;
  }
  *ranges = p.numTotalRanges;
  return true;
}

namespace {

// Packs terms into groups that each need one replay pass, first fit in the given order. A term
// that alone needs more passes gets a group of its own. `optional` terms that fit nowhere are
// returned in `left_out` instead of opening a group.
struct Packer {
  const CuptiSymbolLookup& lookup;
  std::string_view chip;
  std::span<const uint8_t> availability;

  std::unique_ptr<HostProfiler> Build(const std::vector<MetricTerm>& terms, std::string* error) {
    std::unique_ptr<HostProfiler> host = HostProfiler::Create(lookup, chip, availability, error);
    if (!host || !host->Configure(terms, error)) return nullptr;
    return host;
  }

  // Terms join groups from `first` on.
  bool Pack(std::span<const MetricTerm> terms, size_t first, bool tensor, bool optional,
            std::vector<PassGroup>* groups, std::vector<std::vector<MetricTerm>>* members,
            std::vector<std::string>* left_out, std::string* error) {
    for (const MetricTerm& term : terms) {
      bool placed = false;
      for (size_t g = first; g < groups->size() && !placed; ++g) {
        if ((*groups)[g].passes != 1) continue;
        std::vector<MetricTerm> with = (*members)[g];
        with.push_back(term);
        std::string trial_error;
        std::unique_ptr<HostProfiler> host = Build(with, &trial_error);
        if (host && host->passes() == 1) {
          (*groups)[g].host = std::move(host);
          (*groups)[g].quantities |= ValidBitOf(term.quantity);
          (*members)[g] = std::move(with);
          placed = true;
        }
      }
      if (placed) continue;
      if (optional) {
        left_out->push_back(term.name);
        continue;
      }
      std::unique_ptr<HostProfiler> host = Build({term}, error);
      if (!host) return false;
      PassGroup group;
      group.passes = host->passes();
      group.host = std::move(host);
      group.quantities = ValidBitOf(term.quantity);
      group.tensor = tensor;
      groups->push_back(std::move(group));
      members->push_back({term});
    }
    return true;
  }
};

// Every metric in one configuration, replayed as many passes as it needs; L2 only if it adds
// no pass (`l2` empty: not wanted or not on the chip).
bool PlanOneGroup(const CuptiSymbolLookup& lookup, std::string_view chip,
                  std::span<const uint8_t> availability, const std::vector<MetricTerm>& terms,
                  const std::vector<MetricTerm>& l2, CounterPlan* plan, std::string* error) {
  PassGroup group;
  group.host = HostProfiler::Create(lookup, chip, availability, error);
  if (!group.host || !group.host->Configure(terms, error)) return false;
  group.passes = group.host->passes();
  if (!l2.empty()) {
    std::vector<MetricTerm> with = terms;
    with.insert(with.end(), l2.begin(), l2.end());
    std::string l2_error;
    auto host = HostProfiler::Create(lookup, chip, availability, &l2_error);
    if (host && host->Configure(with, &l2_error) && host->passes() <= group.passes) {
      group.host = std::move(host);
    } else if (host && l2_error.empty()) {
      plan->notes.push_back(l2.front().name + " left out: " + std::to_string(host->passes()) +
                            " passes instead of " + std::to_string(group.passes));
    } else {
      plan->notes.push_back(l2.front().name + " left out: " + l2_error);
    }
  }
  for (const MetricTerm& t : group.host->terms()) group.quantities |= ValidBitOf(t.quantity);
  plan->passes = group.passes;
  plan->groups.push_back(std::move(group));
  plan->non_tensor_groups = 1;  // the one group is measured for every kernel
  return true;
}

}  // namespace

std::optional<CounterPlan> PlanCounters(const CuptiSymbolLookup& lookup, std::string_view chip,
                                        std::span<const uint8_t> availability, uint32_t groups,
                                        PassGrouping grouping, std::string* error) {
  CounterPlan plan;
  plan.chip = std::string(chip);
  plan.family = ChipFamilyOf(chip);
  std::unique_ptr<HostProfiler> probe = HostProfiler::Create(lookup, chip, availability, error);
  if (!probe) return std::nullopt;
  const std::vector<std::string> listed = probe->CounterMetrics(error);
  if (listed.empty()) {
    if (error->empty()) *error = "CUPTI lists no counter metrics for chip " + plan.chip;
    return std::nullopt;
  }
  const std::set<std::string, std::less<>> available(listed.begin(), listed.end());
  const auto has = [&](std::string_view name) { return available.contains(name); };

  if (plan.family == ChipFamily::kUnknown && (groups & kCounterTensor)) {
    plan.notes.push_back("tensor metrics are not known for chip " + plan.chip);
  }
  const MetricSelection selected =
      SelectMetrics(CounterCandidates(plan.family, groups & ~kCounterL2), has);
  for (const std::string& name : selected.missing) {
    plan.notes.push_back(name + " does not exist on chip " + plan.chip);
  }
  if (selected.terms.empty()) {
    *error = "none of the metrics exist on chip " + plan.chip;
    return std::nullopt;
  }
  if (grouping == PassGrouping::kReplayed) {
    std::vector<MetricTerm> l2;
    if (groups & kCounterL2) {
      l2 = SelectMetrics(CounterCandidates(plan.family, kCounterL2), has).terms;
      if (l2.empty()) plan.notes.push_back("no L2 byte metric on chip " + plan.chip);
    }
    if (!PlanOneGroup(lookup, chip, availability, selected.terms, l2, &plan, error)) {
      return std::nullopt;
    }
    return plan;
  }
  // Every other metric first, so that kernels that cannot use the tensor paths skip their
  // groups; then L2 where it fits; then the tensor paths.
  std::vector<MetricTerm> core, tensor;
  for (const MetricTerm& t : selected.terms) {
    (t.quantity == CounterQuantity::kTensor ? tensor : core).push_back(t);
  }
  Packer packer{lookup, chip, availability};
  std::vector<std::vector<MetricTerm>> members;
  std::vector<std::string> left_out;
  if (!packer.Pack(core, 0, false, false, &plan.groups, &members, &left_out, error)) {
    return std::nullopt;
  }
  if (groups & kCounterL2) {
    const MetricSelection l2 = SelectMetrics(CounterCandidates(plan.family, kCounterL2), has);
    if (l2.terms.empty()) {
      plan.notes.push_back("no L2 byte metric on chip " + plan.chip);
    } else if (plan.groups.empty()) {
      if (!packer.Pack(l2.terms, 0, false, false, &plan.groups, &members, &left_out, error)) {
        return std::nullopt;
      }
    } else {
      std::string l2_error;
      if (!packer.Pack(l2.terms, 0, false, true, &plan.groups, &members, &left_out, &l2_error)) {
        plan.notes.push_back(l2.terms.front().name + " left out: " + l2_error);
      }
    }
  }
  for (const std::string& name : left_out) {
    plan.notes.push_back(name + " left out: it fits into no pass the other metrics need");
  }
  plan.non_tensor_groups = plan.groups.size();
  if (!packer.Pack(tensor, plan.non_tensor_groups, true, false, &plan.groups, &members, &left_out,
                   error)) {
    return std::nullopt;
  }
  for (const PassGroup& g : plan.groups) plan.passes += g.passes;
  return plan;
}

}  // namespace flopspy::gpuroof
