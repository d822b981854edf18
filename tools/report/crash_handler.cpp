#include "report/crash_handler.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <boost/stacktrace.hpp>
#include <iostream>

namespace flopspy::tools {
namespace {

const char* g_program = "flopspy";

void OnCrash(int sig) {
  // Not async-signal-safe, but the tool is dying anyway; a stack trace is worth the risk.
  std::cerr << g_program << ": internal error (signal " << sig << ", " << strsignal(sig)
            << "). Please report it with this stack trace:\n"
            << boost::stacktrace::stacktrace() << std::flush;
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void InstallCrashHandler(const char* program_name) {
  g_program = program_name;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, OnCrash);
}

}  // namespace flopspy::tools
