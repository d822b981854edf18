#include "log.h"

#include <unistd.h>

#include <mutex>
#include <set>

#include "recorder.h"

namespace flopspy::interpose {
namespace {

bool g_quiet = false;

std::mutex& ReportedMutex() {
  static auto* m = new std::mutex;  // never destroyed: messages may come during exit
  return *m;
}
std::set<std::string>& Reported() {
  static auto* s = new std::set<std::string>;
  return *s;
}

}  // namespace

void WriteStderr(std::string_view message) {
  char line[1024];
  constexpr std::string_view kPrefix = "flopspy: ";
  size_t n = 0;
  for (char c : kPrefix) line[n++] = c;
  for (char c : message) {
    if (n >= sizeof(line) - 1) break;
    line[n++] = c;
  }
  line[n++] = '\n';
  size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(STDERR_FILENO, line + done, n - done);
    if (w <= 0) break;
    done += static_cast<size_t>(w);
  }
}

void SetQuiet(bool quiet) {
  g_quiet = quiet;
}

void Notice(std::string_view message) {
  if (!g_quiet) WriteStderr(message);
}

void ReportOnce(std::string_view key, trace::WarningCode code, std::string_view message) {
  {
    std::lock_guard lock(ReportedMutex());
    if (!Reported().emplace(key).second) return;
  }
  WriteStderr(message);
  if (Recorder* r = Recorder::Get()) r->AddWarning(code, message);
}

}  // namespace flopspy::interpose
