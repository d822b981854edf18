// What `flopspy --version` and `flopspy-report --version` print: one place for both programs.
#pragma once

#include <string>
#include <string_view>

namespace flopspy::tools {

// "<program> 0.1.0 (trace format 2, reads formats 1 to 2; built against CUDA 13.0.88)".
std::string VersionText(std::string_view program);

}  // namespace flopspy::tools
