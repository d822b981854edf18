// The CPU roofline inside libflopspy.so: the cpu_roofline sampler started with the recorder,
// its points written as trace records, regions and host<->device copies passed to it.
#pragma once

#include <cstdint>
#include <string_view>

namespace flopspy::interpose {

class Recorder;

// Opens the counters FLOPSPY_CPU_ROOFLINE asks for (auto by default). The interval thread runs
// only when FP work or memory traffic can be counted; what is missing is recorded in the trace
// metadata and, when the source was asked for explicitly, said once on stderr.
void StartCpuSampling(Recorder& recorder);
// Emits the last interval and the whole-run point (before the final flush).
void StopCpuSampling();

void CpuRegionBegin(std::string_view name, uint64_t now_ns);
void CpuRegionEnd(std::string_view name, uint64_t now_ns);
// A host<->device copy ran in [begin, end]: CPU points overlapping it are flagged.
void CpuNoteGpuCopy(uint64_t begin_ns, uint64_t end_ns);

// The child samples itself (or stops, when it is not to be traced).
void CpuSamplingAfterForkInChild(bool traced);

}  // namespace flopspy::interpose
