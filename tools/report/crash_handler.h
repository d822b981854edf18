// If a flopspy tool itself crashes, say so plainly with a stack trace that a bug report can carry.
#pragma once

namespace flopspy::tools {

// Installs the handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT, and gives the calling
// thread an alternate signal stack.
void InstallCrashHandler(const char* program_name);

// Gives the calling thread an alternate signal stack (once; released when the thread ends), so
// that the handler's "internal error" line is still printed when this thread overflows its own
// stack: a handler cannot run on a stack that is full. Every thread that reads untrusted input
// calls it.
void UseCrashStackOnThisThread();

}  // namespace flopspy::tools
