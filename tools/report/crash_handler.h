// If a flopspy tool itself crashes, say so plainly with a stack trace that a bug report can carry.
#pragma once

namespace flopspy::tools {

void InstallCrashHandler(const char* program_name);

}  // namespace flopspy::tools
