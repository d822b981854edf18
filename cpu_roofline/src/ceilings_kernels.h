// Microbenchmark kernels of the CPU ceilings (private). Every instruction set is compiled into
// the same binary with __attribute__((target)); callers pick one that SupportedIsas() lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "flopspy/cpu_roofline/ceilings.h"

namespace flopspy::cpuroof::kernels {

// `iterations` steps of `accumulators` independent chains acc = acc * b + c (FMA where the ISA
// has it), in registers. Returns the floating-point operations done: 2 per lane per step.
// 0 when the ISA or accumulator count is not available. *sink receives a checksum.
double RunFma(Isa isa, bool dp, int accumulators, uint64_t iterations, double* sink);

// Accumulator counts compiled for an ISA (registers limit them).
std::vector<int> AccumulatorChoices(Isa isa);

// The widest vector ISA the bandwidth kernels use here.
Isa BandwidthIsa();

// n: elements, a multiple of kBandwidthBlock; arrays 64-byte aligned.
inline constexpr size_t kBandwidthBlock = 32;
double Load(const double* a, size_t n);
void Store(double* a, size_t n, double value);
void Copy(double* dst, const double* src, size_t n);
void Triad(double* a, const double* b, const double* c, double s, size_t n);

}  // namespace flopspy::cpuroof::kernels
