// ThreadBuffer, the per-thread ring every hook writes into: records come out whole and in order,
// a record never straddles the end (a padding marker sends the reader back), a full ring drops
// and counts instead of waiting, and a reservation is written in place.
#include "thread_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace flopspy::interpose {
namespace {

constexpr size_t kCapacity = 4096;
constexpr uint8_t kTestType = 200;  // a raw type: never in a file

// A ring over memory the test owns (8-byte aligned, as the recorder's mapping is).
struct Ring {
  std::vector<uint64_t> memory = std::vector<uint64_t>(kCapacity / 8);
  ThreadBuffer buffer{reinterpret_cast<uint8_t*>(memory.data()), kCapacity};
};

// A record of `size` bytes (a multiple of 8) whose body bytes all hold `fill`.
std::vector<uint8_t> Record(size_t size, uint8_t fill) {
  std::vector<uint8_t> r(size, fill);
  const trace::RecordHeader h{kTestType, 0, static_cast<uint16_t>(size / trace::kRecordAlign)};
  std::memcpy(r.data(), &h, sizeof(h));
  return r;
}

std::vector<std::vector<uint8_t>> DrainAll(ThreadBuffer& buffer) {
  std::vector<std::vector<uint8_t>> out;
  buffer.Drain(
      [&](const uint8_t* record, size_t size) { out.emplace_back(record, record + size); });
  return out;
}

TEST(ThreadBuffer, RecordsComeOutWholeAndInOrder) {
  Ring ring;
  ASSERT_TRUE(ring.buffer.Write(Record(16, 1).data(), 16));
  ASSERT_TRUE(ring.buffer.Write(Record(120, 2).data(), 120));
  ASSERT_TRUE(ring.buffer.Write(Record(8, 3).data(), 8));
  EXPECT_FALSE(ring.buffer.empty());
  const auto out = DrainAll(ring.buffer);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], Record(16, 1));
  EXPECT_EQ(out[1], Record(120, 2));
  EXPECT_EQ(out[2], Record(8, 3));
  EXPECT_TRUE(ring.buffer.empty());
  EXPECT_EQ(ring.buffer.dropped(), 0u);
  EXPECT_TRUE(DrainAll(ring.buffer).empty());  // drained space is not read twice
}

TEST(ThreadBuffer, ARecordThatWouldStraddleTheEndStartsAtTheBeginningAfterPadding) {
  Ring ring;
  // 4000 bytes in, drained: the next record has 96 bytes before the end.
  ASSERT_TRUE(ring.buffer.Write(Record(4000, 1).data(), 4000));
  ASSERT_EQ(DrainAll(ring.buffer).size(), 1u);
  ASSERT_TRUE(ring.buffer.Write(Record(64, 2).data(), 64));    // fits: 32 bytes left
  ASSERT_TRUE(ring.buffer.Write(Record(128, 3).data(), 128));  // does not: padding, then start
  const auto* bytes = reinterpret_cast<const uint8_t*>(ring.memory.data());
  trace::RecordHeader padding;
  std::memcpy(&padding, bytes + 4064, sizeof(padding));
  EXPECT_EQ(padding.type, static_cast<uint8_t>(trace::RecordType::kPadding));
  EXPECT_EQ(padding.size8, 0);
  EXPECT_EQ(std::memcmp(bytes, Record(128, 3).data(), 128), 0);  // at the start of the memory
  const auto out = DrainAll(ring.buffer);                        // the padding is no record
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], Record(64, 2));
  EXPECT_EQ(out[1], Record(128, 3));
}

TEST(ThreadBuffer, AFullRingDropsAndCountsEachRecordItCannotTake) {
  Ring ring;
  int written = 0;
  while (ring.buffer.Write(Record(256, 7).data(), 256)) ++written;
  EXPECT_EQ(written, static_cast<int>(kCapacity / 256));
  EXPECT_EQ(ring.buffer.dropped(), 1u);
  EXPECT_FALSE(ring.buffer.Write(Record(8, 7).data(), 8));
  EXPECT_EQ(ring.buffer.dropped(), 2u);
  // Once the flusher drained it, the ring takes records again; the count of drops stays.
  EXPECT_EQ(DrainAll(ring.buffer).size(), static_cast<size_t>(written));
  EXPECT_TRUE(ring.buffer.Write(Record(256, 8).data(), 256));
  EXPECT_EQ(ring.buffer.dropped(), 2u);
}

TEST(ThreadBuffer, ARecordThatMustWrapNeedsRoomForTheSkippedEndAsWell) {
  Ring ring;
  ASSERT_TRUE(ring.buffer.Write(Record(4000, 1).data(), 4000));
  ASSERT_EQ(DrainAll(ring.buffer).size(), 1u);
  ASSERT_TRUE(ring.buffer.Write(Record(64, 2).data(), 64));  // 4000..4064; 32 bytes to the end
  // 4032 bytes are free, but a record that wraps also spends the 32 it skips.
  EXPECT_EQ(ring.buffer.Reserve(4008), nullptr);
  EXPECT_EQ(ring.buffer.dropped(), 1u);
  EXPECT_NE(ring.buffer.Reserve(4000), nullptr);
  EXPECT_EQ(ring.buffer.dropped(), 1u);
}

TEST(ThreadBuffer, AReservationIsWrittenInPlaceAndCommittedAtItsFinalSize) {
  Ring ring;
  uint8_t* at = ring.buffer.Reserve(96);
  ASSERT_NE(at, nullptr);
  EXPECT_EQ(at, reinterpret_cast<uint8_t*>(ring.memory.data()));
  EXPECT_TRUE(ring.buffer.empty());  // nothing is visible before Commit
  const auto record = Record(40, 5);
  std::memcpy(at, record.data(), record.size());
  ring.buffer.Commit(40);
  // The next record starts where the committed one ended, not after the reservation.
  EXPECT_EQ(ring.buffer.Reserve(8), at + 40);
  ring.buffer.Commit(0);  // a reservation given up: nothing is published
  const auto out = DrainAll(ring.buffer);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], record);
}

TEST(ThreadBuffer, AReservationNearTheEndWrapsByItsReservedSize) {
  Ring ring;
  ASSERT_TRUE(ring.buffer.Write(Record(4032, 1).data(), 4032));
  ASSERT_EQ(DrainAll(ring.buffer).size(), 1u);
  // 64 bytes before the end: a 112-byte reservation starts over at the beginning even if the
  // record committed turns out to be 48 bytes.
  uint8_t* at = ring.buffer.Reserve(112);
  ASSERT_EQ(at, reinterpret_cast<uint8_t*>(ring.memory.data()));
  const auto record = Record(48, 6);
  std::memcpy(at, record.data(), record.size());
  ring.buffer.Commit(48);
  const auto out = DrainAll(ring.buffer);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], record);
}

TEST(ThreadBuffer, DiscardAndForkResetForgetWhatWasWritten) {
  Ring ring;
  ASSERT_TRUE(ring.buffer.Write(Record(64, 1).data(), 64));
  ring.buffer.Discard();
  EXPECT_TRUE(ring.buffer.empty());
  EXPECT_TRUE(DrainAll(ring.buffer).empty());
  while (ring.buffer.Write(Record(512, 2).data(), 512)) {
  }
  ring.buffer.thread_named = true;
  ring.buffer.ResetAfterFork();
  EXPECT_TRUE(ring.buffer.empty());
  // The parent's drops are not the child's: they count as reported already.
  EXPECT_EQ(ring.buffer.reported_drops, ring.buffer.dropped());
  EXPECT_FALSE(ring.buffer.thread_named);
}

TEST(ThreadBuffer, ARetiredBufferIsClaimedOnlyOnceItIsFreeAndByOneThread) {
  Ring ring;
  EXPECT_EQ(ring.buffer.state(), ThreadBuffer::State::kActive);
  ring.buffer.set_state(ThreadBuffer::State::kRetired);  // its thread exited
  EXPECT_FALSE(ring.buffer.TryMove(ThreadBuffer::State::kFree, ThreadBuffer::State::kClaiming));
  ring.buffer.set_state(ThreadBuffer::State::kFree);  // the flusher drained it
  EXPECT_TRUE(ring.buffer.TryMove(ThreadBuffer::State::kFree, ThreadBuffer::State::kClaiming));
  // A second new thread, or the flusher wanting to unmap it, finds it taken.
  EXPECT_FALSE(ring.buffer.TryMove(ThreadBuffer::State::kFree, ThreadBuffer::State::kClaiming));
  EXPECT_FALSE(ring.buffer.TryMove(ThreadBuffer::State::kFree, ThreadBuffer::State::kUnmapping));
  EXPECT_TRUE(ring.buffer.TryMove(ThreadBuffer::State::kClaiming, ThreadBuffer::State::kActive));
  EXPECT_EQ(ring.buffer.state(), ThreadBuffer::State::kActive);
}

TEST(ThreadBuffer, NewMemoryStartsEmptyWithNoDrops) {
  Ring ring;
  while (ring.buffer.Write(Record(512, 2).data(), 512)) {
  }
  ASSERT_GT(ring.buffer.dropped(), 0u);
  ring.buffer.Discard();
  uint8_t* old = ring.buffer.Detach();
  EXPECT_FALSE(ring.buffer.has_memory());
  std::vector<uint64_t> fresh(kCapacity / 8);
  ring.buffer.Attach(reinterpret_cast<uint8_t*>(fresh.data()));
  EXPECT_NE(old, reinterpret_cast<uint8_t*>(fresh.data()));
  EXPECT_EQ(ring.buffer.dropped(), 0u);
  EXPECT_EQ(ring.buffer.reported_drops, 0u);
  EXPECT_EQ(ring.buffer.Reserve(8), reinterpret_cast<uint8_t*>(fresh.data()));
}

}  // namespace
}  // namespace flopspy::interpose
