#include "trace_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "clock.h"
#include "log.h"
#include "recorder.h"

namespace flopspy::interpose {
namespace {

// More reopens than this within the window and flopspy stops writing rather than race a program
// that closes descriptors in a loop; a daemon that closes them now and then is reopened forever.
constexpr int kMaxReopensPerWindow = 16;
constexpr uint64_t kReopenWindowNs = 10'000'000'000;

}  // namespace

bool TraceSink::Create(const std::string& dir, const TraceFileIdentity& id, std::string* error) {
  const int fd = CreateTraceFile(dir, id, &path_, error);
  if (fd < 0) return false;
  fd_ = platform::OwnedFd::Adopt(fd);
  if (!fd_.valid()) {
    *error = "cannot stat " + path_ + ": " + std::strerror(errno);
    unlink(path_.c_str());
    return false;
  }
  good_offset_ = 0;
  reopens_in_window_ = 0;
  return true;
}

void TraceSink::GiveUp(const std::string& why) {
  fd_.Forget();  // the number is the program's now, or nothing: never close it
  ReportOnce("trace-descriptor", trace::WarningCode::kOutputUnavailable,
             why + "; the trace " + path_ + " ends here, at byte " + std::to_string(good_offset_) +
                 ", and this process runs on untraced");
}

bool TraceSink::Reopen(const char* what_happened) {
  const uint64_t now = NowNs();
  if (now - reopen_window_start_ns_ > kReopenWindowNs) {
    reopen_window_start_ns_ = now;
    reopens_in_window_ = 0;
  }
  if (++reopens_in_window_ > kMaxReopensPerWindow) {
    GiveUp(std::string("the program keeps closing flopspy's trace descriptor (") + what_happened +
           " " + std::to_string(kMaxReopensPerWindow) + " times in 10 s)");
    return false;
  }
  // O_NONBLOCK: whatever is at the name now (a FIFO planted there) must not block the flusher.
  const int fd = open(path_.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    GiveUp(std::string("the program ") + what_happened +
           " flopspy's trace descriptor and the trace cannot be reopened (" + std::strerror(errno) +
           ")");
    return false;
  }
  platform::OwnedFd reopened = platform::OwnedFd::Adopt(fd);
  if (!reopened.valid() || reopened.device() != fd_.device() || reopened.inode() != fd_.inode()) {
    reopened.CloseIfOurs();
    GiveUp(std::string("the program ") + what_happened + " flopspy's trace descriptor and " +
           path_ + " is no longer the trace file");
    return false;
  }
  fcntl(reopened.get(), F_SETFL, 0);
  fd_.Forget();  // the old number is the program's (or closed): leave it alone
  fd_ = reopened;
  // Whatever a write cut short is dropped; writing resumes after the last whole chunk.
  if (ftruncate(fd_.get(), static_cast<off_t>(good_offset_)) != 0) {
    GiveUp(std::string("the reopened trace cannot be cut back to its last whole chunk (") +
           std::strerror(errno) + ")");
    return false;
  }
  // Information, not a failure: nothing was lost. The trace keeps the fact for the report.
  Notice(std::string("the program ") + what_happened + " flopspy's trace descriptor; " + path_ +
         " was reopened and recording goes on");
  if (Recorder* r = Recorder::Get()) {
    r->AddWarning(trace::WarningCode::kOutputUnavailable,
                  std::string("the program ") + what_happened +
                      " flopspy's trace descriptor; the trace was reopened, nothing was lost",
                  /*standalone=*/false);
  }
  return true;
}

bool TraceSink::EnsureOurs() {
  if (!fd_.valid()) return false;
  if (fd_.StillOurs()) return true;
  return Reopen(fcntl(fd_.get(), F_GETFD) < 0 ? "closed" : "replaced");
}

bool TraceSink::Write(const uint8_t* bytes, size_t size, int* error) {
  if (!EnsureOurs()) {
    *error = EBADF;
    return false;
  }
  size_t done = 0;
  while (done < size) {
    const ssize_t w =
        pwrite(fd_.get(), bytes + done, size - done, static_cast<off_t>(good_offset_ + done));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EBADF) {
      // Closed between the check and the write: reopen (which cuts any partial write) and redo.
      if (!Reopen("closed")) {
        *error = EBADF;
        return false;
      }
      done = 0;
      continue;
    }
    if (w <= 0) {
      *error = w < 0 ? errno : ENOSPC;
      // Cut the partial chunk off so that the file stays readable up to the last good chunk.
      if (done > 0 && fd_.StillOurs())
        (void)!ftruncate(fd_.get(), static_cast<off_t>(good_offset_));
      return false;
    }
    done += static_cast<size_t>(w);
  }
  good_offset_ += size;
  return true;
}

bool TraceSink::Unlink() {
  if (!fd_.valid() || good_offset_ != 0) return false;
  // Empty by the file's own account too, and the name still leads to it.
  struct stat st {};
  if (fstat(fd_.get(), &st) != 0 || st.st_size != 0 || st.st_dev != fd_.device() ||
      st.st_ino != fd_.inode()) {
    return false;
  }
  if (lstat(path_.c_str(), &st) != 0 || st.st_dev != fd_.device() || st.st_ino != fd_.inode()) {
    return false;
  }
  return unlink(path_.c_str()) == 0;
}

void TraceSink::RemoveIfEmpty() {
  if (!fd_.valid() || good_offset_ != 0) return;
  Unlink();
  fd_.CloseIfOurs();
}

void TraceSink::UnlinkIfEmpty() {
  const int saved_errno = errno;
  Unlink();
  errno = saved_errno;
}

void TraceSink::ForgetAfterFork() {
  // The parent's own file joins the descriptors inherited from further up, in the first free
  // slot (a grandparent's not yet closed stays in its slot).
  for (platform::OwnedFd& slot : inherited_) {
    if (fd_.valid() && !slot.valid()) {
      slot = fd_;
      break;
    }
  }
  fd_.Forget();
  path_.clear();
  good_offset_ = 0;
  reopens_in_window_ = 0;
}

void TraceSink::CloseInherited() {
  for (platform::OwnedFd& slot : inherited_) slot.CloseIfOurs();
}

}  // namespace flopspy::interpose
