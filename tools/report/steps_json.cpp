#include "report/steps_json.h"

#include "report/json_values.h"

namespace flopspy::tools {

using nlohmann::json;

namespace {

json Regimes(const std::array<double, 4>& by_regime) {
  json out = json::object();
  for (size_t r = 0; r < by_regime.size(); ++r) {
    const auto regime = static_cast<analyzers::Regime>(r);
    out[std::string(analyzers::RegimeName(regime))] = by_regime[r];
  }
  return out;
}

}  // namespace

json StepsJson(const analyzers::StepReport& s) {
  if (s.empty()) return nullptr;
  json steps = json::array();
  for (const analyzers::Step& step : s.steps) {
    steps.push_back({{"number", step.number},
                     {"begin_ns", step.begin_ns},
                     {"end_ns", step.end_ns},
                     {"time_ns", step.time_ns()},
                     {"warmup", step.warmup},
                     {"kernels", step.kernels},
                     {"kernel_ns", step.kernel_ns},
                     {"busy_ns", step.busy_ns},
                     {"kernel_ns_by_regime", Regimes(step.regime_ns)},
                     {"counted_flops", step.flops},
                     {"flops_ns", step.flops_ns},
                     {"launch_bound_ns", step.launch_bound_ns},
                     {"copies", step.copies},
                     {"copy_bytes", step.copy_bytes},
                     {"copy_ns", step.copy_ns}});
  }
  const analyzers::StepSummary& m = s.steady;
  return {{"source", std::string(analyzers::StepSourceName(s.source))},
          {"detail", s.detail},
          {"basis", s.basis},
          {"count", s.steps.size()},
          {"warmup", s.warmup},
          {"steady",
           {{"steps", m.steps},
            {"mean_ns", m.mean_ns},
            {"p50_ns", m.p50_ns},
            {"p95_ns", m.p95_ns},
            {"busy_share", m.busy_share},
            {"counted_flops_per_step", m.flops},
            {"achieved_flops_per_s", m.flop_rate},
            {"flops_coverage", m.flop_coverage},
            {"launch_bound_share", m.launch_bound_share},
            {"kernel_share_by_regime", Regimes(m.regime_share)},
            {"mfu", NumberOrNull(m.mfu)}}},
          {"slowest", s.slowest},
          {"model_flops_per_step",
           s.model_flops_per_step > 0 ? json(s.model_flops_per_step) : json(nullptr)},
          {"peak_flops", s.peak_flops > 0 ? json(s.peak_flops) : json(nullptr)},
          {"per_step", steps}};
}

}  // namespace flopspy::tools
