// CUDA_INJECTION64_PATH=/abs/path/libflopspy.so: the driver loads the library while cuInit runs
// and calls InitializeInjection (docs/cuda-notes.md, "The injection entry point"). flopspy starts
// CUPTI there, before any other CUPTI client could; under LD_PRELOAD alone the session starts at
// the first CUDA call.
#include "cupti_session.h"

#define FLOPSPY_EXPORT extern "C" __attribute__((visibility("default")))

// Always 1 (success): whether or not GPU timing could start, the driver must carry on.
FLOPSPY_EXPORT int InitializeInjection(void) {
  try {
    flopspy::interpose::CuptiSession::StartFromInjection();
  } catch (...) {  // NOLINT(bugprone-empty-catch): the program comes first
  }
  return 1;
}
