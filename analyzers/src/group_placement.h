// Placing kernel and library groups on their device's roofs, with the GEMM shape diagnostics:
// the one finishing step shared by one trace's analysis (trace_analysis.cpp) and the groups
// merged over a run (run_merge.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>

#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::analyzers {

// The roofs a group runs against, by its device id; nullptr when unknown.
using RoofsLookup = std::function<const DeviceRoofs*(int32_t device)>;

// A trace's roofs by device. A group without a device id (no GPU records) of a single-GPU trace
// still gets that GPU's roofs.
RoofsLookup RoofsOfDevice(const std::map<int32_t, DeviceRoofs>& roofs);

// Places a group on `roofs` (nullptr: leaves it unplaced). A GEMM-like library group is also
// diagnosed, with the roofs' SM count when they are known.
void PlaceGroup(KernelGroup& group, const DeviceRoofs* roofs, const RegimeThresholds& thresholds);
void PlaceGroup(LibraryGroup& group, const DeviceRoofs* roofs, const RegimeThresholds& thresholds);

// Every group of a trace, each on its device's roofs.
void PlaceGroups(std::span<KernelGroup> kernels, std::span<LibraryGroup> libraries,
                 const RoofsLookup& roofs_for, const RegimeThresholds& thresholds);

}  // namespace flopspy::analyzers
