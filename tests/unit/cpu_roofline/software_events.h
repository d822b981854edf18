// task-clock and page-faults: software events, so the real kernel opens them on any Linux host,
// PMU or not. For tests of the real perf_event_open path.
#pragma once

#include <linux/perf_event.h>

#include "flopspy/cpu_roofline/event_catalog.h"

namespace flopspy::cpuroof::testing {

inline EventPlan TaskClockPlan() {
  EventPlan plan;
  PlannedEvent tc;
  tc.name = "task-clock";
  tc.kind = EventTypeKind::kSoftware;
  tc.config = PERF_COUNT_SW_TASK_CLOCK;
  tc.quantity = Quantity::kTaskClock;
  PlannedEvent faults = tc;
  faults.name = "page-faults";
  faults.config = PERF_COUNT_SW_PAGE_FAULTS;
  faults.quantity = Quantity::kInstructions;  // any counted quantity: only the plumbing matters
  plan.events = {tc, faults};
  return plan;
}

}  // namespace flopspy::cpuroof::testing
