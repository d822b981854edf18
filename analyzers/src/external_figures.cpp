#include "flopspy/analyzers/external_figures.h"

namespace flopspy::analyzers {

void ApplyExternalFigures(const ExternalKernelFigures& figures, std::string_view kernel_name,
                          KernelEstimate& estimate) {
  const auto it = figures.find(kernel_name);
  if (it == figures.end()) return;
  const ExternalKernelFigure& f = it->second;
  bool used = false;
  if (estimate.source == trace::FigureSource::kUnknown && f.flops && *f.flops >= 0) {
    estimate.flops = *f.flops;
    estimate.special_ops = 0;
    estimate.source = trace::FigureSource::kCatalog;
    used = true;
  }
  if (estimate.bytes_source == trace::FigureSource::kUnknown && f.bytes && *f.bytes >= 0) {
    estimate.bytes = *f.bytes;
    estimate.bytes_source = trace::FigureSource::kCatalog;
    used = true;
  }
  if (!used) return;
  estimate.confidence = Confidence::kMedium;
  estimate.reason = f.reason;
  if (estimate.shape_key.empty()) estimate.shape_key = f.shape_key;
}

}  // namespace flopspy::analyzers
