#include "report/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "report/format.h"

namespace flopspy::tools {

std::string FormatProgress(const ProgressState& state) {
  constexpr int kBarWidth = 20;
  constexpr size_t kMaxWidth = 79;  // an 80-column terminal, the cursor after it
  const double fraction =
      state.total == 0
          ? 1.0
          : std::clamp(static_cast<double>(state.done) / static_cast<double>(state.total), 0.0,
                       1.0);
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string line = fmt::format(
      "reading {} trace{} [{}{}] {:3d}% {}B of {}B", state.files, state.files == 1 ? "" : "s",
      std::string(filled, '#'), std::string(kBarWidth - filled, '.'),
      static_cast<int>(fraction * 100), SiValue(static_cast<double>(state.done)),
      SiValue(static_cast<double>(state.total)));
  if (state.elapsed_s >= 1.0 && state.done > 0 && state.done < state.total) {
    const double left = state.elapsed_s * static_cast<double>(state.total - state.done) /
                        static_cast<double>(state.done);
    const std::string eta =
        left < 60
            ? fmt::format(", {} s left", static_cast<int>(std::ceil(left)))
            : fmt::format(", {} min left", static_cast<int>(std::min(std::ceil(left / 60), 1e6)));
    if (line.size() + eta.size() <= kMaxWidth) line += eta;
  }
  return line;
}

ProgressBar::ProgressBar(std::vector<uint64_t> sizes, bool terminal, std::FILE* out)
    : sizes_(std::move(sizes)),
      done_(sizes_.size(), 0),
      terminal_(terminal),
      out_(out),
      start_(Clock::now()) {
  for (uint64_t s : sizes_) total_ += s;
}

ProgressBar::~ProgressBar() {
  Finish();
}

void ProgressBar::Update(size_t index, uint64_t done) {
  if (!terminal_ || index >= done_.size()) return;
  const std::lock_guard lock(mutex_);
  done = std::min(done, sizes_[index]);
  if (done < done_[index]) return;
  done_total_ += done - done_[index];
  done_[index] = done;
  const Clock::time_point now = Clock::now();
  const bool long_read =
      total_ >= kLargeBytes || std::chrono::duration<double>(now - start_).count() >= kLongSeconds;
  if (!long_read || now - last_draw_ < std::chrono::milliseconds(100)) return;
  DrawLocked(now);
}

void ProgressBar::DrawLocked(Clock::time_point now) {
  const std::string line = FormatProgress(
      {done_total_, total_, sizes_.size(), std::chrono::duration<double>(now - start_).count()});
  // Pad over the end of a longer previous line rather than rely on terminal escapes.
  const size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
  std::fprintf(out_, "\r%s%s", line.c_str(), std::string(pad, ' ').c_str());
  std::fflush(out_);
  last_width_ = line.size();
  last_draw_ = now;
  drawn_ = true;
}

void ProgressBar::Finish() {
  const std::lock_guard lock(mutex_);
  if (!drawn_ || last_width_ == 0) return;
  std::fprintf(out_, "\r%s\r", std::string(last_width_, ' ').c_str());
  std::fflush(out_);
  last_width_ = 0;
}

bool StderrIsTerminal() {
  return isatty(STDERR_FILENO) == 1;
}

std::vector<uint64_t> FileSizes(const std::vector<std::string>& paths) {
  std::vector<uint64_t> sizes;
  for (const std::string& path : paths) {
    std::error_code error;
    const uintmax_t size = std::filesystem::file_size(path, error);
    sizes.push_back(error ? 0 : static_cast<uint64_t>(size));
  }
  return sizes;
}

}  // namespace flopspy::tools
