// Builds traces in memory for tests: the same writer code the recorder uses, a vector as sink.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/trace/writer.h"

namespace flopspy::testing {

class TraceBuilder {
 public:
  explicit TraceBuilder(trace::FileIdentity identity = DefaultIdentity());

  static trace::FileIdentity DefaultIdentity();

  // Starts a new chunk for `source`/`thread_id` (finishing the current one if it differs).
  TraceBuilder& Chunk(trace::ChunkSource source, uint32_t thread_id = 0);

  template <class T>
  TraceBuilder& Add(T record) {
    record.h = trace::MakeHeader<T>(record.h.flags);
    AddRaw(&record, sizeof(T));
    return *this;
  }
  TraceBuilder& AddRaw(const void* record, size_t size);
  // A grouped GEMM call (kLibGrouped | kLibGroupsFollow set here) and its LibraryGroups records,
  // as the flusher writes them.
  TraceBuilder& GroupedCall(trace::LibraryCallRecord call,
                            std::span<const trace::LibraryGroupShape> listed,
                            const trace::LibraryGroupsCut& cut);
  TraceBuilder& String(uint32_t id, std::string_view text);
  TraceBuilder& Metadata(std::string_view json);
  // Finishes the current chunk; further records start a new one.
  TraceBuilder& Flush();

  // The file so far (current chunk included).
  const std::vector<uint8_t>& Bytes();
  void WriteTo(const std::string& path);

 private:
  std::vector<uint8_t> bytes_;
  trace::TraceWriter writer_;
  trace::ChunkBuilder chunk_;
  bool chunk_open_ = false;
};

// A small complete trace at `path`: one 1 ms "step" region on thread 7, then an exit end record.
// For tests about what the tools do with a file, not with its figures.
void WriteStepTrace(const std::string& path);

}  // namespace flopspy::testing
