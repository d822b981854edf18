// Numeric values of the CUDA and cuBLAS enums that LibraryCallRecord stores, mirrored here because
// analyzers/ may not include CUDA headers. Values checked against CUDA 13.0 library_types.h,
// cublas_api.h and cublasLt.h (cuBLAS 13.1.0.3).
#pragma once

#include <cstdint>
#include <string_view>

namespace flopspy::analyzers {

// A record byte that does not apply to the routine (LibraryCallRecord uses 0xFF throughout).
inline constexpr uint8_t kNotApplicable = 0xFF;

// --- cudaDataType (library_types.h) ----------------------------------------------------------
namespace cuda_type {
inline constexpr uint8_t kR32F = 0;       // CUDA_R_32F
inline constexpr uint8_t kR64F = 1;       // CUDA_R_64F
inline constexpr uint8_t kR16F = 2;       // CUDA_R_16F
inline constexpr uint8_t kR8I = 3;        // CUDA_R_8I
inline constexpr uint8_t kC32F = 4;       // CUDA_C_32F
inline constexpr uint8_t kC64F = 5;       // CUDA_C_64F
inline constexpr uint8_t kC16F = 6;       // CUDA_C_16F
inline constexpr uint8_t kC8I = 7;        // CUDA_C_8I
inline constexpr uint8_t kR8U = 8;        // CUDA_R_8U
inline constexpr uint8_t kC8U = 9;        // CUDA_C_8U
inline constexpr uint8_t kR32I = 10;      // CUDA_R_32I
inline constexpr uint8_t kC32I = 11;      // CUDA_C_32I
inline constexpr uint8_t kR32U = 12;      // CUDA_R_32U
inline constexpr uint8_t kC32U = 13;      // CUDA_C_32U
inline constexpr uint8_t kR16BF = 14;     // CUDA_R_16BF
inline constexpr uint8_t kC16BF = 15;     // CUDA_C_16BF
inline constexpr uint8_t kR4I = 16;       // CUDA_R_4I
inline constexpr uint8_t kC4I = 17;       // CUDA_C_4I
inline constexpr uint8_t kR4U = 18;       // CUDA_R_4U
inline constexpr uint8_t kC4U = 19;       // CUDA_C_4U
inline constexpr uint8_t kR16I = 20;      // CUDA_R_16I
inline constexpr uint8_t kC16I = 21;      // CUDA_C_16I
inline constexpr uint8_t kR16U = 22;      // CUDA_R_16U
inline constexpr uint8_t kC16U = 23;      // CUDA_C_16U
inline constexpr uint8_t kR64I = 24;      // CUDA_R_64I
inline constexpr uint8_t kC64I = 25;      // CUDA_C_64I
inline constexpr uint8_t kR64U = 26;      // CUDA_R_64U
inline constexpr uint8_t kC64U = 27;      // CUDA_C_64U
inline constexpr uint8_t kR8FE4M3 = 28;   // CUDA_R_8F_E4M3 (also CUDA_R_8F_UE4M3)
inline constexpr uint8_t kR8FE5M2 = 29;   // CUDA_R_8F_E5M2
inline constexpr uint8_t kR8FUE8M0 = 30;  // CUDA_R_8F_UE8M0 (block scale factors)
inline constexpr uint8_t kR6FE2M3 = 31;   // CUDA_R_6F_E2M3
inline constexpr uint8_t kR6FE3M2 = 32;   // CUDA_R_6F_E3M2
inline constexpr uint8_t kR4FE2M1 = 33;   // CUDA_R_4F_E2M1
}  // namespace cuda_type

// Bytes per element (fractional for sub-byte types: FP4 0.5, FP6 0.75); 0 when unknown.
double DataTypeBytes(uint8_t type);
bool IsComplexType(uint8_t type);
bool IsFp8Type(uint8_t type);
// "R_16BF", "C_32F", ... ("unknown" for values we do not know, "n/a" for kNotApplicable).
std::string_view DataTypeName(uint8_t type);

// --- cublasComputeType_t (cublas_api.h), stored in LibraryCallRecord::compute_type minus 64 ---
namespace compute_type {
inline constexpr uint8_t kOffset = 64;             // record value = cublasComputeType_t - kOffset
inline constexpr uint8_t k16F = 0;                 // CUBLAS_COMPUTE_16F = 64
inline constexpr uint8_t k16FPedantic = 1;         // CUBLAS_COMPUTE_16F_PEDANTIC = 65
inline constexpr uint8_t k32F = 4;                 // CUBLAS_COMPUTE_32F = 68
inline constexpr uint8_t k32FPedantic = 5;         // CUBLAS_COMPUTE_32F_PEDANTIC = 69
inline constexpr uint8_t k64F = 6;                 // CUBLAS_COMPUTE_64F = 70
inline constexpr uint8_t k64FPedantic = 7;         // CUBLAS_COMPUTE_64F_PEDANTIC = 71
inline constexpr uint8_t k32I = 8;                 // CUBLAS_COMPUTE_32I = 72
inline constexpr uint8_t k32IPedantic = 9;         // CUBLAS_COMPUTE_32I_PEDANTIC = 73
inline constexpr uint8_t k32FFast16F = 10;         // CUBLAS_COMPUTE_32F_FAST_16F = 74
inline constexpr uint8_t k32FFast16BF = 11;        // CUBLAS_COMPUTE_32F_FAST_16BF = 75
inline constexpr uint8_t k32FFastTF32 = 13;        // CUBLAS_COMPUTE_32F_FAST_TF32 = 77
inline constexpr uint8_t k32FEmulated16BFx9 = 14;  // CUBLAS_COMPUTE_32F_EMULATED_16BFX9 = 78
inline constexpr uint8_t k64FEmulatedFixedPoint =
    15;  // CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT = 79
}  // namespace compute_type

// "32F", "32F_FAST_TF32", ... for a stored (minus 64) compute type.
std::string_view ComputeTypeName(uint8_t stored_compute_type);

// --- cublasOperation_t, cublasSideMode_t, cublasFillMode_t, cublasDiagType_t (cublas_api.h) ---
namespace blas_op {
inline constexpr uint8_t kN = 0;  // CUBLAS_OP_N
inline constexpr uint8_t kT = 1;  // CUBLAS_OP_T
inline constexpr uint8_t kC = 2;  // CUBLAS_OP_C (= CUBLAS_OP_HERMITAN)
}  // namespace blas_op
namespace blas_side {
inline constexpr uint8_t kLeft = 0;   // CUBLAS_SIDE_LEFT
inline constexpr uint8_t kRight = 1;  // CUBLAS_SIDE_RIGHT
}  // namespace blas_side
namespace blas_fill {
inline constexpr uint8_t kLower = 0;  // CUBLAS_FILL_MODE_LOWER
inline constexpr uint8_t kUpper = 1;  // CUBLAS_FILL_MODE_UPPER
inline constexpr uint8_t kFull = 2;   // CUBLAS_FILL_MODE_FULL
}  // namespace blas_fill
namespace blas_diag {
inline constexpr uint8_t kNonUnit = 0;  // CUBLAS_DIAG_NON_UNIT
inline constexpr uint8_t kUnit = 1;     // CUBLAS_DIAG_UNIT
}  // namespace blas_diag

// --- cublasLtEpilogue_t (cublasLt.h) ---------------------------------------------------------
namespace lt_epilogue {
inline constexpr uint32_t kDefault = 1;        // CUBLASLT_EPILOGUE_DEFAULT
inline constexpr uint32_t kRelu = 2;           // CUBLASLT_EPILOGUE_RELU
inline constexpr uint32_t kReluAux = 130;      // CUBLASLT_EPILOGUE_RELU_AUX
inline constexpr uint32_t kBias = 4;           // CUBLASLT_EPILOGUE_BIAS
inline constexpr uint32_t kReluBias = 6;       // CUBLASLT_EPILOGUE_RELU_BIAS
inline constexpr uint32_t kReluAuxBias = 134;  // CUBLASLT_EPILOGUE_RELU_AUX_BIAS
inline constexpr uint32_t kDrelu = 136;        // CUBLASLT_EPILOGUE_DRELU
inline constexpr uint32_t kDreluBgrad = 152;   // CUBLASLT_EPILOGUE_DRELU_BGRAD
inline constexpr uint32_t kGelu = 32;          // CUBLASLT_EPILOGUE_GELU
inline constexpr uint32_t kGeluAux = 160;      // CUBLASLT_EPILOGUE_GELU_AUX
inline constexpr uint32_t kGeluBias = 36;      // CUBLASLT_EPILOGUE_GELU_BIAS
inline constexpr uint32_t kGeluAuxBias = 164;  // CUBLASLT_EPILOGUE_GELU_AUX_BIAS
inline constexpr uint32_t kDgelu = 192;        // CUBLASLT_EPILOGUE_DGELU
inline constexpr uint32_t kDgeluBgrad = 208;   // CUBLASLT_EPILOGUE_DGELU_BGRAD
inline constexpr uint32_t kBgradA = 256;       // CUBLASLT_EPILOGUE_BGRADA
inline constexpr uint32_t kBgradB = 512;       // CUBLASLT_EPILOGUE_BGRADB
}  // namespace lt_epilogue

// "DEFAULT", "GELU_AUX_BIAS", ...; "unknown" for values cuBLAS 13.1 does not define.
std::string_view EpilogueName(uint32_t epilogue);

}  // namespace flopspy::analyzers
