// Process lifecycle: start (library constructor), exit, fork and exec.
#pragma once

namespace flopspy::interpose {

// Signal handling (signals.cpp), installed by the constructor when FLOPSPY_SIGNALS is on.
void InstallSignalHandlers();

}  // namespace flopspy::interpose
