// The parts of the HTML report built from one section of the model each.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/html_util.h"

namespace flopspy::tools::html {

// One GPU of a trace: facts, MFU, coverage by figure source, the roofline chart of its kernel
// signatures and library shapes, the work that could not be placed, its roofs.
// A fold whose id is "t<trace_index>-gpu<device>".
PageSection DeviceSection(const nlohmann::json& trace, const nlohmann::json& device,
                          size_t trace_index);

// Sections other engineers add to the model; each renders when its key is present. The shapes
// expected are in docs/report-html.md; anything else falls back to GenericSection.
std::string AdviceSection(const nlohmann::json& advice, const std::string& id);
std::string TimelineSection(const nlohmann::json& timeline, const std::string& id);
// The launch-overhead section as the text report has it: verdict first, then launches, queue
// delay, the graphs estimate, devices and streams as tables, launch-bound signatures folded.
std::string LaunchOverheadSection(const nlohmann::json& overhead, const std::string& id);
std::string CpuRooflineSection(const nlohmann::json& cpu_roofline, const std::string& id);
// Any JSON value: scalars as a key/value table, arrays of objects as sortable tables.
std::string GenericSection(const nlohmann::json& value, const std::string& id, int depth = 0);

// "launch_overhead" -> "Launch overhead"
std::string SectionTitle(std::string_view key);

}  // namespace flopspy::tools::html
