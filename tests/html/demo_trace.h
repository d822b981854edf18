// A small trace with known figures for the HTML and CSV tests: an H100 in the metadata, three
// elementwise multiplications (two memory bound, one too short: overhead bound), an SGEMM
// through cuBLAS (compute bound), a kernel whose name needs escaping and whose FLOPs are
// unknown, and a host-to-device copy, on two streams.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flopspy::testing {

// What the tests expect of the demo trace's chart points, worked out by hand.
struct ExpectedPoint {
  std::string kind;  // "kernel" or "library"
  double intensity;  // FLOP per byte
  double flops_per_s;
  double gpu_ns;
  std::string regime;
};

// The kernel whose name must be escaped everywhere (and has no FLOP figure).
inline constexpr char kNastyKernel[] = "void nasty<\"q\", 'a' & b>(int, <script>alert(1)</script>)";

std::vector<uint8_t> DemoTrace(uint32_t pid = 4242, int32_t rank = -1);
std::vector<ExpectedPoint> DemoTracePoints();

// The demo run recorded without GPU timing (no CUPTI): the same launches and cuBLAS call, no
// GPU activity records.
std::vector<uint8_t> DemoTraceWithoutGpuRecords(uint32_t pid = 4242);

// The demo trace with a CPU side too: marked regions "forward" (twice) and "backward" (once,
// and once never ended), and CPU counter samples for both regions and the whole run. Its
// metadata names the CPU whose ceilings tests/data/cpu_roofline/ceilings/skx_synthetic.json
// holds (kDemoCpuKey); the report finds them under $XDG_CACHE_HOME/flopspy/.
inline constexpr char kDemoCpuKey[] = "genuineintel-6-55-synthetic";
std::vector<uint8_t> DemoTraceWithCpu();
struct ExpectedCpuPoint {
  std::string label;
  double intensity;    // FLOP per byte
  double flops_per_s;  // over the sample's wall time
};
std::vector<ExpectedCpuPoint> DemoCpuPoints();
// Writes the bytes to `path`.
void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace flopspy::testing
