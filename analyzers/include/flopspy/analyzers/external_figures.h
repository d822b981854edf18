// Figures for kernels the catalog cannot model, known from outside the trace: torch.compile's
// inductor records bytes (and, for templates, FLOPs) of its Triton kernels in the modules it
// generates (tools/report/inductor_cache.h reads them; docs/kernel-catalog.md, "Triton and
// torch.compile"). The trace analysis takes a figure from here only where the catalog's is
// unknown, with source `catalog` and a reason that names where it came from.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {

struct ExternalKernelFigure {
  std::optional<double> flops;  // per launch
  std::optional<double> bytes;  // per launch
  std::string shape_key;        // "xnumel=...,rnumel=..." when known
  std::string reason;           // "inductor cache: kernel_num_gb (file)"
};

// By the kernel's name as the driver gives it (Triton kernel names are not mangled).
using ExternalKernelFigures = std::map<std::string, ExternalKernelFigure, std::less<>>;

// Fills what `estimate` does not know (FLOPs, bytes, each on its own) from the figure `figures`
// holds for `kernel_name`, with source catalog, confidence medium and the figure's reason.
void ApplyExternalFigures(const ExternalKernelFigures& figures, std::string_view kernel_name,
                          KernelEstimate& estimate);

}  // namespace flopspy::analyzers
