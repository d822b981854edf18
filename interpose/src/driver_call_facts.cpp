#include "driver_call_facts.h"

namespace flopspy::interpose {
namespace {

CallFacts BatchFacts(const size_t* sizes, size_t count, CUstream s, CUresult result) {
  CallFacts f;
  f.stream = reinterpret_cast<uint64_t>(s);
  f.kind = trace::CopyKind::kDefault;  // directions come from the pointers, as cudaMemcpyDefault
  for (size_t i = 0; result == CUDA_SUCCESS && sizes != nullptr && i < count; ++i) {
    f.bytes += sizes[i];
  }
  return f;
}

CallFacts Batch3DFacts(size_t count, const CUDA_MEMCPY3D_BATCH_OP* ops, CUstream s,
                       CUresult result) {
  CallFacts f;
  f.stream = reinterpret_cast<uint64_t>(s);
  f.kind = trace::CopyKind::kDefault;
  for (size_t i = 0; result == CUDA_SUCCESS && ops != nullptr && i < count; ++i) {
    f.bytes +=
        static_cast<uint64_t>(ops[i].extent.width) * ops[i].extent.height * ops[i].extent.depth;
  }
  return f;
}

}  // namespace

uint64_t Bytes2D(const CUDA_MEMCPY2D* c) {
  return c ? static_cast<uint64_t>(c->WidthInBytes) * c->Height : 0;
}

uint64_t Bytes3D(const CUDA_MEMCPY3D* c) {
  return c ? static_cast<uint64_t>(c->WidthInBytes) * c->Height * c->Depth : 0;
}

trace::MemoryKind MemoryOf(CUmemorytype type) {
  switch (type) {
    case CU_MEMORYTYPE_DEVICE:
      return trace::MemoryKind::kDevice;
    case CU_MEMORYTYPE_ARRAY:
      return trace::MemoryKind::kArray;
    default:
      return trace::MemoryKind::kUnknown;  // host memory: pinned or pageable is not known here
  }
}

trace::CopyKind KindOf(CUmemorytype src, CUmemorytype dst) {
  const bool src_host = src == CU_MEMORYTYPE_HOST, dst_host = dst == CU_MEMORYTYPE_HOST;
  if (src_host && dst_host) return trace::CopyKind::kHostToHost;
  if (src_host) return trace::CopyKind::kHostToDevice;
  if (dst_host) return trace::CopyKind::kDeviceToHost;
  if (src == CU_MEMORYTYPE_UNIFIED || dst == CU_MEMORYTYPE_UNIFIED)
    return trace::CopyKind::kDefault;
  return trace::CopyKind::kDeviceToDevice;
}

CallFacts CallFactsOf(trace::Api, trace::CopyKind, CUresult result, CUdeviceptr*, CUdeviceptr*,
                      size_t* sizes, size_t count, CUmemcpyAttributes*, size_t*, size_t, size_t*,
                      CUstream s) {
  return BatchFacts(sizes, count, s, result);
}

CallFacts CallFactsOf(trace::Api, trace::CopyKind, CUresult result, CUdeviceptr*, CUdeviceptr*,
                      size_t* sizes, size_t count, CUmemcpyAttributes*, size_t*, size_t,
                      CUstream s) {
  return BatchFacts(sizes, count, s, result);
}

CallFacts CallFactsOf(trace::Api, trace::CopyKind, CUresult result, size_t count,
                      CUDA_MEMCPY3D_BATCH_OP* ops, size_t*, unsigned long long, CUstream s) {
  return Batch3DFacts(count, ops, s, result);
}

CallFacts CallFactsOf(trace::Api, trace::CopyKind, CUresult result, size_t count,
                      CUDA_MEMCPY3D_BATCH_OP* ops, unsigned long long, CUstream s) {
  return Batch3DFacts(count, ops, s, result);
}

}  // namespace flopspy::interpose
