// The marker API of flopspy.h: region begin and end with the caller's time and name.
#include <cstring>

#include "capture_window.h"
#include "clock.h"
#include "cpu_sampling.h"
#include "raw_events.h"
#include "recorder.h"

using namespace flopspy::interpose;  // NOLINT(google-build-using-namespace): exported C functions

namespace {

void RecordEdge(flopspy::trace::RegionEdge edge, const char* name) {
  if (!g_recording.load(std::memory_order_relaxed)) return;
  const std::string_view text = name == nullptr ? std::string_view{} : std::string_view{name};
  // --capture-range region:NAME: the range's begin opens the window before it is recorded, its
  // end closes it after.
  const bool begin = edge == flopspy::trace::RegionEdge::kBegin;
  if (begin) CaptureRangeEdge(text, true);
  if (!CapturingNow()) {
    if (!begin) CaptureRangeEdge(text, false);
    return;
  }
  const uint64_t now = NowNs();
  RawRegion raw;
  raw.Set(edge, now, text);
  Emit(raw);
  // The CPU roofline point of the region (counters read at both edges).
  if (edge == flopspy::trace::RegionEdge::kBegin) {
    CpuRegionBegin(text, now);
  } else {
    CpuRegionEnd(text, now);
    CaptureRangeEdge(text, false);
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void flopspy_region_begin(const char* name) {
  RecordEdge(flopspy::trace::RegionEdge::kBegin, name);
}

extern "C" __attribute__((visibility("default"))) void flopspy_region_end(const char* name) {
  RecordEdge(flopspy::trace::RegionEdge::kEnd, name);
}
