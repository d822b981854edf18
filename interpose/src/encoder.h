// The flusher's half of recording: turns what the hooks wrote (trace records and raw events)
// into trace records, defining every name, function, kernel signature and stream before its
// first use, and computing FLOPs and bytes of library calls (never on the program's threads).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "flopspy/trace/writer.h"
#include "raw_events.h"
#include "stream_order_join.h"

namespace flopspy::interpose {

class Encoder {
 public:
  // Called with a chunk that is full; it must write and reset it.
  using FullChunk = std::function<void(trace::ChunkBuilder&)>;
  explicit Encoder(FullChunk on_full) : on_full_(std::move(on_full)) {}

  // One record from a thread buffer (raw event or trace record).
  void Encode(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);

  // A trace record, appended as is.
  void Append(trace::ChunkBuilder& chunk, const void* record, size_t size);
  uint32_t Intern(std::string_view text, trace::ChunkBuilder& chunk);
  uint32_t StreamId(uint64_t handle, int32_t device, uint8_t flags, trace::ChunkBuilder& chunk);

  // Everything defined so far is forgotten (a new file, or a chunk with definitions was lost).
  void ForgetDefinitions();

  // FLOPSPY_GPU_JOIN=stream: every launch and library call encoded while a join is set is
  // queued on its stream for the CUPTI session's kernel records (stream_order_join.h). The
  // flusher sets it from the activity source at each pass; null when not asked.
  void set_stream_join(StreamOrderJoin* join) { stream_join_ = join; }
  StreamOrderJoin* stream_join() const { return stream_join_; }

  // --- GPU activity (CUPTI): kernels known by name ---------------------------------------------
  // The KernelSignatureDef id of a kernel CUPTI reports by mangled name: the id a launch of that
  // function with that shape gets when a FunctionTable entry carries the name, else one with
  // function 0 and the name. Definitions it needs go into `chunk`.
  uint32_t KernelSignatureByName(std::string_view mangled_name, const uint32_t grid[3],
                                 const uint32_t block[3], const uint32_t cluster[3],
                                 uint32_t dynamic_smem, trace::ChunkBuilder& chunk);

 private:
  void EncodeLaunch(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);
  void EncodeLibraryCall(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);
  void EncodeGroupedCall(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);
  // The trace record of a raw library call, names and stream defined; figures not yet filled.
  trace::LibraryCallRecord LibraryCall(const RawLibraryCall& raw, trace::ChunkBuilder& chunk);
  void EncodeRegion(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);
  void EncodeCpuSample(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);
  void EncodeKernelMetrics(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);
  // NVTX (nvtx_encode.cpp).
  void EncodeRange(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);
  void EncodeResourceName(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk);
  // The KernelSignatureDef id of a launch shape, defined in `chunk` on first use.
  uint32_t LaunchSignature(uint32_t function, const uint32_t grid[3], const uint32_t block[3],
                           const uint32_t cluster[3], uint32_t dynamic_smem,
                           trace::ChunkBuilder& chunk);
  void DefineFunction(uint32_t function, trace::ChunkBuilder& chunk);
  void AppendString(trace::ChunkBuilder& chunk, uint32_t id, std::string_view text);
  // The stream join's side of a launch and of a library call.
  void QueueLaunch(const RawLaunch& raw, uint32_t thread);
  void QueueLibraryCall(const trace::LibraryCallRecord& call, uint64_t stream_handle,
                        uint32_t thread);

  FullChunk on_full_;
  std::unordered_map<std::string, uint32_t> strings_;
  uint32_t next_string_id_ = 1;
  std::vector<bool> functions_defined_;  // by FunctionTable id
  using SignatureKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                                  uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
  std::map<SignatureKey, uint32_t> signatures_;
  std::map<std::tuple<uint64_t, int32_t, uint8_t>, uint32_t> streams_;

  // --- GPU activity (CUPTI) ---
  // Signatures known only by name share signatures_ (one id sequence) under this tag | name id;
  // FunctionTable ids never reach it.
  static constexpr uint32_t kNamedSignatureTag = 0x8000'0000u;
  void IndexFunctionNames();
  std::map<std::string, std::vector<uint32_t>, std::less<>> functions_by_name_;
  uint32_t functions_indexed_ = 0;  // FunctionTable ids below this one are in functions_by_name_

  StreamOrderJoin* stream_join_ = nullptr;
  std::vector<uint64_t> name_hashes_;  // by FunctionTable id, 0 until hashed
};

}  // namespace flopspy::interpose
