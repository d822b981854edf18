// Functions shared between the hook files (hooks_*.cpp), which make up libflopspy.so around the
// recorder core.
#pragma once

namespace flopspy::interpose {

// Signal handling (hooks_signals.cpp), installed by the constructor when FLOPSPY_SIGNALS is on.
void InstallSignalHandlers();

}  // namespace flopspy::interpose
