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

// Records that test traces build again and again: the fields a test varies, zero elsewhere.
// Times are absolute (the trace's monotonic clock).

// A kernel function whose mangled and demangled names are string `name`; 0xFFFF params: unknown.
// ATen's float multiply as PyTorch launches it: a kernel the catalog models (1 FLOP, 12 bytes per
// element, N is parameter 0).
inline constexpr char kAtenMulKernel[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::MulFunctor<float>, at::detail::Array<char*, "
    "3>)";

// A thread named by the string `name`.
trace::ThreadDef NamedThread(uint32_t thread_id, uint32_t name);
trace::FunctionDef KernelFunction(uint32_t id, uint32_t name, uint16_t param_count = 0xFFFF);
// The parameters of ATen's elementwise loops: (int N of `n_size` bytes, a 1-byte functor,
// Array<char*, K> of `array_bytes`).
void SetElementwiseLayout(trace::FunctionDef& function, uint16_t n_size, uint16_t array_bytes);
trace::KernelSignatureDef KernelSignature(uint32_t id, uint32_t function, uint32_t grid_x,
                                          uint32_t grid_y, uint32_t block_x);
// A cudaLaunchKernel whose 4 captured parameter bytes are the element count `n`.
trace::KernelLaunchRecord KernelLaunch(uint32_t signature, uint64_t correlation, uint64_t enter_ns,
                                       uint64_t duration_ns, uint32_t n,
                                       bool inside_library = false);
trace::GpuActivityRecord KernelExecution(uint32_t signature, uint64_t correlation,
                                         uint64_t start_ns, uint64_t ns, uint32_t stream,
                                         bool from_graph = false);
// NVTX events as the receiver writes them: a push (or start, with `range_id`) of string `name`
// in domain string `domain` (0: the default domain), a pop or end, a mark.
trace::RangeRecord RangeEvent(trace::RangeEdge edge, uint64_t time_ns, uint32_t name = 0,
                              uint32_t domain = 0, uint64_t range_id = 0);
// A name NVTX gave a stream, device, thread...
trace::ResourceNameRecord ResourceName(trace::NamedResource resource, uint64_t handle,
                                       uint32_t name);
// flopspy_region_begin/end of string `name`.
trace::RegionRecord RegionEvent(trace::RegionEdge edge, uint64_t time_ns, uint32_t name);
// The end record of a process that exited; `records_lost` as the recorder counts them.
trace::TraceEndRecord ExitEnd(uint64_t time_ns, uint64_t records_lost = 0);

// A small complete trace at `path`: one 1 ms "step" region on thread 7, then an exit end record.
// For tests about what the tools do with a file, not with its figures.
void WriteStepTrace(const std::string& path);

}  // namespace flopspy::testing
