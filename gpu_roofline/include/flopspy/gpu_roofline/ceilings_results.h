// The results of `flopspy ceilings --gpu`: one entry per benchmark with its timed repetitions,
// reduced to the ceilings-file entry (the best rate per compute path and memory level), a text
// table of measured against nominal figures, and the JSON of the whole run. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/gpu_roofline/ceilings.h"
#include "flopspy/gpu_roofline/device_properties.h"

namespace flopspy::gpuroof {

struct GpuBenchResult {
  std::string id;    // stable: "fma_fp32", "gemm_bf16", "copy_dram", "read_dram", "read_l2"
  std::string name;  // what it did: "cublasLt bf16 8192x8192x8192 (fp32 accumulate)"
  std::optional<analyzers::ComputePath> path;   // a FLOP ceiling: the path it measures
  std::optional<analyzers::MemoryLevel> level;  // a bandwidth ceiling: the level it measures
  double work = 0;              // FLOPs (int8: operations) or bytes per timed repetition
  std::vector<double> seconds;  // the timed repetitions, after warm-up
  std::string detail;           // grid, sizes, algorithm: for the JSON output
  std::string skipped;          // not measured, and why (then `seconds` is empty)

  bool Measured() const;
  double BestRate() const;    // work / shortest time; 0 when not measured
  double MedianRate() const;  // work / median time
};

struct GpuCeilingsRun {
  int device_index = 0;
  DeviceProperties device;
  bool quick = false;
  double sm_clock_mhz = 0;  // seen by the FP32 FMA kernel (clock64 over its time); 0 = unknown
  double seconds = 0;       // wall time of the whole run
  std::vector<GpuBenchResult> results;
  std::vector<std::string> notes;  // things skipped as a whole (no cuBLASLt, no kernels)
  std::string error;               // set when nothing could be measured: why
};

// The ceilings-file entry of a run: for every path and level, the best rate among the results
// that measure it (the FMA chains and the FP32 GEMM both measure fp32; the copy and the read-only
// kernel both measure DRAM), with that result's name as the method. The key is the device's UUID
// and driver version; `driver_fallback` stands in for an unknown driver version.
MeasuredCeilings CeilingsFromRun(const GpuCeilingsRun& run, const std::string& measured_at,
                                 const std::string& tool, const std::string& driver_fallback);

// The nominal figure a result is compared with (datasheet or computed, after the fallback chain
// for tensor paths the table has no figure for), or nullopt.
struct NominalFigure {
  double value = 0;
  analyzers::RoofSource source = analyzers::RoofSource::kNone;
  std::string what;  // "bf16_tensor", or "fp16_tensor (fallback for fp16_tensor_fp16acc)"
};
std::optional<NominalFigure> NominalFor(const GpuBenchResult& result,
                                        const analyzers::DeviceRoofs& roofs);

// "312.4 TFLOP/s", "624.0 TOP/s", "4123 GB/s".
std::string FormatRate(const GpuBenchResult& result, double rate);

// The run as a table: device line, then one row per benchmark with the best and median rates,
// the nominal figure and its source, and the best as a percentage of it; skipped benchmarks say
// why; notes at the end.
std::string FormatGpuCeilingsTable(const GpuCeilingsRun& run, const analyzers::DeviceRoofs& roofs);

// The run as JSON (docs/flopspy-ceilings.md): device, every result with its times, rates and
// nominal figures, the ceilings entry and where it was saved ("" = not saved).
std::string GpuCeilingsRunJson(const GpuCeilingsRun& run, const analyzers::DeviceRoofs& roofs,
                               const MeasuredCeilings& entry, const std::string& saved_to);

// Adds `entry` to the ceilings file at `path`, keeping every other device's and driver's entry:
// a missing file is created (with its folders); an unreadable one is moved aside to
// `<path>.unreadable` and a new one written, and `*note` says so. Written as SaveCeilingsFile
// says; in the cache a link or device at the name is never read. False with `*error` when
// nothing could be written.
bool SaveCeilingsEntry(const std::string& path, const MeasuredCeilings& entry,
                       platform::Destination destination, std::string* note, std::string* error);

}  // namespace flopspy::gpuroof
