// Messages on stderr, each prefixed "flopspy:", and warnings recorded in the trace.
// Written with write(2) so they interleave sanely with the program's own output and work in
// any thread. ReportOnce and Notice take a lock and allocate: never from a signal handler;
// WriteStderr alone is async-signal-safe. None changes errno.
#pragma once

#include <string>
#include <string_view>

#include "flopspy/trace/schema.h"

namespace flopspy::interpose {

// A failure or degradation: printed once per `key` (even when quiet) and recorded in the trace.
void ReportOnce(std::string_view key, trace::WarningCode code, std::string_view message);

// Information (what flopspy did or left undone as configured); suppressed by FLOPSPY_QUIET=1.
void Notice(std::string_view message);

// Something left undone because the user asked for it (FLOPSPY_GPU_TIMING=off): recorded in the
// trace as ReportOnce does, printed once per `key` unless FLOPSPY_QUIET=1.
void NoticeOnce(std::string_view key, trace::WarningCode code, std::string_view message);

// Writes "flopspy: <message>\n" to stderr as one line (control characters escaped), without
// raising SIGPIPE, and only while descriptor 2 is still the stderr flopspy started with.
// Async-signal-safe.
void WriteStderr(std::string_view message);

// Remembers which file stderr is; called once at start, before anything is written.
void CaptureStderr();

// In a fork() child: the report-once bookkeeping starts over with fresh locks.
void ResetLogAfterFork();

void SetQuiet(bool quiet);

}  // namespace flopspy::interpose
