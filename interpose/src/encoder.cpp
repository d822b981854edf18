#include "encoder.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>

#include "catalog_param_bytes.h"
#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/demangle.h"
#include "flopspy/trace/library_groups.h"
#include "function_table.h"
#include "raw_events.h"

namespace flopspy::interpose {

void Encoder::ForgetDefinitions() {
  strings_.clear();
  functions_defined_.clear();
  signatures_.clear();
  streams_.clear();
}

void Encoder::Append(trace::ChunkBuilder& chunk, const void* record, size_t size) {
  if (!chunk.Append(record, size)) {
    on_full_(chunk);
    chunk.Append(record, size);
  }
}

void Encoder::AppendString(trace::ChunkBuilder& chunk, uint32_t id, std::string_view text) {
  if (!chunk.AppendString(id, text)) {
    on_full_(chunk);
    chunk.AppendString(id, text);
  }
}

uint32_t Encoder::Intern(std::string_view text, trace::ChunkBuilder& chunk) {
  const auto it = strings_.find(std::string(text));
  if (it != strings_.end()) return it->second;
  const uint32_t id = next_string_id_++;
  AppendString(chunk, id, text);
  strings_.emplace(std::string(text), id);
  return id;
}

uint32_t Encoder::StreamId(uint64_t handle, int32_t device, uint8_t flags,
                           trace::ChunkBuilder& chunk) {
  const auto key = std::make_tuple(handle, device, flags);
  const auto it = streams_.find(key);
  if (it != streams_.end()) return it->second;
  const auto id = static_cast<uint32_t>(streams_.size() + 1);
  trace::StreamDef def{};
  def.h = trace::MakeHeader<trace::StreamDef>();
  def.id = id;
  def.handle = handle;
  def.device = device;
  def.stream_flags =
      flags |
      (handle == 0 && !(flags & trace::kStreamPerThreadDefault) ? trace::kStreamLegacyDefault : 0);
  Append(chunk, &def, sizeof(def));
  streams_.emplace(key, id);
  return id;
}

void Encoder::DefineFunction(uint32_t function, trace::ChunkBuilder& chunk) {
  if (function == 0) return;
  if (functions_defined_.size() <= function) functions_defined_.resize(function + 1, false);
  if (functions_defined_[function]) return;
  FunctionInfo* info = Functions().ById(function);
  if (info == nullptr) return;
  trace::FunctionDef def{};
  def.h = trace::MakeHeader<trace::FunctionDef>();
  def.id = function;
  def.handle = info->handle;
  if (!info->mangled_name.empty()) {
    def.mangled_name = Intern(info->mangled_name, chunk);
    // Catalogued here if the flusher's pass had not yet: later launches keep what it reads.
    def.demangled_name = Intern(CatalogFunction(*info), chunk);
  }
  def.param_count = info->layout.count;
  def.layout_count = info->layout.known;
  for (size_t i = 0; i < info->layout.known && i < trace::kMaxParamLayout; ++i) {
    def.param_offset[i] = info->layout.offset[i];
    def.param_size[i] = info->layout.size[i];
  }
  Append(chunk, &def, sizeof(def));
  functions_defined_[function] = true;
}

uint32_t Encoder::LaunchSignature(uint32_t function, const uint32_t grid[3],
                                  const uint32_t block[3], const uint32_t cluster[3],
                                  uint32_t dynamic_smem, trace::ChunkBuilder& chunk) {
  DefineFunction(function, chunk);
  const SignatureKey key{function, grid[0],    grid[1],    grid[2],    block[0],    block[1],
                         block[2], cluster[0], cluster[1], cluster[2], dynamic_smem};
  if (const auto it = signatures_.find(key); it != signatures_.end()) return it->second;
  const auto signature = static_cast<uint32_t>(signatures_.size() + 1);
  trace::KernelSignatureDef def{};
  def.h = trace::MakeHeader<trace::KernelSignatureDef>();
  def.id = signature;
  def.function = function;
  if (const FunctionInfo* info = Functions().ById(function);
      info != nullptr && !info->mangled_name.empty()) {
    def.name = Intern(info->mangled_name, chunk);
  }
  std::copy(grid, grid + 3, def.grid);
  std::copy(block, block + 3, def.block);
  std::copy(cluster, cluster + 3, def.cluster);
  def.dynamic_smem = dynamic_smem;
  Append(chunk, &def, sizeof(def));
  signatures_.emplace(key, signature);
  return signature;
}

void Encoder::EncodeKernelMetrics(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  RawKernelMetrics raw{};
  std::memcpy(&raw, record, std::min(size, sizeof(raw)));
  trace::KernelMetricsRecord out = raw.record;
  out.h = trace::MakeHeader<trace::KernelMetricsRecord>();
  out.signature =
      LaunchSignature(raw.function, raw.grid, raw.block, raw.cluster, raw.dynamic_smem, chunk);
  Append(chunk, &out, sizeof(out));
}

namespace {

// The stream a launch ran on: the two default streams by their meaning, not their spelling.
LaunchStream JoinStream(uint64_t handle, int32_t device, bool per_thread, uint32_t thread) {
  if (per_thread || handle == kStreamPerThreadHandle) {
    return {.handle = kStreamPerThreadHandle, .device = device, .per_thread_owner = thread};
  }
  return {.handle = handle == kStreamLegacyHandle ? 0 : handle, .device = device};
}

}  // namespace

void Encoder::QueueLaunch(const RawLaunch& raw, uint32_t thread) {
  // A captured launch ran nothing; a failed one launched nothing.
  if ((raw.h.flags & trace::kLaunchCaptured) != 0 || raw.result != 0) return;
  KernelIdentity kernel;
  if (raw.function != 0) {
    if (name_hashes_.size() <= raw.function) name_hashes_.resize(raw.function + 1, 0);
    uint64_t& hash = name_hashes_[raw.function];
    if (hash == 0) {
      if (const FunctionInfo* info = Functions().ById(raw.function); info != nullptr) {
        hash = KernelNameHash(info->mangled_name);
      }
    }
    kernel.name_hash = hash;
  }
  std::copy(raw.grid, raw.grid + 3, kernel.grid);
  std::copy(raw.block, raw.block + 3, kernel.block);
  const bool per_thread = (raw.stream_flags & trace::kStreamPerThreadDefault) != 0;
  stream_join_->AddLaunch(JoinStream(raw.stream, raw.device, per_thread, thread), kernel,
                          raw.correlation, raw.enter_ns);
}

void Encoder::QueueLibraryCall(const trace::LibraryCallRecord& call, uint64_t stream_handle,
                               uint32_t thread) {
  if ((call.flags & trace::kLibStreamUnknown) != 0) return;
  stream_join_->AddLibraryCall(JoinStream(stream_handle, call.device, false, thread),
                               call.correlation, call.enter_ns, call.exit_ns);
}

void Encoder::EncodeLaunch(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  RawLaunch raw{};
  std::memcpy(&raw, record, std::min(size, sizeof(raw)));
  if (stream_join_) QueueLaunch(raw, chunk.thread_id());
  const uint32_t signature =
      LaunchSignature(raw.function, raw.grid, raw.block, raw.cluster, raw.dynamic_smem, chunk);
  const uint32_t stream = StreamId(raw.stream, raw.device, raw.stream_flags, chunk);

  trace::KernelLaunchRecord out{};
  out.h = trace::MakeHeader<trace::KernelLaunchRecord>(raw.h.flags);
  out.api = raw.api;
  out.device = raw.device;
  out.enter_ns = raw.enter_ns;
  out.duration_ns = raw.duration_ns;
  out.result = raw.result;
  out.correlation = raw.correlation;
  out.signature = signature;
  out.stream = stream;
  out.param_bytes = raw.param_bytes;
  const size_t inline_bytes = std::min<size_t>(raw.param_bytes, trace::kInlineParamBytes);
  std::memcpy(out.params, raw.params, inline_bytes);
  // A launch and its extra parameters stay together in one chunk.
  const bool extra = raw.param_bytes > trace::kInlineParamBytes;
  const size_t needed = sizeof(out) + (extra ? sizeof(trace::LaunchParamsRecord) : 0);
  if (!chunk.Fits(needed)) on_full_(chunk);
  Append(chunk, &out, sizeof(out));
  if (extra) {
    trace::LaunchParamsRecord more{};
    more.h = trace::MakeHeader<trace::LaunchParamsRecord>();
    more.length = static_cast<uint16_t>(
        std::min<size_t>(raw.param_bytes - trace::kInlineParamBytes, trace::kExtraParamBytes));
    std::memcpy(more.bytes, raw.params + trace::kInlineParamBytes, more.length);
    Append(chunk, &more, sizeof(more));
  }
}

trace::LibraryCallRecord Encoder::LibraryCall(const RawLibraryCall& raw,
                                              trace::ChunkBuilder& chunk) {
  trace::LibraryCallRecord out = raw.record;
  out.h = trace::MakeHeader<trace::LibraryCallRecord>(raw.record.h.flags);
  const auto entries = analyzers::BlasEntryPoints();
  const uint32_t entry = raw.record.name;
  // A cuDNN or NCCL record is named after its routine (one entry point each); a cuBLAS one by
  // its entry.
  const analyzers::BlasRoutine routine = analyzers::BlasRoutineFromId(out.routine);
  std::string_view by_routine = analyzers::DnnEntryPointName(routine);
  if (by_routine.empty()) by_routine = analyzers::CommEntryPointName(routine);
  if (!by_routine.empty()) {
    out.name = Intern(by_routine, chunk);
  } else {
    out.name = entry >= 1 && entry <= entries.size() ? Intern(entries[entry - 1].name, chunk) : 0;
  }
  out.stream = (out.flags & trace::kLibStreamUnknown) != 0
                   ? 0
                   : StreamId(raw.stream_handle, out.device, 0, chunk);
  return out;
}

void Encoder::EncodeLibraryCall(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  RawLibraryCall raw{};
  std::memcpy(&raw, record, std::min(size, sizeof(raw)));
  trace::LibraryCallRecord out = LibraryCall(raw, chunk);
  if (stream_join_) QueueLibraryCall(out, raw.stream_handle, chunk.thread_id());
  analyzers::FillBlasFigures(out);
  Append(chunk, &out, sizeof(out));
}

// A grouped GEMM: the call with figures summed over all its groups, then its groups, eight to a
// LibraryGroups record, all in one chunk.
void Encoder::EncodeGroupedCall(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  auto raw = std::make_unique<RawGroupedCall>();
  std::memcpy(raw.get(), record, std::min(size, sizeof(RawGroupedCall)));
  const size_t fits = size > offsetof(RawGroupedCall, groups)
                          ? (size - offsetof(RawGroupedCall, groups)) / sizeof(raw->groups[0])
                          : 0;
  const uint32_t listed = static_cast<uint32_t>(
      std::min<size_t>({raw->listed, fits, static_cast<size_t>(kMaxListedGroups)}));
  trace::LibraryCallRecord out = LibraryCall(raw->call, chunk);
  if (stream_join_) QueueLibraryCall(out, raw->call.stream_handle, chunk.thread_id());
  const std::span<const trace::LibraryGroupShape> groups(raw->groups, listed);
  if (listed == 0) out.flags &= ~trace::kLibGroupsFollow;
  analyzers::FillBlasFigures(out, groups, raw->cut);
  const std::vector<trace::LibraryGroupsRecord> records =
      trace::MakeLibraryGroupsRecords(groups, raw->cut);
  // The call and its groups in one chunk: a reader finds them together (trace-format.md).
  if (!chunk.Fits(sizeof(out) + records.size() * sizeof(trace::LibraryGroupsRecord))) {
    on_full_(chunk);
  }
  Append(chunk, &out, sizeof(out));
  for (const trace::LibraryGroupsRecord& more : records) Append(chunk, &more, sizeof(more));
}

void Encoder::EncodeRegion(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  RawRegion raw{};
  std::memcpy(&raw, record, std::min(size, sizeof(raw)));
  trace::RegionRecord out{};
  out.h = trace::MakeHeader<trace::RegionRecord>();
  out.edge = raw.edge;
  out.time_ns = raw.time_ns;
  out.name = Intern({raw.name, raw.name_length}, chunk);
  Append(chunk, &out, sizeof(out));
}

void Encoder::IndexFunctionNames() {
  const uint32_t known = Functions().size();
  for (uint32_t id = functions_indexed_ + 1; id <= known; ++id) {
    const FunctionInfo* info = Functions().ById(id);
    if (info != nullptr && !info->mangled_name.empty()) {
      functions_by_name_[info->mangled_name].push_back(id);
    }
  }
  if (known > functions_indexed_) functions_indexed_ = known;
}

uint32_t Encoder::KernelSignatureByName(std::string_view mangled_name, const uint32_t grid[3],
                                        const uint32_t block[3], const uint32_t cluster[3],
                                        uint32_t dynamic_smem, trace::ChunkBuilder& chunk) {
  const auto key_for = [&](uint32_t first) {
    return SignatureKey{first,    grid[0],    grid[1],    grid[2],    block[0],    block[1],
                        block[2], cluster[0], cluster[1], cluster[2], dynamic_smem};
  };
  uint32_t function = 0;
  if (!mangled_name.empty()) {
    IndexFunctionNames();
    if (const auto it = functions_by_name_.find(mangled_name); it != functions_by_name_.end()) {
      // Several handles may share a name (a runtime stub and its CUfunction): prefer one whose
      // launch with this shape already has a signature.
      for (const uint32_t id : it->second) {
        if (const auto sig = signatures_.find(key_for(id)); sig != signatures_.end()) {
          return sig->second;
        }
      }
      function = it->second.front();
    }
  }
  const uint32_t name = mangled_name.empty() ? 0 : Intern(mangled_name, chunk);
  const SignatureKey key = key_for(function != 0 ? function : kNamedSignatureTag | name);
  if (const auto it = signatures_.find(key); it != signatures_.end()) return it->second;
  DefineFunction(function, chunk);
  const auto signature = static_cast<uint32_t>(signatures_.size() + 1);
  trace::KernelSignatureDef def{};
  def.h = trace::MakeHeader<trace::KernelSignatureDef>();
  def.id = signature;
  def.function = function;
  def.name = name;
  std::copy(grid, grid + 3, def.grid);
  std::copy(block, block + 3, def.block);
  std::copy(cluster, cluster + 3, def.cluster);
  def.dynamic_smem = dynamic_smem;
  Append(chunk, &def, sizeof(def));
  signatures_.emplace(key, signature);
  return signature;
}

void Encoder::EncodeCpuSample(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  RawCpuSample raw{};
  std::memcpy(&raw, record, std::min(size, sizeof(raw)));
  trace::CpuSampleRecord out = raw.record;
  out.h = trace::MakeHeader<trace::CpuSampleRecord>();
  out.region = raw.name_length > 0 ? Intern({raw.name, raw.name_length}, chunk) : 0;
  Append(chunk, &out, sizeof(out));
}

void Encoder::Encode(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  if (!IsRawType(record[0])) {
    Append(chunk, record, size);
    return;
  }
  switch (static_cast<RawType>(record[0])) {
    case RawType::kRegion:
      EncodeRegion(record, size, chunk);
      break;
    case RawType::kLaunch:
      EncodeLaunch(record, size, chunk);
      break;
    case RawType::kLibraryCall:
      EncodeLibraryCall(record, size, chunk);
      break;
    case RawType::kCpuSample:
      EncodeCpuSample(record, size, chunk);
      break;
    case RawType::kKernelMetrics:
      EncodeKernelMetrics(record, size, chunk);
      break;
    case RawType::kGroupedCall:
      EncodeGroupedCall(record, size, chunk);
      break;
    case RawType::kRange:
      EncodeRange(record, size, chunk);
      break;
    case RawType::kResourceName:
      EncodeResourceName(record, size, chunk);
      break;
  }
}

}  // namespace flopspy::interpose
