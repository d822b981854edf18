// A large trace shaped like a PyTorch training job, for the report's scale benchmark:
// a few hundred kernel names (ATen elementwise and reduction kernels, Triton, cuBLAS GEMMs), one
// launching thread whose launches have GPU kernel records with the same correlation ids, API
// calls (stream syncs, copies) with their GPU copy records, cuBLAS calls with the kernels they
// launch, and the definitions and metadata a real trace starts with. Written chunk by chunk, as
// the recorder does, so that memory stays small whatever the size.
#pragma once

#include <cstdint>
#include <string>

namespace flopspy::bench {

struct ScaleTraceFacts {
  uint64_t records = 0;  // every record, definitions included
  uint64_t launches = 0;
  uint64_t gpu_records = 0;
  uint64_t library_calls = 0;
  uint64_t bytes = 0;  // file size
};

// Writes about `records` records (a few more, to finish the last step) to `path`. `seed` varies
// the timings and the kernel mix; `pid` and `rank` name the process; `compressed`: zstd chunks,
// as the recorder writes by default. Returns false with `error` set when the file cannot be
// written.
bool WriteScaleTrace(const std::string& path, uint64_t records, uint32_t seed, int32_t rank,
                     bool compressed, ScaleTraceFacts* facts, std::string* error);

// The kernel names the trace uses (for documentation and checks).
size_t ScaleTraceKernelNames();

}  // namespace flopspy::bench
