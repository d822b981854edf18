// A trace's call sites made by hand (tools/report/call_sites_json.cpp serialises them, as the
// report does), and the demo trace's HTML page with them added: for the HTML tests of the
// "Call sites" section, without a trace that records stacks.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flopspy::testing {

// The "call_sites" object: four sites (two lines of model.py, one with a hostile file name,
// and backward), their stacks for the icicle, and a module without symbols.
nlohmann::json CallSitesJson();
// The label of the site whose file name is hostile input.
inline constexpr const char* kHostileSite = "<img src=x onerror=alert(1)>.py:7 (evil)";

// The demo trace's model (flopspy-report --json of DemoTrace(), written under `dir`) with
// CallSitesJson() in its trace; `report` is the flopspy-report program.
nlohmann::json DemoModelWithCallSites(const std::string& report, const std::string& dir);

}  // namespace flopspy::testing
