#include "trace_builder.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "flopspy/trace/library_groups.h"

namespace flopspy::testing {

trace::FileIdentity TraceBuilder::DefaultIdentity() {
  trace::FileIdentity id;
  id.pid = 4242;
  id.rank = -1;
  id.local_rank = -1;
  id.start_realtime_ns = 1'700'000'000'000'000'000ull;
  id.start_monotonic_ns = 1'000'000'000ull;
  id.host = "testhost";
  return id;
}

TraceBuilder::TraceBuilder(trace::FileIdentity identity)
    : writer_([this](std::span<const uint8_t> b) {
        bytes_.insert(bytes_.end(), b.begin(), b.end());
        return true;
      }),
      chunk_(1u << 20) {
  if (identity.compressed_chunks) writer_.SetCompression(trace::kDefaultCompressionLevel);
  writer_.WriteHeader(trace::MakeFileHeader(identity));
}

TraceBuilder& TraceBuilder::Chunk(trace::ChunkSource source, uint32_t thread_id) {
  if (chunk_open_ && (chunk_.source() != source || chunk_.thread_id() != thread_id)) Flush();
  if (!chunk_open_) {
    chunk_.Reset(source, thread_id);
    chunk_open_ = true;
  }
  return *this;
}

TraceBuilder& TraceBuilder::AddRaw(const void* record, size_t size) {
  if (!chunk_open_) Chunk(trace::ChunkSource::kProcess);
  if (!chunk_.Append(record, size)) {
    Flush();
    Chunk(chunk_.source(), chunk_.thread_id());
    if (!chunk_.Append(record, size)) throw std::runtime_error("record does not fit a chunk");
  }
  return *this;
}

TraceBuilder& TraceBuilder::GroupedCall(trace::LibraryCallRecord call,
                                        std::span<const trace::LibraryGroupShape> listed,
                                        const trace::LibraryGroupsCut& cut) {
  call.flags |= trace::kLibGrouped | trace::kLibGroupsFollow;
  Add(call);
  for (const auto& groups : trace::MakeLibraryGroupsRecords(listed, cut)) Add(groups);
  return *this;
}

TraceBuilder& TraceBuilder::String(uint32_t id, std::string_view text) {
  if (!chunk_open_) Chunk(trace::ChunkSource::kProcess);
  if (!chunk_.AppendString(id, text)) throw std::runtime_error("string does not fit");
  return *this;
}

TraceBuilder& TraceBuilder::Metadata(std::string_view json) {
  if (!chunk_open_) Chunk(trace::ChunkSource::kProcess);
  if (!chunk_.AppendMetadata(json)) throw std::runtime_error("metadata does not fit");
  return *this;
}

TraceBuilder& TraceBuilder::Flush() {
  if (chunk_open_) writer_.WriteChunk(chunk_);
  chunk_open_ = false;
  return *this;
}

const std::vector<uint8_t>& TraceBuilder::Bytes() {
  Flush();
  return bytes_;
}

void TraceBuilder::WriteTo(const std::string& path) {
  const auto& b = Bytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

void WriteStepTrace(const std::string& path) {
  TraceBuilder b;
  b.String(1, "step");
  trace::RegionRecord region{};
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
  region.time_ns = 1'000'000'000;
  region.name = 1;
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region);
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kEnd);
  region.time_ns += 1'000'000;
  b.Add(region);
  b.Chunk(trace::ChunkSource::kProcess).Add(ExitEnd(0));
  b.WriteTo(path);
}

trace::ThreadDef NamedThread(uint32_t thread_id, uint32_t name) {
  trace::ThreadDef thread{};
  thread.thread_id = thread_id;
  thread.name = name;
  return thread;
}

trace::FunctionDef KernelFunction(uint32_t id, uint32_t name, uint16_t param_count) {
  trace::FunctionDef f{};
  f.id = id;
  f.mangled_name = f.demangled_name = name;
  f.param_count = param_count;
  return f;
}

void SetElementwiseLayout(trace::FunctionDef& f, uint16_t n_size, uint16_t array_bytes) {
  f.layout_count = 3;
  f.param_offset[0] = 0, f.param_size[0] = n_size;
  f.param_offset[1] = 4, f.param_size[1] = 1;
  f.param_offset[2] = 8, f.param_size[2] = array_bytes;
}

trace::KernelSignatureDef KernelSignature(uint32_t id, uint32_t function, uint32_t grid_x,
                                          uint32_t grid_y, uint32_t block_x) {
  trace::KernelSignatureDef s{};
  s.id = id;
  s.function = function;
  s.grid[0] = grid_x, s.grid[1] = grid_y, s.grid[2] = 1;
  s.block[0] = block_x, s.block[1] = 1, s.block[2] = 1;
  return s;
}

trace::KernelLaunchRecord KernelLaunch(uint32_t signature, uint64_t correlation, uint64_t enter_ns,
                                       uint64_t duration_ns, uint32_t n, bool inside_library) {
  trace::KernelLaunchRecord l{};
  l.h.flags = inside_library ? trace::kLaunchInsideLibrary : 0;
  l.api = static_cast<uint16_t>(trace::Api::kCudaLaunchKernel);
  l.enter_ns = enter_ns;
  l.duration_ns = duration_ns;
  l.correlation = correlation;
  l.signature = signature;
  l.param_bytes = 4;
  std::memcpy(l.params, &n, 4);
  return l;
}

trace::GpuActivityRecord KernelExecution(uint32_t signature, uint64_t correlation,
                                         uint64_t start_ns, uint64_t ns, uint32_t stream,
                                         bool from_graph) {
  trace::GpuActivityRecord g{};
  g.h.flags = from_graph ? trace::kGpuFromGraph : 0;
  g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
  g.start_ns = start_ns;
  g.end_ns = start_ns + ns;
  g.correlation = correlation;
  g.signature = signature;
  g.stream = stream;
  return g;
}

trace::RangeRecord RangeEvent(trace::RangeEdge edge, uint64_t time_ns, uint32_t name,
                              uint32_t domain, uint64_t range_id) {
  trace::RangeRecord r{};
  r.edge = static_cast<uint8_t>(edge);
  r.time_ns = time_ns;
  r.name = name;
  r.domain = domain;
  r.range_id = range_id;
  return r;
}

trace::ResourceNameRecord ResourceName(trace::NamedResource resource, uint64_t handle,
                                       uint32_t name) {
  trace::ResourceNameRecord r{};
  r.resource = static_cast<uint8_t>(resource);
  r.handle = handle;
  r.name = name;
  return r;
}

trace::RegionRecord RegionEvent(trace::RegionEdge edge, uint64_t time_ns, uint32_t name) {
  trace::RegionRecord r{};
  r.edge = static_cast<uint8_t>(edge);
  r.time_ns = time_ns;
  r.name = name;
  return r;
}

trace::TraceEndRecord ExitEnd(uint64_t time_ns, uint64_t records_lost) {
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  end.time_ns = time_ns;
  end.records_lost = records_lost;
  return end;
}

}  // namespace flopspy::testing
