// CallSiteCollector: the call-site records of a trace (PyCode, Stack, Module, StackSample) and the
// thread names, read defensively. Every length in a record comes from the traced process or from
// a damaged or crafted file: a record whose lengths run past its end, whose depth is over
// kMaxStackFrames or whose kind is unknown is counted in `damaged` and skipped.
#include <cstring>
#include <string>
#include <tuple>

#include "flopspy/analyzers/call_sites.h"
#include "flopspy/trace/utf8.h"

namespace flopspy::analyzers {
namespace {

// Bounds what a crafted trace can make the report hold; a real run stays far below.
constexpr size_t kMaxCodes = size_t{1} << 20;
constexpr size_t kMaxStacks = size_t{1} << 20;
constexpr size_t kMaxModules = size_t{1} << 16;
constexpr size_t kMaxSamples = size_t{1} << 22;

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<uint8_t>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0x0F]);
  }
  return out;
}

// The bytes [offset, offset + length) of the record, or nullopt when they run past its end.
std::optional<std::string_view> Field(const trace::RecordView& r, size_t offset, size_t length) {
  if (offset > r.bytes.size() || length > r.bytes.size() - offset) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(r.bytes.data() + offset), length);
}

}  // namespace

bool CallSiteCollector::AddCode(const trace::RecordView& r) {
  if (r.bytes.size() < sizeof(trace::PyCodeRecord)) return false;
  const auto rec = r.As<trace::PyCodeRecord>();
  size_t at = sizeof(trace::PyCodeRecord);
  const auto file = Field(r, at, rec.filename_length);
  at += rec.filename_length;
  const auto name = Field(r, at, rec.name_length);
  at += rec.name_length;
  const auto table = Field(r, at, rec.linetable_length);
  if (!file || !name || !table) return false;
  if (log_.codes.count(rec.code_key) != 0) return true;  // described again on another thread
  if (log_.codes.size() >= kMaxCodes) {
    ++log_.dropped;
    return true;
  }
  PyCode code;
  code.filename = trace::ValidUtf8(*file);
  code.name = trace::ValidUtf8(*name);
  code.first_line = rec.first_line;
  code.python_version = rec.python_version;
  // A format this reader does not know (a newer writer) leaves the lines unknown.
  code.format = rec.linetable_format <= 2
                    ? static_cast<trace::PyLinetableFormat>(rec.linetable_format)
                    : trace::PyLinetableFormat::kUnknown;
  code.linetable = std::string(*table);
  code.linetable_cut = (rec.flags & trace::kPyCodeLinetableCut) != 0;
  log_.codes.emplace(rec.code_key, std::move(code));
  return true;
}

bool CallSiteCollector::AddStack(const trace::RecordView& r) {
  if (r.bytes.size() < sizeof(trace::StackRecord)) return false;
  const auto rec = r.As<trace::StackRecord>();
  const auto kind = static_cast<trace::StackKind>(rec.kind);
  if (kind != trace::StackKind::kPython && kind != trace::StackKind::kNative) return false;
  if (rec.depth > trace::kMaxStackFrames || rec.stack_id == 0) return false;
  const size_t frame_size =
      kind == trace::StackKind::kPython ? sizeof(trace::PyFrame) : sizeof(uint64_t);
  const auto frames = Field(r, sizeof(trace::StackRecord), size_t{rec.depth} * frame_size);
  if (!frames) return false;
  if (log_.stacks.count(rec.stack_id) != 0) return true;  // written once per thread that saw it
  if (log_.stacks.size() >= kMaxStacks) {
    ++log_.dropped;
    return true;
  }
  RawStack stack;
  stack.kind = kind;
  stack.truncated = (r.flags & trace::kStackTruncated) != 0;
  if (kind == trace::StackKind::kPython) {
    stack.python.resize(rec.depth);
    std::memcpy(stack.python.data(), frames->data(), frames->size());
  } else {
    stack.native.resize(rec.depth);
    std::memcpy(stack.native.data(), frames->data(), frames->size());
  }
  log_.stacks.emplace(rec.stack_id, std::move(stack));
  return true;
}

bool CallSiteCollector::AddModule(const trace::RecordView& r) {
  if (r.bytes.size() < sizeof(trace::ModuleRecord)) return false;
  const auto rec = r.As<trace::ModuleRecord>();
  const auto path = Field(r, sizeof(trace::ModuleRecord), rec.path_length);
  const auto build_id =
      Field(r, sizeof(trace::ModuleRecord) + rec.path_length, rec.build_id_length);
  if (!path || !build_id || rec.end < rec.start) return false;
  NativeModule module;
  module.path = trace::ValidUtf8(*path);
  module.build_id = Hex(*build_id);
  module.bias = rec.bias;
  module.start = rec.start;
  module.end = rec.end;
  // Each thread lists the objects it used: the same mapping comes once per thread.
  if (!module_seen_.emplace(module.path, module.start, module.end, module.bias).second) return true;
  if (log_.modules.size() >= kMaxModules) {
    ++log_.dropped;
    return true;
  }
  log_.modules.push_back(std::move(module));
  return true;
}

bool CallSiteCollector::AddSample(const trace::RecordView& r) {
  if (r.bytes.size() < sizeof(trace::StackSampleRecord)) return false;
  const auto rec = r.As<trace::StackSampleRecord>();
  const auto reason = static_cast<trace::StackSampleReason>(rec.reason);
  if (reason != trace::StackSampleReason::kNewSignature &&
      reason != trace::StackSampleReason::kSampled) {
    return false;
  }
  if (log_.samples.size() >= kMaxSamples) {
    ++log_.dropped;
    return true;
  }
  StackSample sample;
  sample.correlation = rec.correlation;
  sample.thread = r.thread_id;
  sample.python_stack = rec.python_stack;
  sample.native_stack = rec.native_stack;
  sample.reason = reason;
  sample.sample_every = rec.sample_every;
  log_.samples.push_back(sample);
  return true;
}

void CallSiteCollector::Add(const trace::RecordView& r, const StringLookup& strings) {
  bool ok = true;
  switch (r.type) {
    case trace::RecordType::kThread: {
      const auto def = r.As<trace::ThreadDef>();
      if (def.name != 0) {
        const std::string_view name = strings(def.name);
        if (!name.empty()) log_.thread_names[def.thread_id] = std::string(name);
      }
      return;
    }
    case trace::RecordType::kPyCode:
      ok = AddCode(r);
      break;
    case trace::RecordType::kStack:
      ok = AddStack(r);
      break;
    case trace::RecordType::kModule:
      ok = AddModule(r);
      break;
    case trace::RecordType::kStackSample:
      ok = AddSample(r);
      break;
    default:
      return;
  }
  if (!ok) ++log_.damaged;
}

CallSiteLog CallSiteCollector::Finish() {
  module_seen_.clear();
  return std::move(log_);
}

}  // namespace flopspy::analyzers
