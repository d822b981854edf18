// A progress line on stderr while traces are read, for a person at a terminal: only when stderr
// is a terminal, and only for a long read (over 50 MB of files, or once a read has taken a
// second). It redraws in place at most ten times a second and is erased when reading ends, so
// nothing of it stays on the screen, in a pipe or in a log.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace flopspy::tools {

struct ProgressState {
  uint64_t done = 0;  // bytes read so far, all files together
  uint64_t total = 0;
  size_t files = 1;
  double elapsed_s = 0;
};

// "reading 4 traces [########............]  42% 273 MB of 650 MB, 6 s left": at most 79
// characters. The time left appears once a second has passed (a rate before that is noise).
std::string FormatProgress(const ProgressState& state);

class ProgressBar {
 public:
  static constexpr uint64_t kLargeBytes = 50'000'000;
  static constexpr double kLongSeconds = 1.0;

  // `sizes`: the files' sizes, in the order their indexes will be reported. Draws on `out` only
  // when `terminal` is true.
  ProgressBar(std::vector<uint64_t> sizes, bool terminal, std::FILE* out = stderr);
  ~ProgressBar();  // Finish()
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // File `index` has `done` of its bytes read. Safe from several threads.
  void Update(size_t index, uint64_t done);
  // Erases the line if one was drawn. Idempotent.
  void Finish();

  bool drawn() const { return drawn_; }

 private:
  using Clock = std::chrono::steady_clock;
  void DrawLocked(Clock::time_point now);

  std::vector<uint64_t> sizes_, done_;
  uint64_t total_ = 0, done_total_ = 0;
  bool terminal_;
  std::FILE* out_;
  std::mutex mutex_;
  Clock::time_point start_, last_draw_{};
  bool drawn_ = false;
  size_t last_width_ = 0;
};

// Whether stderr is a terminal a person watches.
bool StderrIsTerminal();
// The sizes of `paths` (0 for one that cannot be read), for the bar's total.
std::vector<uint64_t> FileSizes(const std::vector<std::string>& paths);

}  // namespace flopspy::tools
