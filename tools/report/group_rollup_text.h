// The terminal's --group-by range and --group-by step table (group_rollup.h), after "Where the
// GPU time goes".
#pragma once

#include <ostream>

#include "report/kernel_rollup.h"

namespace flopspy::tools {

// Nothing unless the rollup was built with --group-by range or step.
void PrintGroupRollup(const KernelRollup& rollup, std::ostream& out);

}  // namespace flopspy::tools
