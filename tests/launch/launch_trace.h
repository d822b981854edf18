// Reads the launches and API calls of a trace written by libflopspy.so, with every definition
// they refer to resolved: kernel names (mangled and demangled), grid, block, cluster, shared
// memory, stream handle and flags, and the captured leading parameter bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/trace/reader.h"

namespace flopspy::testing {

struct LaunchSeen {
  trace::Api api = trace::Api::kUnknown;
  uint8_t flags = 0;  // trace::LaunchFlags
  int32_t result = 0;
  uint64_t correlation = 0;
  uint64_t enter_ns = 0;  // the trace clock
  uint32_t thread = 0;
  uint64_t function_handle = 0;
  std::string name;       // mangled, as the driver or runtime named it
  std::string demangled;  // from FunctionDef
  uint16_t param_count = 0xFFFF;
  uint32_t grid[3] = {};
  uint32_t block[3] = {};
  uint32_t cluster[3] = {};
  uint32_t smem = 0;
  uint64_t stream = 0;
  uint32_t stream_flags = 0;
  int16_t device = -1;          // KernelLaunchRecord::device
  int32_t stream_device = -1;   // StreamDef::device
  std::vector<uint8_t> params;  // captured leading parameter bytes

  // The int32 at `offset` of the captured parameters, or -1 when not captured.
  int32_t ParamInt(size_t offset = 0) const {
    if (params.size() < offset + 4) return -1;
    int32_t v;
    std::memcpy(&v, params.data() + offset, 4);
    return v;
  }
  std::string Grid() const { return Dims(grid); }
  std::string Block() const { return Dims(block); }
  std::string Cluster() const { return Dims(cluster); }
  static std::string Dims(const uint32_t (&d)[3]) {
    return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
  }
};

struct ApiCallSeen {
  trace::Api api = trace::Api::kUnknown;
  uint8_t flags = 0;
  int32_t result = 0;
  uint32_t detail = 0;
  uint64_t stream = 0;
  uint64_t bytes = 0;
  uint64_t correlation = 0;
  uint32_t thread = 0;
  int16_t device = -1;
};

struct LaunchTrace {
  bool header_ok = false;
  trace::ReadSummary read;
  analyzers::TraceSummary summary;
  std::vector<LaunchSeen> launches;  // in file order
  std::vector<ApiCallSeen> calls;
  std::vector<trace::LibraryCallRecord> library_calls;
  std::vector<trace::GraphNodeRecord> graph_nodes;    // in file order
  std::vector<trace::GraphEventRecord> graph_events;  // in file order
  std::map<uint32_t, trace::StreamDef> streams;       // by id
  std::map<uint32_t, trace::FunctionDef> functions;   // by id

  std::vector<const LaunchSeen*> WithApi(trace::Api api) const {
    std::vector<const LaunchSeen*> out;
    for (const auto& l : launches) {
      if (l.api == api) out.push_back(&l);
    }
    return out;
  }
  std::vector<const ApiCallSeen*> CallsWithApi(trace::Api api) const {
    std::vector<const ApiCallSeen*> out;
    for (const auto& c : calls) {
      if (c.api == api) out.push_back(&c);
    }
    return out;
  }
  // The launch whose first captured int32 (N of the test kernels) is `n`; nullptr if none or
  // several.
  const LaunchSeen* ByN(int32_t n, size_t offset = 0) const {
    const LaunchSeen* found = nullptr;
    for (const auto& l : launches) {
      if (l.ParamInt(offset) != n) continue;
      if (found != nullptr) return nullptr;
      found = &l;
    }
    return found;
  }
};

inline LaunchTrace ReadLaunchTrace(const std::string& path) {
  LaunchTrace t;
  trace::TraceReader reader = trace::TraceReader::OpenFile(path);
  t.header_ok = reader.header_ok();
  if (!t.header_ok) {
    t.read = reader.header_status();
    return t;
  }
  struct Pending {
    trace::KernelLaunchRecord record;
    uint32_t thread;
    std::vector<uint8_t> params;
  };
  std::vector<Pending> pending;
  std::map<uint32_t, trace::KernelSignatureDef> signatures;
  std::map<uint32_t, trace::StreamDef>& streams = t.streams;
  analyzers::TraceSummarizer summarizer;
  const analyzers::StringLookup strings = [&reader](uint32_t id) { return reader.String(id); };
  bool last_was_launch = false;
  t.read = reader.ForEachRecord([&](const trace::RecordView& r) {
    summarizer.Add(r, strings);
    const bool continues = r.type == trace::RecordType::kLaunchParams && last_was_launch;
    last_was_launch = false;
    switch (r.type) {
      case trace::RecordType::kFunction: {
        const auto f = r.As<trace::FunctionDef>();
        t.functions[f.id] = f;
        break;
      }
      case trace::RecordType::kKernelSignature: {
        const auto s = r.As<trace::KernelSignatureDef>();
        signatures[s.id] = s;
        break;
      }
      case trace::RecordType::kStream: {
        const auto s = r.As<trace::StreamDef>();
        streams[s.id] = s;
        break;
      }
      case trace::RecordType::kKernelLaunch: {
        const auto k = r.As<trace::KernelLaunchRecord>();
        const size_t inline_bytes = std::min<size_t>(k.param_bytes, trace::kInlineParamBytes);
        pending.push_back(
            {k, r.thread_id, std::vector<uint8_t>(k.params, k.params + inline_bytes)});
        last_was_launch = k.param_bytes > trace::kInlineParamBytes;
        break;
      }
      case trace::RecordType::kLaunchParams: {
        if (!continues) break;
        const auto more = r.As<trace::LaunchParamsRecord>();
        auto& p = pending.back().params;
        p.insert(p.end(), more.bytes,
                 more.bytes + std::min<size_t>(more.length, sizeof(more.bytes)));
        break;
      }
      case trace::RecordType::kApiCall: {
        const auto c = r.As<trace::ApiCallRecord>();
        ApiCallSeen seen;
        seen.api = static_cast<trace::Api>(c.api);
        seen.flags = c.h.flags;
        seen.result = c.result;
        seen.detail = c.detail;
        seen.stream = c.stream;
        seen.bytes = c.bytes;
        seen.correlation = c.correlation;
        seen.thread = r.thread_id;
        seen.device = c.device;
        t.calls.push_back(seen);
        break;
      }
      case trace::RecordType::kLibraryCall:
        t.library_calls.push_back(r.As<trace::LibraryCallRecord>());
        break;
      case trace::RecordType::kGraphNode:
        t.graph_nodes.push_back(r.As<trace::GraphNodeRecord>());
        break;
      case trace::RecordType::kGraphEvent:
        t.graph_events.push_back(r.As<trace::GraphEventRecord>());
        break;
      default:
        break;
    }
  });
  t.summary = summarizer.Take();
  for (const Pending& p : pending) {
    LaunchSeen l;
    l.api = static_cast<trace::Api>(p.record.api);
    l.flags = p.record.h.flags;
    l.result = p.record.result;
    l.correlation = p.record.correlation;
    l.enter_ns = p.record.enter_ns;
    l.thread = p.thread;
    l.params = p.params;
    l.device = p.record.device;
    if (const auto s = signatures.find(p.record.signature); s != signatures.end()) {
      std::memcpy(l.grid, s->second.grid, sizeof(l.grid));
      std::memcpy(l.block, s->second.block, sizeof(l.block));
      std::memcpy(l.cluster, s->second.cluster, sizeof(l.cluster));
      l.smem = s->second.dynamic_smem;
      if (const auto f = t.functions.find(s->second.function); f != t.functions.end()) {
        l.function_handle = f->second.handle;
        l.name = std::string(reader.String(f->second.mangled_name));
        l.demangled = std::string(reader.String(f->second.demangled_name));
        l.param_count = f->second.param_count;
      }
    }
    if (const auto s = streams.find(p.record.stream); s != streams.end()) {
      l.stream = s->second.handle;
      l.stream_flags = s->second.stream_flags;
      l.stream_device = s->second.device;
    }
    t.launches.push_back(std::move(l));
  }
  return t;
}

}  // namespace flopspy::testing
