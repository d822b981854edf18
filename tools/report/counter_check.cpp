#include "report/counter_check.h"

#include <cmath>

namespace flopspy::tools {

CounterCheck CheckCounters(const analyzers::KernelGroup& g) {
  CounterCheck c;
  if (g.counter_samples == 0) return c;
  const auto per_launch = [](const analyzers::WorkFigures& w, bool flops) -> std::optional<double> {
    const auto source = flops ? w.flops_source : w.bytes_source;
    const uint64_t n = flops ? w.launches_with_flops : w.launches_with_bytes;
    if (source != trace::FigureSource::kCatalog || n == 0) return std::nullopt;
    return (flops ? w.flops : w.bytes) / static_cast<double>(n);
  };
  // Timed launches first (what the roofline uses), else every launch.
  c.catalog_flops = per_launch(g.timed, true);
  if (!c.catalog_flops) c.catalog_flops = per_launch(g.all, true);
  c.catalog_bytes = per_launch(g.timed, false);
  if (!c.catalog_bytes) c.catalog_bytes = per_launch(g.all, false);
  const auto diff = [](const std::optional<double>& model, double measured,
                       bool valid) -> std::optional<double> {
    if (!model || !valid || measured <= 0) return std::nullopt;
    return 100.0 * (*model - measured) / measured;
  };
  c.flops_diff_pct = diff(c.catalog_flops, g.counter_flops, analyzers::CounterFlopsValid(g));
  c.bytes_diff_pct = diff(c.catalog_bytes, g.counter_bytes, analyzers::CounterBytesValid(g));
  const auto off = [](const std::optional<double>& d) {
    return d && std::fabs(*d) > kCatalogTolerancePct;
  };
  c.catalog_off = off(c.flops_diff_pct) || off(c.bytes_diff_pct);
  c.samples_disagree = analyzers::CounterFlopsSpread(g) > kSampleTolerance ||
                       analyzers::CounterBytesSpread(g) > kSampleTolerance;
  return c;
}

}  // namespace flopspy::tools
