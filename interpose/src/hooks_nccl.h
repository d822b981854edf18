// NCCL's collectives and point-to-point calls (docs/nccl.md): the hook list, and what the hooks
// keep of each communicator (its id across ranks, its rank count, this rank, a call count).
//
// A recorded call is a LibraryCallRecord, as a cuBLAS call's is: the kernels NCCL launches inside
// it carry its correlation id and are the call's. Inside ncclGroupStart/End NCCL launches at the
// group's end; that call has a record of its own, which owns the group's kernels.
#pragma once

#define FLOPSPY_NCCL_EXPORT extern "C" __attribute__((visibility("default")))

// Every NCCL entry point flopspy hooks. interpose/CMakeLists.txt reads the names from this list
// for libflopspy.so's version script.
#define FLOPSPY_NCCL_HOOKS(X) \
  X(ncclCommInitRank)         \
  X(ncclCommInitRankConfig)   \
  X(ncclCommInitRankScalable) \
  X(ncclCommInitAll)          \
  X(ncclCommSplit)            \
  X(ncclCommDestroy)          \
  X(ncclCommAbort)            \
  X(ncclAllReduce)            \
  X(ncclBroadcast)            \
  X(ncclBcast)                \
  X(ncclReduce)               \
  X(ncclAllGather)            \
  X(ncclReduceScatter)        \
  X(ncclAlltoAll)             \
  X(ncclGather)               \
  X(ncclScatter)              \
  X(ncclSend)                 \
  X(ncclRecv)                 \
  X(ncclGroupStart)           \
  X(ncclGroupEnd)
