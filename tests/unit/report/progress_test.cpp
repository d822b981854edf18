// The progress line of long reads: its text, and when it is drawn (terminal and long read only)
// and erased.
#include "report/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace flopspy::tools {
namespace {

TEST(FormatProgress, BarPercentAndSizes) {
  EXPECT_EQ(FormatProgress({.done = 273'000'000, .total = 650'000'000, .files = 4}),
            "reading 4 traces [########............]  42% 273 MB of 650 MB");
  EXPECT_EQ(FormatProgress({.done = 0, .total = 80'000'000, .files = 1}),
            "reading 1 trace [....................]   0% 0 B of 80 MB");
  EXPECT_EQ(FormatProgress({.done = 80'000'000, .total = 80'000'000, .files = 1, .elapsed_s = 3}),
            "reading 1 trace [####################] 100% 80 MB of 80 MB");
}

TEST(FormatProgress, TimeLeftOnceASecondHasPassed) {
  EXPECT_EQ(FormatProgress({.done = 100, .total = 400, .files = 1, .elapsed_s = 0.5}),
            "reading 1 trace [#####...............]  25% 100 B of 400 B");
  EXPECT_EQ(FormatProgress({.done = 100, .total = 400, .files = 1, .elapsed_s = 2}),
            "reading 1 trace [#####...............]  25% 100 B of 400 B, 6 s left");
  EXPECT_EQ(FormatProgress({.done = 100, .total = 400, .files = 1, .elapsed_s = 40}),
            "reading 1 trace [#####...............]  25% 100 B of 400 B, 2 min left");
}

TEST(FormatProgress, FitsEightyColumns) {
  const std::string widest = FormatProgress(
      {.done = 999'000'000'000, .total = 999'500'000'000, .files = 10000, .elapsed_s = 1e6});
  EXPECT_LE(widest.size(), 79u) << widest;
}

// What the bar wrote to a temporary file.
std::string Written(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
  return text;
}

TEST(ProgressBar, SilentWhenNotATerminal) {
  std::FILE* out = std::tmpfile();
  {
    ProgressBar bar({600'000'000}, /*terminal=*/false, out);
    for (uint64_t done = 0; done <= 600'000'000; done += 1'000'000) bar.Update(0, done);
    bar.Finish();
    EXPECT_FALSE(bar.drawn());
  }
  EXPECT_EQ(Written(out), "");
  std::fclose(out);
}

TEST(ProgressBar, SilentForASmallQuickRead) {
  std::FILE* out = std::tmpfile();
  ProgressBar bar({10'000'000}, /*terminal=*/true, out);
  bar.Update(0, 5'000'000);
  bar.Update(0, 10'000'000);
  bar.Finish();
  EXPECT_FALSE(bar.drawn());
  EXPECT_EQ(Written(out), "");
  std::fclose(out);
}

TEST(ProgressBar, DrawsALargeReadAndErasesItself) {
  std::FILE* out = std::tmpfile();
  ProgressBar bar({60'000'000, 40'000'000}, /*terminal=*/true, out);
  bar.Update(0, 30'000'000);
  bar.Finish();
  bar.Finish();  // erased once
  EXPECT_TRUE(bar.drawn());
  const std::string line = "reading 2 traces [######..............]  30% 30 MB of 100 MB";
  EXPECT_EQ(Written(out), "\r" + line + "\r" + std::string(line.size(), ' ') + "\r");
  std::fclose(out);
}

TEST(ProgressBar, DrawsASmallReadOnceItTakesASecond) {
  std::FILE* out = std::tmpfile();
  ProgressBar bar({1000}, /*terminal=*/true, out);
  bar.Update(0, 100);
  EXPECT_FALSE(bar.drawn());
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  bar.Update(0, 200);
  EXPECT_TRUE(bar.drawn());
  EXPECT_NE(Written(out).find("20% 200 B of 1 kB"), std::string::npos) << Written(out);
  bar.Finish();  // it erases its line: before the file closes, not in the destructor after
  std::fclose(out);
}

TEST(ProgressBar, SumsFilesFromSeveralThreads) {
  std::FILE* out = std::tmpfile();
  ProgressBar bar({50'000'000, 50'000'000, 50'000'000, 50'000'000}, true, out);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < 4; ++i) {
    threads.emplace_back([&bar, i] {
      for (uint64_t done = 0; done <= 50'000'000; done += 1'000'000) bar.Update(i, done);
    });
  }
  for (auto& t : threads) t.join();
  // The last figure is at most the total, never more (each file's bytes counted once).
  std::this_thread::sleep_for(std::chrono::milliseconds(110));
  bar.Update(0, 50'000'000);
  bar.Finish();
  const std::string text = Written(out);
  EXPECT_NE(text.find("200 MB of 200 MB"), std::string::npos) << text;
  // Every figure written on the way, not only the last, stays within the total.
  const std::regex figure(R"(([0-9]+) MB of 200 MB)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), figure);
       it != std::sregex_iterator(); ++it) {
    EXPECT_LE(std::stoi((*it)[1]), 200) << it->str();
  }
  std::fclose(out);
}

}  // namespace
}  // namespace flopspy::tools
