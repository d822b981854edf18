// FunctionTable, the kernel lookup every launch makes: lock-free finds, ids in insertion order,
// one entry per handle when two threads race, and every handle still found once probing gives up
// (more kernels than slots go to the locked overflow list).
#include "function_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace flopspy::interpose {
namespace {

// The table never frees its entries (hooks may look them up during exit); a test does.
struct Table {
  std::unique_ptr<FunctionTable> table = std::make_unique<FunctionTable>();
  ~Table() {
    for (uint32_t id = 1; id <= table->size(); ++id) delete table->ById(id);
  }
};

FunctionInfo* Info(uint64_t handle) {
  auto* info = new FunctionInfo;
  info->handle = handle;
  return info;
}

TEST(FunctionTable, FindsWhatWasInsertedAndNothingElse) {
  Table t;
  EXPECT_EQ(t.table->Find(0x1234), nullptr);
  FunctionInfo* a = t.table->Insert(Info(0x1234));
  FunctionInfo* b = t.table->Insert(Info(0x5678));
  EXPECT_EQ(a->id, 1u);
  EXPECT_EQ(b->id, 2u);
  EXPECT_EQ(t.table->Find(0x1234), a);
  EXPECT_EQ(t.table->Find(0x5678), b);
  EXPECT_EQ(t.table->Find(0x9999), nullptr);
  EXPECT_EQ(t.table->ById(1), a);
  EXPECT_EQ(t.table->ById(2), b);
  EXPECT_EQ(t.table->ById(0), nullptr);
  EXPECT_EQ(t.table->ById(3), nullptr);
  EXPECT_EQ(t.table->size(), 2u);
}

TEST(FunctionTable, TheSecondInsertOfAHandleGetsTheFirstEntry) {
  Table t;
  FunctionInfo* first = t.table->Insert(Info(0x42));
  EXPECT_EQ(t.table->Insert(Info(0x42)), first);  // the newcomer is deleted
  EXPECT_EQ(t.table->size(), 1u);
}

TEST(FunctionTable, ThreadsRacingOnOneHandleShareOneEntry) {
  Table t;
  std::vector<FunctionInfo*> seen(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] {
      for (uint64_t h = 1; h <= 200; ++h) {
        FunctionInfo* info = t.table->Find(h);
        if (info == nullptr) info = t.table->Insert(Info(h));
        if (h == 100) seen[i] = info;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(t.table->size(), 200u);
  for (FunctionInfo* info : seen) EXPECT_EQ(info, seen[0]);
}

TEST(FunctionTable, MoreKernelsThanSlotsAreAllFoundThroughTheSlowPath) {
  Table t;
  const uint64_t count = FunctionTable::kSlots + 2000;
  for (uint64_t h = 1; h <= count; ++h) t.table->Insert(Info(h * 0x10));
  EXPECT_EQ(t.table->size(), count);
  for (uint64_t h = 1; h <= count; ++h) {
    const FunctionInfo* info = t.table->Find(h * 0x10);
    ASSERT_NE(info, nullptr) << h;
    ASSERT_EQ(info->handle, h * 0x10);
    ASSERT_EQ(info->id, h);
  }
  EXPECT_EQ(t.table->Find(0x8), nullptr);  // a miss walks the probes and the overflow list
}

}  // namespace
}  // namespace flopspy::interpose
