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

std::optional<CounterPlan> PlanCounters(const CuptiSymbolLookup& lookup, std::string_view chip,
                                        std::span<const uint8_t> availability, uint32_t groups,
                                        std::string* error) {
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
  const std::vector<MetricCandidate> base = CounterCandidates(plan.family, groups & ~kCounterL2);
  const MetricSelection selected = SelectMetrics(base, has);
  for (const std::string& name : selected.missing) {
    plan.notes.push_back(name + " does not exist on chip " + plan.chip);
  }
  if (selected.terms.empty()) {
    *error = "none of the metrics exist on chip " + plan.chip;
    return std::nullopt;
  }
  plan.host = HostProfiler::Create(lookup, chip, availability, error);
  if (!plan.host || !plan.host->Configure(selected.terms, error)) return std::nullopt;
  plan.passes = plan.host->passes();

  // L2 traffic only when it rides along in the passes already needed.
  if (groups & kCounterL2) {
    const std::vector<MetricCandidate> l2 = CounterCandidates(plan.family, kCounterL2);
    const MetricSelection l2_selected = SelectMetrics(l2, has);
    if (l2_selected.terms.empty()) {
      plan.notes.push_back("no L2 byte metric on chip " + plan.chip);
    } else {
      std::vector<MetricTerm> with = selected.terms;
      with.insert(with.end(), l2_selected.terms.begin(), l2_selected.terms.end());
      std::string l2_error;
      auto host = HostProfiler::Create(lookup, chip, availability, &l2_error);
      if (host && host->Configure(with, &l2_error) && host->passes() <= plan.passes) {
        plan.host = std::move(host);
      } else if (host && l2_error.empty()) {
        plan.notes.push_back(l2_selected.terms.front().name +
                             " left out: " + std::to_string(host->passes()) +
                             " passes instead of " + std::to_string(plan.passes));
      } else {
        plan.notes.push_back(l2_selected.terms.front().name + " left out: " + l2_error);
      }
    }
  }
  return plan;
}

}  // namespace flopspy::gpuroof
