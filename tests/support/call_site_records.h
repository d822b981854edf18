// Call-site records (trace format 4) as the recorder writes them, whole (fixed part, tail, zero
// padding) and ready for TraceBuilder::AddRaw or a hand-made RecordView.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::testing {

namespace call_site_detail {
template <class T>
std::vector<uint8_t> WithTail(T fixed, std::string_view tail, uint8_t flags = 0) {
  const size_t size = trace::AlignRecordSize(sizeof(T) + tail.size());
  fixed.h = trace::MakeHeader<T>(flags);
  fixed.h.size8 = static_cast<uint16_t>(size / trace::kRecordAlign);
  std::vector<uint8_t> bytes(size, 0);
  std::memcpy(bytes.data(), &fixed, sizeof(T));
  if (!tail.empty()) std::memcpy(bytes.data() + sizeof(T), tail.data(), tail.size());
  return bytes;
}
}  // namespace call_site_detail

// A code object of `file`, qualified name `name`, first line `first_line`, with line table
// `linetable` in the format of Python `version` (0x030A: 3.10 pairs, else 3.11 locations).
inline std::vector<uint8_t> PyCode(uint64_t key, std::string_view file, std::string_view name,
                                   int32_t first_line, std::string_view linetable,
                                   uint16_t version = 0x030B) {
  trace::PyCodeRecord r{};
  r.code_key = key;
  r.first_line = first_line;
  r.python_version = version;
  r.linetable_format = static_cast<uint8_t>(version == 0x030A ? trace::PyLinetableFormat::kPy310
                                                              : trace::PyLinetableFormat::kPy311);
  r.filename_length = static_cast<uint16_t>(file.size());
  r.name_length = static_cast<uint16_t>(name.size());
  r.linetable_length = static_cast<uint32_t>(linetable.size());
  std::string tail(file);
  tail.append(name).append(linetable);
  return call_site_detail::WithTail(r, tail);
}

// A 3.11+ line table whose every instruction is on line `first_line + delta` (one
// no-column entry, codes 13, covering 8 code units: offsets 0 to 15).
inline std::string OneLineTable(int delta) {
  const auto zigzag = static_cast<uint8_t>(delta < 0 ? (-delta << 1) | 1 : delta << 1);
  return std::string{static_cast<char>(0x80 | (13 << 3) | 7), static_cast<char>(zigzag & 0x3F)};
}

// A Python stack of (code key, byte offset) frames, innermost first.
inline std::vector<uint8_t> PythonStack(uint64_t id,
                                        const std::vector<std::pair<uint64_t, uint32_t>>& frames,
                                        bool truncated = false) {
  trace::StackRecord r{};
  r.kind = static_cast<uint8_t>(trace::StackKind::kPython);
  r.depth = static_cast<uint16_t>(frames.size());
  r.stack_id = id;
  std::string tail;
  for (const auto& [key, offset] : frames) {
    trace::PyFrame f{key, offset, 0};
    tail.append(reinterpret_cast<const char*>(&f), sizeof f);
  }
  return call_site_detail::WithTail(r, tail, truncated ? trace::kStackTruncated : 0);
}

// A native stack of return addresses, innermost first.
inline std::vector<uint8_t> NativeStack(uint64_t id, const std::vector<uint64_t>& addresses) {
  trace::StackRecord r{};
  r.kind = static_cast<uint8_t>(trace::StackKind::kNative);
  r.depth = static_cast<uint16_t>(addresses.size());
  r.stack_id = id;
  std::string tail(reinterpret_cast<const char*>(addresses.data()), addresses.size() * 8);
  return call_site_detail::WithTail(r, tail);
}

// A loaded object: `path`, raw build id bytes, mapped over [start, end) with load bias `bias`.
inline std::vector<uint8_t> Module(std::string_view path, std::string_view build_id, uint64_t bias,
                                   uint64_t start, uint64_t end) {
  trace::ModuleRecord r{};
  r.path_length = static_cast<uint16_t>(path.size());
  r.build_id_length = static_cast<uint16_t>(build_id.size());
  r.bias = bias;
  r.start = start;
  r.end = end;
  std::string tail(path);
  tail.append(build_id);
  return call_site_detail::WithTail(r, tail);
}

// The stacks of launch `correlation` (stack ids; 0: none).
inline trace::StackSampleRecord StackSample(
    uint64_t correlation, uint64_t python_stack, uint64_t native_stack = 0,
    trace::StackSampleReason reason = trace::StackSampleReason::kNewSignature) {
  trace::StackSampleRecord r{};
  r.h = trace::MakeHeader<trace::StackSampleRecord>();
  r.reason = static_cast<uint8_t>(reason);
  r.correlation = correlation;
  r.python_stack = python_stack;
  r.native_stack = native_stack;
  r.sample_every = 32;
  return r;
}

}  // namespace flopspy::testing
