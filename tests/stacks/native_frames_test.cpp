// The pieces of native stack capture in this process: the walker (a repeated call path is
// confirmed from its stack slots without a walk, a new one is walked), the module map, and the
// FLOPSPY_STACKS / FLOPSPY_STACK_SAMPLE settings.
#include "native_frames.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config.h"
#include "module_map.h"

namespace flopspy::interpose {
namespace {

struct Captured {
  std::vector<uint64_t> frames;
  uint64_t id = 0;
  bool repeated = false;
  bool truncated = false;
};

Captured Copy(const NativeStack& s) {
  return {std::vector<uint64_t>(s.frames, s.frames + s.depth), s.id, s.repeated, s.truncated};
}

// A walker for this thread, skipping nothing but its own frame.
std::unique_ptr<NativeFrameWalker> ThreadWalker() {
  auto walker = std::make_unique<NativeFrameWalker>();
  pthread_attr_t attr;
  void* base = nullptr;
  size_t size = 0;
  EXPECT_EQ(pthread_getattr_np(pthread_self(), &attr), 0);
  EXPECT_EQ(pthread_attr_getstack(&attr, &base, &size), 0);
  pthread_attr_destroy(&attr);
  const auto low = reinterpret_cast<uint64_t>(base);
  walker->Init(0, 0, low, low + size);
  return walker;
}

extern "C" __attribute__((noinline)) Captured stacks_capture_here(NativeFrameWalker* w) {
  Captured c = Copy(w->Capture());
  asm volatile("" ::: "memory");
  return c;
}
extern "C" __attribute__((noinline)) Captured stacks_path_one(NativeFrameWalker* w) {
  Captured c = stacks_capture_here(w);
  asm volatile("" ::: "memory");
  return c;
}
extern "C" __attribute__((noinline)) Captured stacks_path_two(NativeFrameWalker* w) {
  Captured c = stacks_capture_here(w);
  asm volatile("" ::: "memory");
  return c;
}
extern "C" __attribute__((noinline)) Captured stacks_recurse(NativeFrameWalker* w, int depth) {
  Captured c = depth == 0 ? stacks_capture_here(w) : stacks_recurse(w, depth - 1);
  asm volatile("" ::: "memory");
  return c;
}

bool Within(uint64_t address, const void* function, size_t max_size = 512) {
  const auto start = reinterpret_cast<uint64_t>(function);
  return address > start && address <= start + max_size;
}

// Each capture below comes from one call site of the test (a loop): the same path each time.
TEST(NativeFrameWalker, ARepeatedPathIsConfirmedWithoutAWalk) {
  const auto walker = ThreadWalker();
  Captured c[2];
  for (Captured& one : c) one = stacks_path_one(walker.get());
  ASSERT_GE(c[0].frames.size(), 3u);
  EXPECT_FALSE(c[0].repeated);
  EXPECT_TRUE(c[1].repeated) << "the slots of the first walk confirm the second";
  EXPECT_EQ(c[1].frames, c[0].frames);
  EXPECT_EQ(c[1].id, c[0].id);
  EXPECT_NE(c[0].id, 0u);
  // Innermost first: the return into stacks_capture_here, then into stacks_path_one.
  EXPECT_TRUE(Within(c[0].frames[0], reinterpret_cast<const void*>(&stacks_capture_here)));
  EXPECT_TRUE(Within(c[0].frames[1], reinterpret_cast<const void*>(&stacks_path_one)));
}

TEST(NativeFrameWalker, AnotherPathIsWalkedAndHasAnotherId) {
  const auto walker = ThreadWalker();
  Captured one[2], two[2];
  for (int i = 0; i < 2; ++i) {
    one[i] = stacks_path_one(walker.get());
    two[i] = stacks_path_two(walker.get());
  }
  EXPECT_FALSE(two[0].repeated) << "its return address differs in the first slot";
  EXPECT_NE(two[0].id, one[0].id);
  EXPECT_TRUE(Within(two[0].frames[1], reinterpret_cast<const void*>(&stacks_path_two)));
  // Both kept: each is confirmed again.
  EXPECT_TRUE(one[1].repeated);
  EXPECT_TRUE(two[1].repeated);
  EXPECT_EQ(one[1].id, one[0].id);
  EXPECT_EQ(two[1].id, two[0].id);
}

TEST(NativeFrameWalker, AWalkTakingOverTheLastOnesOuterFramesEqualsAFullWalk) {
  // Path two after path one: the walk stops at the test's own frame, found at the same slot
  // with the same outer frames as path one's walk, and takes those over.
  const auto walker = ThreadWalker();
  stacks_recurse(walker.get(), 3);
  const Captured spliced = stacks_path_two(walker.get());
  NativeFrameWalker fresh;  // no bounds: no earlier walk to take over, a full walk
  fresh.Init(0, 0, 0, 0);
  const Captured full = stacks_path_two(&fresh);
  EXPECT_FALSE(spliced.repeated);
  ASSERT_EQ(spliced.frames.size(), full.frames.size());
  ASSERT_GE(full.frames.size(), 4u);
  // Frame 2 returns into this test at two different calls; every other frame is the same.
  for (size_t i = 0; i < full.frames.size(); ++i) {
    if (i != 2) {
      EXPECT_EQ(spliced.frames[i], full.frames[i]) << "frame " << i;
    }
  }
  EXPECT_NE(spliced.frames[2], full.frames[2]);
}

TEST(NativeFrameWalker, DeeperRecursionIsANewStack) {
  const auto walker = ThreadWalker();
  std::vector<Captured> c;
  for (const int depth : {2, 5, 5}) c.push_back(stacks_recurse(walker.get(), depth));
  EXPECT_FALSE(c[1].repeated);
  EXPECT_EQ(c[1].frames.size(), c[0].frames.size() + 3);
  EXPECT_NE(c[1].id, c[0].id);
  EXPECT_TRUE(c[2].repeated);
  EXPECT_EQ(c[2].frames, c[1].frames);
}

TEST(NativeFrameWalker, AStackDeeperThanTheLimitIsCut) {
  const auto walker = ThreadWalker();
  Captured c[2];
  for (Captured& deep : c) deep = stacks_recurse(walker.get(), trace::kMaxStackFrames + 50);
  EXPECT_TRUE(c[0].truncated);
  EXPECT_EQ(c[0].frames.size(), static_cast<size_t>(trace::kMaxStackFrames));
  EXPECT_EQ(c[1].id, c[0].id);
  EXPECT_TRUE(c[1].truncated);
  EXPECT_TRUE(c[1].repeated);
}

TEST(NativeFrameWalker, WithoutStackBoundsEveryCaptureWalks) {
  NativeFrameWalker walker;
  walker.Init(0, 0, 0, 0);
  Captured c[2];
  for (Captured& one : c) one = stacks_path_one(&walker);
  EXPECT_FALSE(c[1].repeated);
  EXPECT_EQ(c[1].id, c[0].id);
}

TEST(ModuleMap, ListsThisProgramWithItsBuildId) {
  const auto here = reinterpret_cast<uint64_t>(&stacks_capture_here);
  const int index = ModuleIndexOf(here);
  ASSERT_NE(index, kNoModule);
  EXPECT_EQ(ModuleIndexOf(here + 1), index);
  std::vector<uint8_t> buffer(8192);
  const size_t size = DescribeModule(index, buffer.data(), buffer.size());
  ASSERT_GT(size, sizeof(trace::ModuleRecord));
  EXPECT_EQ(size % trace::kRecordAlign, 0u);
  trace::ModuleRecord record;
  std::memcpy(&record, buffer.data(), sizeof(record));
  EXPECT_EQ(record.h.type, static_cast<uint8_t>(trace::RecordType::kModule));
  EXPECT_EQ(record.h.size(), size);
  EXPECT_LE(record.start, here);
  EXPECT_GT(record.end, here);
  const std::string path(reinterpret_cast<const char*>(buffer.data() + sizeof(record)),
                         record.path_length);
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe));
  ASSERT_GT(n, 0);
  EXPECT_EQ(path, std::string(exe, static_cast<size_t>(n)));
  EXPECT_EQ(record.build_id_length, 20u);
  EXPECT_EQ(DescribeModule(index, buffer.data(), 16), 0u) << "too small: nothing written";
  EXPECT_EQ(DescribeModule(100000, buffer.data(), buffer.size()), 0u);
}

TEST(ModuleMap, ASharedLibraryHasItsOwnEntry) {
  const int libc = ModuleIndexOf(reinterpret_cast<uint64_t>(&pthread_self));
  ASSERT_NE(libc, kNoModule);
  EXPECT_NE(libc, ModuleIndexOf(reinterpret_cast<uint64_t>(&stacks_capture_here)));
  EXPECT_EQ(ModuleIndexOf(16), kNoModule);
}

ConfigResult Parse(std::map<std::string, std::string> env) {
  return ParseConfig([&env](std::string_view name) -> std::optional<std::string> {
    const auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST(StackConfig, DefaultIsAutoEveryThirtySecond) {
  const ConfigResult r = Parse({});
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_FALSE(r.config.stacks_explicit);
  EXPECT_EQ(r.config.stack_sample, 32u);
  EXPECT_EQ(StackPolicyName(r.config), "auto");
}

TEST(StackConfig, EachPolicyIsRead) {
  const std::map<std::string, StackPolicy> policies = {{"off", StackPolicy::kOff},
                                                       {"python", StackPolicy::kPython},
                                                       {"native", StackPolicy::kNative},
                                                       {"both", StackPolicy::kBoth}};
  for (const auto& [text, policy] : policies) {
    const ConfigResult r = Parse({{"FLOPSPY_STACKS", text}});
    EXPECT_TRUE(r.warnings.empty()) << text;
    EXPECT_TRUE(r.config.stacks_explicit) << text;
    EXPECT_EQ(r.config.stacks, policy) << text;
    EXPECT_EQ(StackPolicyName(r.config), text);
  }
  EXPECT_FALSE(Parse({{"FLOPSPY_STACKS", "auto"}}).config.stacks_explicit);
}

TEST(StackConfig, BadValuesWarnOnceAndKeepTheDefault) {
  const ConfigResult r = Parse({{"FLOPSPY_STACKS", "Native"}, {"FLOPSPY_STACK_SAMPLE", "0"}});
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("FLOPSPY_STACKS"), std::string::npos);
  EXPECT_NE(r.warnings[1].find("FLOPSPY_STACK_SAMPLE"), std::string::npos);
  EXPECT_FALSE(r.config.stacks_explicit);
  EXPECT_EQ(r.config.stack_sample, 32u);
  EXPECT_EQ(Parse({{"FLOPSPY_STACK_SAMPLE", "4"}}).config.stack_sample, 4u);
}

}  // namespace
}  // namespace flopspy::interpose
