// A mock CUPTI range profiler, profiler host API and driver for the counter-mode tests: a
// CounterApi whose entries record every call in order and answer as a test configures them
// (any call can be made to fail), host functions that build a fake configuration image and
// evaluate metric values a test sets per metric name.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "counters_api.h"
#include "counters_mode.h"

namespace flopspy::testing {

struct MockRangeProfiler {
  // --- Answers.
  std::map<std::string, int> fail;  // call name -> CUptiResult / CUresult it returns instead
  std::string throw_in;             // a call that throws std::bad_alloc instead (once)
  std::string chip = "GH100";
  uintptr_t context = 0xC0;  // cuCtxGetCurrent (0: no current context)
  int device = 0;
  int device_count = 1;
  bool capturing = false;                 // cuStreamIsCapturing
  bool all_passes_submitted = true;       // cuptiRangeProfilerStop
  size_t ranges = 1;                      // cuptiRangeProfilerGetCounterDataInfo
  size_t ranges_dropped = 0;              // cuptiRangeProfilerDecodeData
  size_t passes = 3;                      // cuptiProfilerHostGetNumOfPasses, when:
  size_t metrics_per_pass = 0;            // not 0: a configuration needs ceil(metrics / this)
  std::vector<std::string> chip_metrics;  // base metrics the chip has (empty: every candidate)
  std::map<std::string, double> values;   // per collected metric name, for Evaluate
  std::vector<std::map<std::string, double>> value_sequence;  // per measurement, if set
  // A second cuptiRangeProfilerSetConfig on one object keeps the first configuration (what an
  // H200 did: the other groups' metrics then read 0).
  bool first_config_sticks = true;

  // --- What was asked.
  std::vector<std::string> calls;  // CUPTI and driver calls, in order
  std::vector<std::string> added_metrics;
  int enabled = 0;  // range profiler objects alive
  int started = 0;  // Start without Stop
  int evaluations = 0;
  CUpti_ProfilerRange range = CUPTI_Range_INVALID;
  CUpti_ProfilerReplayMode replay = CUPTI_Replay_INVALID;
  uintptr_t synchronized_stream = 0;
  std::set<std::string> decoded_metrics;  // counted by the last decoded measurement
};

MockRangeProfiler& RangeMock();
void ResetRangeMock();

// The table pointing at the mock (host functions through its lookup).
interpose::CounterApi MockCounterApi();

// Calls of the mock whose name starts with one of `prefixes`, in order.
std::vector<std::string> CallsOf(const std::vector<std::string>& prefixes);

// What counter mode said and wrote.
struct CounterSaid {
  std::vector<std::string> reports;  // stderr lines (one per report key)
  std::vector<trace::WarningCode> codes;
  std::vector<std::string> metadata;
  std::vector<interpose::RawKernelMetrics> records;
  int catalog_requests = 0;  // times counter mode asked the flusher to catalogue kernels
};

// An environment serving the mock; `timing` is the GPU-timing session state it reports.
interpose::CounterEnvironment MockCounterEnvironment(
    CounterSaid* said, bool driver_loaded = true,
    interpose::CuptiState timing = interpose::CuptiState::kActive);

}  // namespace flopspy::testing
