// CPU samples + ceilings -> roofline chart data: compute roofs, one bandwidth roof per memory
// level, and points per interval, region and run, placed by analyzers::PlaceRate (the rule GPU
// kernels are placed by). The report renders the chart; `flopspy ceilings --cpu` draws its SVG.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flopspy/analyzers/roofline.h"
#include "flopspy/cpu_roofline/ceilings.h"
#include "flopspy/trace/schema.h"

namespace flopspy::cpuroof {

struct LabeledSample {
  trace::CpuSampleRecord record;
  std::string label;  // region name, "interval 3", "run", ...
};

struct CpuRoof {
  bool compute = true;  // false: a bandwidth roof
  std::string name;     // "FP64 avx512, 2 threads"
  std::string level;    // compute: "fp64"/"fp32"; bandwidth: "L1", "L2", "L3", "DRAM"
  double value = 0;     // GFLOP/s or GB/s
  std::string source;   // "measured", "theoretical", "configured"
  int threads = 0;
};

struct CpuRooflinePoint {
  std::string label;
  std::string scope;  // interval, region, run
  uint64_t begin_ns = 0, end_ns = 0;
  double seconds = 0;
  std::string precision;  // dp, sp, hp, mixed, any, "" (no W)
  std::optional<double> gflops;
  std::optional<double> gbytes_per_s;
  std::optional<double> intensity;  // flop/B; +inf when Q == 0 < W
  std::optional<double> intensity_read;
  std::optional<double> intensity_write;
  std::optional<double> flops_per_cycle;
  std::optional<double> ghz;
  std::vector<std::string> flags;
  // Under the roof that holds the point (FLOP/s, bytes/s): attainable_flops, pct_of_attainable
  // and regime (kUnknown when nothing could be placed).
  analyzers::Placement placement;
};

struct CpuRooflineChart {
  std::vector<CpuRoof> roofs;
  std::vector<CpuRooflinePoint> points;
  std::optional<double> ridge_intensity;  // top compute roof / DRAM roof
  std::vector<std::string> notes;
};

struct CpuRooflineInputs {
  const CpuCeilings* ceilings = nullptr;
  std::optional<double> peak_gflops;    // FLOPSPY_CPU_PEAK_GFLOPS: replaces the compute roofs
  std::optional<double> bandwidth_gbs;  // FLOPSPY_CPU_BW_GBS: replaces the DRAM roof
  bool include_intervals = true;
};

// Copies between host and GPU memory as the GPU ran them (CUPTI activity, the trace's clock):
// their DMA reaches host DRAM after the API call returned, which the sampler cannot see. Flags
// every point whose span meets one with kCpuOverlapsGpuCopies ("whole run" points: any copy).
// `copies` need not be sorted. Returns how many points gained the flag.
size_t FlagPointsOverlappingGpuCopies(std::vector<LabeledSample>& samples,
                                      std::vector<std::pair<uint64_t, uint64_t>> copies);

CpuRooflineChart BuildCpuRoofline(const std::vector<LabeledSample>& samples,
                                  const CpuRooflineInputs& inputs);

// A self-contained SVG of the chart (log-log; no script): bandwidth roofs up to the highest
// compute roof, compute roofs from their ridge point on (theoretical ones dashed), one marker per
// point with a tooltip. Points without Q (no intensity) cannot be placed and are counted in a
// footnote.
std::string CpuRooflineSvg(const CpuRooflineChart& chart, int width = 760, int height = 500);
// The ceilings as text: measured beside theoretical per ISA, bandwidth per level.
std::string FormatCeilingsTable(const CpuCeilings& ceilings);

}  // namespace flopspy::cpuroof
