// NCCL collectives in numbers (docs/nccl.md): the message size a call moves, the bus-bandwidth
// factor nccl-tests uses, and NCCL's data types as cudaDataType values. Pure functions: the hooks
// fill a record with them, the report turns records and GPU times into bandwidths.
#pragma once

#include <cstdint>
#include <optional>

#include "flopspy/analyzers/blas_routine.h"

namespace flopspy::analyzers {

// The cudaDataType value of an ncclDataType_t (ncclFloat32 -> CUDA_R_32F), nullopt for one this
// version does not know.
std::optional<uint8_t> CudaTypeOfNcclType(int nccl_type);

// Bytes per element of a cudaDataType value NCCL uses; 0 for one it does not.
int CommElementBytes(uint8_t cuda_type);

// nccl-tests' size S of one call, in bytes (its "size" column): the buffer per rank, the output
// for all-gather, the input for reduce-scatter; `count` is the count the call was given
// (all-gather's sendcount, reduce-scatter's recvcount, all-to-all's count per peer). 0 when the
// rank count is needed and unknown (nranks < 1).
double CommMessageBytes(BlasRoutine routine, int64_t count, int element_bytes, int64_t nranks);

// nccl-tests' bus-bandwidth factor: busbw = algbw x factor, algbw = S / time. All-reduce
// 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce, gather, scatter,
// send, receive 1. nullopt for a group or an unknown rank count.
std::optional<double> BusBandwidthFactor(BlasRoutine routine, int64_t nranks);

// The arithmetic one rank does for a reducing collective with a ring schedule: all-reduce and
// reduce count (n-1)/n element operations, reduce-scatter recvcount (n-1); 0 for the others
// and for an unknown rank count.
double CommReductionFlops(BlasRoutine routine, int64_t count, int64_t nranks);

}  // namespace flopspy::analyzers
