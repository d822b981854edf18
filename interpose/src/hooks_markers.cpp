// The marker API of flopspy.h: region begin and end with the caller's time and name.
#include <cstring>

#include "clock.h"
#include "raw_events.h"
#include "recorder.h"

using namespace flopspy::interpose;  // NOLINT(google-build-using-namespace): exported C functions

namespace {

void RecordEdge(flopspy::trace::RegionEdge edge, const char* name) {
  if (!g_recording.load(std::memory_order_relaxed)) return;
  RawRegion raw;
  raw.Set(edge, NowNs(), name == nullptr ? std::string_view{} : std::string_view{name});
  Emit(raw);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void flopspy_region_begin(const char* name) {
  RecordEdge(flopspy::trace::RegionEdge::kBegin, name);
}

extern "C" __attribute__((visibility("default"))) void flopspy_region_end(const char* name) {
  RecordEdge(flopspy::trace::RegionEdge::kEnd, name);
}
