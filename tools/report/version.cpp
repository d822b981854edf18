#include "report/version.h"

#include <fmt/format.h>

#include "flopspy/trace/schema.h"

namespace flopspy::tools {

std::string VersionText(std::string_view program) {
#ifdef FLOPSPY_CUDA_VERSION
  const std::string_view cuda = "built against CUDA " FLOPSPY_CUDA_VERSION;
#else
  const std::string_view cuda = "built without the CUDA toolkit";
#endif
  return fmt::format("{} {} (trace format {}, reads formats {} to {}; {})", program,
                     FLOPSPY_VERSION, trace::kFormatVersion, trace::kOldestReadableVersion,
                     trace::kFormatVersion, cuda);
}

}  // namespace flopspy::tools
