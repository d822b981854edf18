// The NCCL sections of the JSON report (docs/report-json.md, "communication").
#pragma once

#include <nlohmann/json.hpp>

#include "flopspy/analyzers/communication.h"

namespace flopspy::tools {

// A trace's "communication" object; null when it has no NCCL call and no collective kernel.
nlohmann::json CommunicationJson(const analyzers::CommReport& report);

// The run's "communication_across_ranks"; null when no collective was seen on two traces.
nlohmann::json CommSkewJson(const analyzers::CommSkewReport& skew);

}  // namespace flopspy::tools
