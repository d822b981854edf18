// The activity buffer pool: bounded, mapped once, nothing handed out twice, completion order
// kept, refusals counted.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <thread>

#include "cupti_buffers.h"

namespace flopspy::testing {
namespace {

using interpose::ActivityBufferPool;

TEST(BufferPool, HandsOutEachBufferOnceThenRefusesAndCounts) {
  ActivityBufferPool pool(4096, 3);
  std::string error;
  ASSERT_TRUE(pool.Allocate(&error)) << error;
  std::set<uint8_t*> seen;
  for (int i = 0; i < 3; ++i) {
    size_t size = 0;
    uint8_t* b = pool.Take(&size);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(size, 4096u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 8, 0u);
    EXPECT_TRUE(seen.insert(b).second);
  }
  size_t size = 123;
  EXPECT_EQ(pool.Take(&size), nullptr);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(pool.Take(&size), nullptr);
  EXPECT_EQ(pool.refused(), 2u);
  EXPECT_EQ(pool.taken(), 3u);
  EXPECT_EQ(pool.with_cupti(), 3u);
}

TEST(BufferPool, NothingBeforeAllocation) {
  ActivityBufferPool pool(4096, 2);
  size_t size = 0;
  EXPECT_EQ(pool.Take(&size), nullptr);
  EXPECT_EQ(pool.refused(), 1u);
  ActivityBufferPool empty(4096, 0);
  std::string error;
  EXPECT_FALSE(empty.Allocate(&error));
  EXPECT_FALSE(error.empty());
}

TEST(BufferPool, SizeIsRoundedToRecordAlignment) {
  ActivityBufferPool pool(1001, 2);
  EXPECT_EQ(pool.buffer_bytes(), 1008u);
}

TEST(BufferPool, CompletedBuffersComeBackInCompletionOrderUntilReleased) {
  ActivityBufferPool pool(256, 3);
  std::string error;
  ASSERT_TRUE(pool.Allocate(&error));
  size_t size;
  uint8_t* a = pool.Take(&size);
  uint8_t* b = pool.Take(&size);
  uint8_t* c = pool.Take(&size);
  EXPECT_TRUE(pool.Complete(c, 24));
  EXPECT_TRUE(pool.Complete(a, 999));  // more than the buffer: clamped
  std::vector<ActivityBufferPool::Completed> done;
  pool.CollectCompleted(&done);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].data, c);
  EXPECT_EQ(done[0].valid_size, 24u);
  EXPECT_EQ(done[1].data, a);
  EXPECT_EQ(done[1].valid_size, 256u);
  EXPECT_EQ(pool.Take(&size), nullptr);  // completed but not released: still out
  pool.Release(done[0].slot);
  EXPECT_EQ(pool.Take(&size), c);
  pool.CollectCompleted(&done);
  ASSERT_EQ(done.size(), 1u);  // a is still waiting for the flusher
  EXPECT_EQ(done[0].data, a);
  EXPECT_TRUE(pool.Complete(b, 8));
}

TEST(BufferPool, RejectsBuffersThatAreNotItsOwn) {
  ActivityBufferPool pool(256, 2);
  std::string error;
  ASSERT_TRUE(pool.Allocate(&error));
  size_t size;
  uint8_t* a = pool.Take(&size);
  uint8_t other[64];
  EXPECT_FALSE(pool.Complete(other, 8));
  EXPECT_FALSE(pool.Complete(a + 8, 8));  // not a buffer start
  EXPECT_FALSE(pool.Complete(nullptr, 8));
  EXPECT_TRUE(pool.Complete(a, 8));
  EXPECT_FALSE(pool.Complete(a, 8));  // twice
  EXPECT_EQ(pool.foreign(), 4u);
}

TEST(BufferPool, ResetAllFreesEverything) {
  ActivityBufferPool pool(256, 2);
  std::string error;
  ASSERT_TRUE(pool.Allocate(&error));
  size_t size;
  uint8_t* a = pool.Take(&size);
  pool.Take(&size);
  pool.Complete(a, 8);
  pool.ResetAll();
  std::vector<ActivityBufferPool::Completed> done;
  pool.CollectCompleted(&done);
  EXPECT_TRUE(done.empty());
  EXPECT_EQ(pool.with_cupti(), 0u);
  EXPECT_NE(pool.Take(&size), nullptr);
  EXPECT_NE(pool.Take(&size), nullptr);
}

TEST(BufferPool, ConcurrentTakersAndOneCollectorNeverShareABuffer) {
  ActivityBufferPool pool(64, 8);
  std::string error;
  ASSERT_TRUE(pool.Allocate(&error));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> cycles{0};
  std::vector<std::thread> cupti;
  for (int t = 0; t < 4; ++t) {
    cupti.emplace_back([&, t] {
      while (!stop.load()) {
        size_t size;
        uint8_t* b = pool.Take(&size);
        if (b == nullptr) continue;
        // Owned until completed: nobody else writes here.
        std::memset(b, t + 1, size);
        for (size_t i = 0; i < size; ++i) ASSERT_EQ(b[i], t + 1);
        pool.Complete(b, size);
        cycles.fetch_add(1);
      }
    });
  }
  std::vector<ActivityBufferPool::Completed> done;
  while (cycles.load() < 20000) {
    pool.CollectCompleted(&done);
    for (const auto& c : done) pool.Release(c.slot);
  }
  stop.store(true);
  for (auto& t : cupti) t.join();
  EXPECT_EQ(pool.foreign(), 0u);
}

}  // namespace
}  // namespace flopspy::testing
