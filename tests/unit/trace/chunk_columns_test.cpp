// Records arranged in columns (trace/src/chunk_columns.h) and back: any mix of record kinds and
// sizes comes back byte for byte, and a column table that lies is refused, never followed.
#include "chunk_columns.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::trace {
namespace {

// `count` records of random kinds (types 1 to 5) and sizes (8 to 64 bytes), random contents.
std::vector<uint8_t> Records(uint32_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<uint8_t> payload;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t size = 8 * (1 + random() % 8);
    const size_t at = payload.size();
    payload.resize(at + size);
    for (size_t b = 0; b < size; ++b) payload[at + b] = static_cast<uint8_t>(random());
    RecordHeader h{};
    h.type = static_cast<uint8_t>(1 + random() % 5);
    h.size8 = static_cast<uint16_t>(size / 8);
    std::memcpy(payload.data() + at, &h, sizeof(h));
  }
  return payload;
}

TEST(ChunkColumns, AnyMixOfRecordsComesBackByteForByte) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const uint32_t count = seed * 37;
    const std::vector<uint8_t> payload = Records(count, seed);
    std::vector<uint8_t> columns, back;
    ASSERT_TRUE(ArrangeInColumns(payload, count, &columns));
    EXPECT_EQ(columns.size() % 8, 0u);
    EXPECT_NE(columns, payload);
    std::string error;
    ASSERT_TRUE(RestoreFromColumns(columns, count, kMaxChunkPayload, &back, &error)) << error;
    EXPECT_EQ(back, payload) << "seed " << seed;
  }
}

TEST(ChunkColumns, AWordOfEveryRecordIsStoredTogether) {
  // Two kinds, interleaved: the table, the order, then each kind's first words side by side.
  std::vector<uint8_t> payload;
  for (uint8_t i = 0; i < 4; ++i) {
    uint8_t record[16] = {};
    RecordHeader h{};
    h.type = static_cast<uint8_t>(1 + i % 2);
    h.size8 = 2;
    std::memcpy(record, &h, sizeof(h));
    record[8] = static_cast<uint8_t>(0xA0 + i);
    payload.insert(payload.end(), record, record + 16);
  }
  std::vector<uint8_t> columns;
  ASSERT_TRUE(ArrangeInColumns(payload, 4, &columns));
  // 8 (count) + 2 groups x 8 + 4 x u16 order (8) + 4 records x 16.
  ASSERT_EQ(columns.size(), 8u + 16 + 8 + 64);
  const size_t second_words_of_first_kind = 8 + 16 + 8 + 2 * 8;
  EXPECT_EQ(columns[second_words_of_first_kind], 0xA0);
  EXPECT_EQ(columns[second_words_of_first_kind + 8], 0xA2);
}

TEST(ChunkColumns, ATableThatLiesIsRefused) {
  const std::vector<uint8_t> payload = Records(50, 3);
  std::vector<uint8_t> columns;
  ASSERT_TRUE(ArrangeInColumns(payload, 50, &columns));
  uint32_t groups;
  std::memcpy(&groups, columns.data(), 4);
  const size_t order = 8 + 8 * groups;
  struct Case {
    const char* what;
    std::function<void(std::vector<uint8_t>&)> damage;
    uint32_t records = 50;
  };
  const auto put32 = [](std::vector<uint8_t>& c, size_t at, uint32_t v) {
    std::memcpy(c.data() + at, &v, 4);
  };
  const std::vector<Case> cases = {
      {"no groups", [&](auto& c) { put32(c, 0, 0); }},
      {"too many groups", [&](auto& c) { put32(c, 0, 70000); }},
      {"a record size not a multiple of 8", [&](auto& c) { put32(c, 8, 12); }},
      {"a group of no records", [&](auto& c) { put32(c, 12, 0); }},
      {"more records in a group than exist", [&](auto& c) { put32(c, 12, 1000000); }},
      {"a group named that does not exist", [&](auto& c) { c[order] = 0xFF, c[order + 1] = 0xFF; }},
      {"one group named for another",
       [&](auto& c) {
         uint16_t first, other;
         std::memcpy(&first, c.data() + order, 2);
         for (size_t i = 1;; ++i) {
           std::memcpy(&other, c.data() + order + 2 * i, 2);
           if (other != first) break;
         }
         std::memcpy(c.data() + order, &other, 2);
       }},
      {"cut short", [&](auto& c) { c.resize(c.size() - 8); }},
      {"a longer record count than the chunk's", [](auto&) {}, 51},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<uint8_t> damaged = columns, back;
    c.damage(damaged);
    std::string error;
    EXPECT_FALSE(RestoreFromColumns(damaged, c.records, kMaxChunkPayload, &back, &error));
    EXPECT_FALSE(error.empty());
  }
  std::vector<uint8_t> back;
  std::string error;
  EXPECT_FALSE(RestoreFromColumns(columns, 50, 64, &back, &error)) << "bigger than allowed";
}

TEST(ChunkColumns, BrokenRecordsAreNotArranged) {
  std::vector<uint8_t> payload = Records(10, 5);
  std::vector<uint8_t> columns;
  EXPECT_FALSE(ArrangeInColumns(payload, 11, &columns)) << "a record count that is wrong";
  payload.resize(payload.size() - 8);
  EXPECT_FALSE(ArrangeInColumns(payload, 10, &columns)) << "the last record cut";
}

}  // namespace
}  // namespace flopspy::trace
