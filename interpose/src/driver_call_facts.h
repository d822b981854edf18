// What a driver copy, set or synchronisation call did, read from its arguments: the bytes it
// moved or set, its stream, and the direction and memory kinds of a copy. Data interpretation
// only: the hooks (hooks_driver.cpp) record the result as an ApiCallRecord.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "flopspy/trace/schema.h"
#include "graph_registry.h"

namespace flopspy::interpose {

struct CallFacts {
  uint64_t bytes = 0;
  uint64_t stream = 0;
  trace::CopyKind kind = trace::CopyKind::kUnknown;
  trace::MemoryKind src = trace::MemoryKind::kUnknown;
  trace::MemoryKind dst = trace::MemoryKind::kUnknown;
  uint32_t graph_exec = 0;  // a graph launch: the executable graph's id (graph_registry.h)
  int position = 0;         // of the argument being noted

  // ApiCallRecord::detail.
  uint32_t Detail() const {
    if (graph_exec != 0) return graph_exec;
    return static_cast<uint32_t>(kind) | static_cast<uint32_t>(src) << 8 |
           static_cast<uint32_t>(dst) << 16;
  }
};

uint64_t Bytes2D(const CUDA_MEMCPY2D* c);
uint64_t Bytes3D(const CUDA_MEMCPY3D* c);
trace::MemoryKind MemoryOf(CUmemorytype type);
trace::CopyKind KindOf(CUmemorytype src, CUmemorytype dst);

// Batch copies: the sizes of the copies (a host array, read only when the call succeeded: then
// the driver has read it too), or the extents of the 3D operations. A 3D operation counts one
// byte per element: exact between pointers (the driver's element size), a lower bound with an
// array operand (whose element size is not looked up).
CallFacts CallFactsOf(trace::Api, trace::CopyKind, CUresult result, CUdeviceptr*, CUdeviceptr*,
                      size_t* sizes, size_t count, CUmemcpyAttributes*, size_t*, size_t, size_t*,
                      CUstream s);
CallFacts CallFactsOf(trace::Api, trace::CopyKind, CUresult result, CUdeviceptr*, CUdeviceptr*,
                      size_t* sizes, size_t count, CUmemcpyAttributes*, size_t*, size_t,
                      CUstream s);
CallFacts CallFactsOf(trace::Api, trace::CopyKind, CUresult result, size_t count,
                      CUDA_MEMCPY3D_BATCH_OP* ops, size_t*, unsigned long long, CUstream s);
CallFacts CallFactsOf(trace::Api, trace::CopyKind, CUresult result, size_t count,
                      CUDA_MEMCPY3D_BATCH_OP* ops, unsigned long long, CUstream s);

namespace call_facts {

template <class Copy>
void NoteTypes(CallFacts& f, const Copy* c) {
  if (c == nullptr) return;
  f.kind = KindOf(c->srcMemoryType, c->dstMemoryType);
  f.src = MemoryOf(c->srcMemoryType);
  f.dst = MemoryOf(c->dstMemoryType);
}

template <class T>
void Note(CallFacts& f, T value) {
  if constexpr (std::is_same_v<T, CUstream>) {
    f.stream = reinterpret_cast<uint64_t>(value);
  } else if constexpr (std::is_same_v<T, CUgraphExec>) {
    f.graph_exec = ExecIdOf(value);
  } else if constexpr (std::is_same_v<T, CUevent>) {
    if (f.stream == 0) f.stream = reinterpret_cast<uint64_t>(value);
  } else if constexpr (std::is_same_v<T, CUarray>) {
    // Array copies name the destination first (DtoA, HtoA, AtoA) or second (AtoD, AtoH).
    (f.position == 0 ? f.dst : f.src) = trace::MemoryKind::kArray;
  } else if constexpr (std::is_same_v<T, const CUDA_MEMCPY2D*>) {
    f.bytes = Bytes2D(value);
    NoteTypes(f, value);
  } else if constexpr (std::is_same_v<T, const CUDA_MEMCPY3D*>) {
    f.bytes = Bytes3D(value);
    NoteTypes(f, value);
  } else if constexpr (std::is_same_v<T, const CUDA_MEMCPY3D_PEER*>) {
    f.bytes = value ? static_cast<uint64_t>(value->WidthInBytes) * value->Height * value->Depth : 0;
    NoteTypes(f, value);
    if (f.kind == trace::CopyKind::kDeviceToDevice) f.kind = trace::CopyKind::kPeer;
  }
  ++f.position;
}

struct Sizes {
  size_t values[8] = {};
  int count = 0;
  size_t element = 1;  // bytes per element of a set: 1, 2 or 4 by the value's type
};

template <class T>
void NoteSize(Sizes& s, T value, bool is_set) {
  if constexpr (std::is_same_v<T, size_t>) {
    if (s.count < 8) s.values[s.count++] = value;
  } else if constexpr (std::is_same_v<T, unsigned short>) {
    if (is_set) s.element = 2;
  } else if constexpr (std::is_same_v<T, unsigned int>) {
    if (is_set) s.element = 4;
  }
}

}  // namespace call_facts

// Bytes, stream and direction of call `api`, from its arguments; `copy_kind` when the arguments
// do not say. The last size_t of a copy is its byte count; a set has (dst, value, N) or, in 2D,
// (dst, pitch, value, width, height).
template <class... A>
CallFacts CallFactsOf(trace::Api api, trace::CopyKind copy_kind, CUresult, A... args) {
  CallFacts f;
  (call_facts::Note(f, args), ...);
  const bool is_set = api == trace::Api::kCuMemset || api == trace::Api::kCuMemsetAsync;
  call_facts::Sizes sizes;
  (call_facts::NoteSize(sizes, args, is_set), ...);
  if (is_set) {
    f.bytes = sizes.count >= 3   ? uint64_t{sizes.values[1]} * sizes.values[2] * sizes.element
              : sizes.count >= 1 ? uint64_t{sizes.values[sizes.count - 1]} * sizes.element
                                 : 0;
  } else if (f.bytes == 0 && sizes.count > 0) {
    f.bytes = sizes.values[sizes.count - 1];
  }
  if (f.kind == trace::CopyKind::kUnknown) f.kind = copy_kind;
  return f;
}

}  // namespace flopspy::interpose
