// FrameResolver: a stack's raw frames to source frames. Python frames get their line from the
// code's line table; native ones their symbol from CallSiteOptions::resolve_native (libdw in the
// report), else "module+0xOFFSET". Each distinct frame is resolved once.
#include <algorithm>
#include <cstdio>

#include "call_sites_internal.h"

namespace flopspy::analyzers::call_sites_internal {
namespace {

std::string HexNumber(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// How many modules before the nearest start to look at: mappings can overlap in a trace that
// listed a library unloaded and another loaded in its place.
constexpr size_t kOverlapLookBack = 8;

}  // namespace

FrameResolver::FrameResolver(const CallSiteLog& log, const CallSiteOptions& options)
    : log_(log), options_(options) {
  for (const NativeModule& m : log.modules) by_start_.push_back(&m);
  std::stable_sort(
      by_start_.begin(), by_start_.end(),
      [](const NativeModule* a, const NativeModule* b) { return a->start < b->start; });
}

const NativeModule* FrameResolver::ModuleOf(uint64_t address) const {
  auto it = std::upper_bound(by_start_.begin(), by_start_.end(), address,
                             [](uint64_t a, const NativeModule* m) { return a < m->start; });
  for (size_t looked = 0; it != by_start_.begin() && looked < kOverlapLookBack; ++looked) {
    --it;
    if (address < (*it)->end) return *it;
  }
  return nullptr;
}

const SourceFrame& FrameResolver::PythonFrame(const trace::PyFrame& raw) {
  const auto key = std::make_pair(raw.code_key, raw.instr_offset);
  const auto found = python_frames_.find(key);
  if (found != python_frames_.end()) return found->second;
  SourceFrame frame;
  frame.python = true;
  const auto code = log_.codes.find(raw.code_key);
  if (code != log_.codes.end()) {
    frame.file = code->second.filename;
    frame.function = code->second.name;
    frame.line = PythonLineOf(code->second, raw.instr_offset);
  } else {
    frame.function = "<code not in the trace>";
  }
  return python_frames_.emplace(key, std::move(frame)).first->second;
}

const SourceFrame& FrameResolver::NativeFrame(uint64_t address) {
  const auto found = native_frames_.find(address);
  if (found != native_frames_.end()) return found->second;
  SourceFrame frame;
  frame.python = false;
  if (const NativeModule* module = ModuleOf(address)) {
    frame.module = module->path;
    if (options_.resolve_native) {
      NativeSymbol symbol = options_.resolve_native(*module, address);
      frame.function = std::move(symbol.function);
      frame.file = std::move(symbol.file);
      frame.line = symbol.line;
    }
    if (frame.function.empty()) {
      frame.function =
          std::string(BaseName(module->path)) + "+" + HexNumber(address - module->bias);
    }
  } else {
    frame.function = HexNumber(address);
  }
  return native_frames_.emplace(address, std::move(frame)).first->second;
}

std::vector<SourceFrame> FrameResolver::Python(uint64_t stack_id) {
  std::vector<SourceFrame> frames;
  const auto stack = log_.stacks.find(stack_id);
  if (stack_id == 0 || stack == log_.stacks.end()) return frames;
  for (const trace::PyFrame& raw : stack->second.python) frames.push_back(PythonFrame(raw));
  return frames;
}

std::vector<SourceFrame> FrameResolver::Native(uint64_t stack_id) {
  std::vector<SourceFrame> frames;
  const auto stack = log_.stacks.find(stack_id);
  if (stack_id == 0 || stack == log_.stacks.end()) return frames;
  for (const uint64_t address : stack->second.native) frames.push_back(NativeFrame(address));
  return frames;
}

bool FrameResolver::Truncated(uint64_t stack_id) const {
  const auto stack = log_.stacks.find(stack_id);
  return stack != log_.stacks.end() && stack->second.truncated;
}

}  // namespace flopspy::analyzers::call_sites_internal
