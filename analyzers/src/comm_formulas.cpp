#include "flopspy/analyzers/comm_formulas.h"

#include "flopspy/analyzers/blas_types.h"

namespace flopspy::analyzers {

std::optional<uint8_t> CudaTypeOfNcclType(int nccl_type) {
  // ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64, ncclUint64, ncclFloat16, ncclFloat32,
  // ncclFloat64, ncclBfloat16, ncclFloat8e4m3, ncclFloat8e5m2 (nccl.h, NCCL 2.28).
  constexpr uint8_t kTypes[] = {3, 8, 10, 12, 24, 26, 2, 0, 1, 14, 28, 29};
  if (nccl_type < 0 || nccl_type >= static_cast<int>(sizeof(kTypes))) return std::nullopt;
  return kTypes[nccl_type];
}

int CommElementBytes(uint8_t cuda_type) {
  switch (cuda_type) {
    case 3:   // CUDA_R_8I
    case 8:   // CUDA_R_8U
    case 28:  // CUDA_R_8F_E4M3
    case 29:  // CUDA_R_8F_E5M2
      return 1;
    case 2:   // CUDA_R_16F
    case 14:  // CUDA_R_16BF
      return 2;
    case 0:   // CUDA_R_32F
    case 10:  // CUDA_R_32I
    case 12:  // CUDA_R_32U
      return 4;
    case 1:   // CUDA_R_64F
    case 24:  // CUDA_R_64I
    case 26:  // CUDA_R_64U
      return 8;
    default:
      return 0;
  }
}

double CommMessageBytes(BlasRoutine routine, int64_t count, int element_bytes, int64_t nranks) {
  const double per_rank = static_cast<double>(count) * element_bytes;
  switch (routine) {
    case BlasRoutine::kNcclAllReduce:
    case BlasRoutine::kNcclBroadcast:
    case BlasRoutine::kNcclReduce:
    case BlasRoutine::kNcclSend:
    case BlasRoutine::kNcclRecv:
      return per_rank;
    case BlasRoutine::kNcclAllGather:
    case BlasRoutine::kNcclReduceScatter:
    case BlasRoutine::kNcclAllToAll:
    case BlasRoutine::kNcclGather:
    case BlasRoutine::kNcclScatter:
      return nranks >= 1 ? per_rank * static_cast<double>(nranks) : 0;
    default:
      return 0;
  }
}

std::optional<double> BusBandwidthFactor(BlasRoutine routine, int64_t nranks) {
  if (nranks < 1) return std::nullopt;
  const double n = static_cast<double>(nranks);
  switch (routine) {
    case BlasRoutine::kNcclAllReduce:
      return 2 * (n - 1) / n;
    case BlasRoutine::kNcclAllGather:
    case BlasRoutine::kNcclReduceScatter:
    case BlasRoutine::kNcclAllToAll:
      return (n - 1) / n;
    case BlasRoutine::kNcclBroadcast:
    case BlasRoutine::kNcclReduce:
    case BlasRoutine::kNcclGather:
    case BlasRoutine::kNcclScatter:
    case BlasRoutine::kNcclSend:
    case BlasRoutine::kNcclRecv:
      return 1.0;
    default:
      return std::nullopt;
  }
}

double CommReductionFlops(BlasRoutine routine, int64_t count, int64_t nranks) {
  if (nranks < 1) return 0;
  const double n = static_cast<double>(nranks);
  switch (routine) {
    case BlasRoutine::kNcclAllReduce:
    case BlasRoutine::kNcclReduce:
      return static_cast<double>(count) * (n - 1) / n;
    case BlasRoutine::kNcclReduceScatter:
      return static_cast<double>(count) * (n - 1);
    default:
      return 0;
  }
}

}  // namespace flopspy::analyzers
