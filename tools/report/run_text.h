// The run sections of the terminal report when several traces were read: the whole run merged,
// the per-rank table and the stragglers (docs/flopspy-report.md, "Many traces").
#pragma once

#include <ostream>

#include "report/run_views.h"

namespace flopspy::tools {

void WriteRunText(const RunViews& views, std::ostream& out);

}  // namespace flopspy::tools
