// Shared by the call-site analysis files (call_sites_*.cpp): frame names and the user-frame rule.
#pragma once

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flopspy/analyzers/call_sites.h"
#include "flopspy/analyzers/ranges.h"

namespace flopspy::analyzers::call_sites_internal {

std::string_view BaseName(std::string_view path);

// The default rule (docs/call-sites.md, "The user's frame").
bool IsUserPythonFile(std::string_view file);
bool IsUserNativeFrame(std::string_view module_path);

// Which frames are the user's: the default rule, or --frames-from.
class UserFrameRule {
 public:
  // Throws std::regex_error for a bad `frames_from` (the command line checks it first).
  explicit UserFrameRule(const std::string& frames_from);
  bool IsUser(const SourceFrame& frame) const;

 private:
  bool Matches(std::string_view text) const;
  std::optional<std::regex> frames_from_;
};

// The frames of the trace's stacks, each code offset and address resolved once.
class FrameResolver {
 public:
  // Both must outlive the resolver.
  FrameResolver(const CallSiteLog& log, const CallSiteOptions& options);
  // Innermost first; empty for id 0 or a stack the trace does not hold.
  std::vector<SourceFrame> Python(uint64_t stack_id);
  std::vector<SourceFrame> Native(uint64_t stack_id);
  bool Truncated(uint64_t stack_id) const;

 private:
  const SourceFrame& PythonFrame(const trace::PyFrame& frame);
  const SourceFrame& NativeFrame(uint64_t address);
  const NativeModule* ModuleOf(uint64_t address) const;

  const CallSiteLog& log_;
  const CallSiteOptions& options_;
  std::vector<const NativeModule*> by_start_;
  std::map<std::pair<uint64_t, uint32_t>, SourceFrame> python_frames_;
  std::map<uint64_t, SourceFrame> native_frames_;
};

// The sequence number in an emit_nvtx range name ("aten::addmm, seq = 12, sizes = ...");
// *stashed tells a backward op's "stashed seq = 12". nullopt without one.
std::optional<uint64_t> RangeSeq(std::string_view name, bool* stashed);

// The NVTX ranges with a sequence number, per thread.
class SeqRanges {
 public:
  explicit SeqRanges(const RangeLog& log);
  // The sequence number of the innermost range of `thread` open at `time_ns` whose number is
  // stashed (backward) or not (forward).
  std::optional<uint64_t> At(uint32_t thread, uint64_t time_ns, bool stashed) const;
  bool empty() const { return by_thread_.empty(); }

 private:
  struct Range {
    uint64_t begin, end, seq;
    bool stashed;
  };
  std::map<uint32_t, std::vector<Range>> by_thread_;
};

}  // namespace flopspy::analyzers::call_sites_internal
