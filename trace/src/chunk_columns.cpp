#include "chunk_columns.h"

#include <cstring>
#include <map>
#include <utility>

#include "flopspy/trace/schema.h"

namespace flopspy::trace {
namespace {

constexpr size_t kWord = 8;
constexpr size_t kMaxGroups = 65535;

struct Group {
  uint32_t bytes = 0;
  uint32_t records = 0;
  size_t column = 0;  // where its words start in the arranged buffer
};

uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

void Store32(uint8_t* p, uint32_t v) {
  std::memcpy(p, &v, sizeof(v));
}

}  // namespace

bool ArrangeInColumns(std::span<const uint8_t> payload, uint32_t record_count,
                      std::vector<uint8_t>* out) {
  // Groups by (type, size), numbered in order of first appearance.
  std::map<std::pair<uint8_t, uint32_t>, uint16_t> numbers;
  std::vector<Group> groups;
  std::vector<uint16_t> sequence;
  sequence.reserve(record_count);
  for (size_t at = 0; at + sizeof(RecordHeader) <= payload.size();) {
    RecordHeader h;
    std::memcpy(&h, payload.data() + at, sizeof(h));
    const auto size = static_cast<uint32_t>(h.size());
    if (size == 0 || at + size > payload.size()) return false;  // not whole records
    const auto [it, added] =
        numbers.try_emplace({h.type, size}, static_cast<uint16_t>(groups.size()));
    if (added) {
      if (groups.size() == kMaxGroups) return false;
      groups.push_back({size, 0, 0});
    }
    ++groups[it->second].records;
    sequence.push_back(it->second);
    at += size;
  }
  if (sequence.size() != record_count) return false;

  const size_t table = kWord + groups.size() * kWord;
  const size_t order = AlignRecordSize(sequence.size() * sizeof(uint16_t));
  size_t column = table + order;
  for (Group& g : groups) {
    g.column = column;
    column += size_t{g.bytes} * g.records;
  }
  out->assign(column, 0);
  uint8_t* base = out->data();
  Store32(base, static_cast<uint32_t>(groups.size()));
  for (size_t i = 0; i < groups.size(); ++i) {
    Store32(base + kWord + i * kWord, groups[i].bytes);
    Store32(base + kWord + i * kWord + 4, groups[i].records);
  }
  std::memcpy(base + table, sequence.data(), sequence.size() * sizeof(uint16_t));
  std::vector<uint32_t> next(groups.size(), 0);
  size_t at = 0;
  for (const uint16_t number : sequence) {
    const Group& g = groups[number];
    const uint32_t k = next[number]++;
    for (size_t w = 0; w < g.bytes / kWord; ++w) {
      std::memcpy(base + g.column + (w * g.records + k) * kWord, payload.data() + at + w * kWord,
                  kWord);
    }
    at += g.bytes;
  }
  return true;
}

bool RestoreFromColumns(std::span<const uint8_t> columns, uint32_t record_count, size_t max_bytes,
                        std::vector<uint8_t>* out, std::string* error) {
  const auto fail = [error](std::string why) {
    *error = std::move(why);
    return false;
  };
  if (columns.size() < kWord) return fail("has no column table");
  const uint32_t group_count = Load32(columns.data());
  if (group_count == 0 || group_count > kMaxGroups) return fail("has an impossible column table");
  const size_t table = kWord + size_t{group_count} * kWord;
  const size_t order = AlignRecordSize(size_t{record_count} * sizeof(uint16_t));
  if (columns.size() < table + order) return fail("ends inside its column table");
  std::vector<Group> groups(group_count);
  size_t column = table + order;
  uint64_t records = 0;
  for (size_t i = 0; i < group_count; ++i) {
    Group& g = groups[i];
    g.bytes = Load32(columns.data() + kWord + i * kWord);
    g.records = Load32(columns.data() + kWord + i * kWord + 4);
    if (g.bytes == 0 || g.bytes % kWord != 0 || g.bytes > kMaxRecordBytes || g.records == 0) {
      return fail("has an impossible column table");
    }
    records += g.records;
    g.column = column;
    column += size_t{g.bytes} * g.records;
    if (column > columns.size() || column - table - order > max_bytes) {
      return fail("has columns longer than the chunk");
    }
  }
  if (records != record_count || column != columns.size()) {
    return fail("has columns that do not add up to its records");
  }
  out->resize(column - table - order);
  std::vector<uint32_t> next(group_count, 0);
  const uint8_t* base = columns.data();
  size_t at = 0;
  for (uint32_t r = 0; r < record_count; ++r) {
    uint16_t number;
    std::memcpy(&number, base + table + size_t{r} * sizeof(uint16_t), sizeof(number));
    if (number >= group_count) return fail("names a record kind it does not have");
    const Group& g = groups[number];
    const uint32_t k = next[number]++;
    if (k >= g.records) return fail("has more records of a kind than its table says");
    for (size_t w = 0; w < g.bytes / kWord; ++w) {
      std::memcpy(out->data() + at + w * kWord, base + g.column + (w * g.records + k) * kWord,
                  kWord);
    }
    at += g.bytes;
  }
  return true;
}

}  // namespace flopspy::trace
