// A simulated GPU for `flopspy ceilings --gpu` without one: a fake libcuda.so.1 and
// libcublasLt.so.13 (ceilings_fake_cuda.cpp, ceilings_fake_cublaslt.cpp) in which every kernel,
// copy and GEMM takes the time its work needs at the rates below, on a virtual clock per stream
// that events read. The test then expects exactly these rates back, which checks what flopspy
// passes to each launch and how it counts FLOPs and bytes, end to end.
#pragma once

#include <cstdint>

namespace flopspy::fakegpu {

// The device: an A100-SXM4-80GB as far as the device table is concerned.
inline constexpr const char* kName = "NVIDIA A100-SXM4-80GB";
inline constexpr int kSms = 108;
inline constexpr int kMaxThreadsPerSm = 2048;
inline constexpr uint64_t kL2Bytes = uint64_t{40} << 20;
inline constexpr double kClockHz = 1.41e9;  // what clock64 advances by per second
inline constexpr const char* kUuid = "GPU-f1a2b3c4-0000-4000-8000-00000000abcd";

// Rates the simulation runs at (FLOP/s, op/s, bytes/s), each distinct so that a mix-up shows.
inline constexpr double kFp32 = 17.0e12;  // FMA chains: 2 FLOPs x lanes per FMA
inline constexpr double kFp64 = 8.5e12;
inline constexpr double kFp16 = 66.0e12;
inline constexpr double kBf16 = 33.0e12;
inline constexpr double kCopy = 1.6e12;      // bytes read + written
inline constexpr double kDramRead = 1.8e12;  // a read-only kernel over more than the L2
inline constexpr double kL2Read = 5.5e12;    // over at most the L2
inline constexpr double kGemmFp16 = 260e12;
inline constexpr double kGemmFp16Acc = 255e12;
inline constexpr double kGemmBf16 = 250e12;
inline constexpr double kGemmTf32 = 130e12;
inline constexpr double kGemmInt8 = 520e12;
inline constexpr double kGemmFp32 = 16.0e12;  // below the FMA chains: the chains set the roof
inline constexpr double kGemmFp64 = 18.0e12;

}  // namespace flopspy::fakegpu

// Exported by the fake driver for the fake cuBLASLt: `seconds` of work on `stream`.
extern "C" void flopspy_fake_gpu_advance(void* stream, double seconds);
