#include "log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <new>
#include <set>

#include "flopspy/platform/owned_fd.h"
#include "flopspy/platform/quiet_write.h"
#include "flopspy/platform/terminal_text.h"
#include "recorder.h"

namespace flopspy::interpose {
namespace {

bool g_quiet = false;

// What stderr was when flopspy started. Lines go there only while descriptor 2 is still that
// file: a program that closed it and opened a file of its own as descriptor 2 must not find
// flopspy's lines in that file. The trace keeps every warning either way.
std::atomic<bool> g_stderr_known{false};
dev_t g_stderr_device = 0;
ino_t g_stderr_inode = 0;

std::mutex& ReportedMutex() {
  static auto* m = new std::mutex;  // never destroyed: messages may come during exit
  return *m;
}
std::set<std::string>& Reported() {
  static auto* s = new std::set<std::string>;
  return *s;
}

void WriteLine(std::string_view message) {
  if (!g_stderr_known.load(std::memory_order_acquire) ||
      !platform::SameFile(STDERR_FILENO, g_stderr_device, g_stderr_inode)) {
    return;
  }
  char line[1024];
  constexpr std::string_view kPrefix = "flopspy: ";
  size_t n = kPrefix.copy(line, kPrefix.size());
  // Values from the environment and names from the program may hold a newline or an escape
  // sequence: the line stays one line, and the terminal shows them rather than obeys them.
  n += platform::EscapeControlsInto(message, line + n, sizeof(line) - 1 - n);
  line[n++] = '\n';
  // A vanished reader (a closed pipe) must not kill the program with SIGPIPE.
  platform::WriteWithoutSigpipe(STDERR_FILENO, line, n);
}

}  // namespace

void CaptureStderr() {
  struct stat st {};
  if (fstat(STDERR_FILENO, &st) != 0) return;  // closed at start: never written to
  g_stderr_device = st.st_dev;
  g_stderr_inode = st.st_ino;
  g_stderr_known.store(true, std::memory_order_release);
}

void WriteStderr(std::string_view message) {
  const int saved_errno = errno;  // often the program's thread, in a hook
  WriteLine(message);
  errno = saved_errno;
}

void SetQuiet(bool quiet) {
  g_quiet = quiet;
}

void Notice(std::string_view message) {
  if (!g_quiet) WriteStderr(message);
}

namespace {

bool FirstTime(std::string_view key) {
  std::lock_guard lock(ReportedMutex());
  return Reported().emplace(key).second;
}

}  // namespace

void ReportOnce(std::string_view key, trace::WarningCode code, std::string_view message) {
  if (!FirstTime(key)) return;
  WriteStderr(message);
  if (Recorder* r = Recorder::Get()) r->AddWarning(code, message);
}

void NoticeOnce(std::string_view key, trace::WarningCode code, std::string_view message) {
  if (!FirstTime(key)) return;
  Notice(message);
  if (Recorder* r = Recorder::Get()) r->AddWarning(code, message);
}

void ResetLogAfterFork() {
  // Another thread of the parent may have held the lock, or been changing the set, at fork.
  // The old set is leaked, never read: it may be half-changed. The child says things afresh.
  new (&ReportedMutex()) std::mutex();
  new (&Reported()) std::set<std::string>();
}

}  // namespace flopspy::interpose
