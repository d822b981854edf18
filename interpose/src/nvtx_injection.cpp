#include "nvtx_injection.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>

#include "log.h"

namespace flopspy::interpose {
namespace {

constexpr const char* kVariable = "NVTX_INJECTION64_PATH";

// The absolute path of the file this function is in; "" if unknown.
std::string OwnPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&PrepareNvtxInjection), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  char resolved[PATH_MAX];
  return realpath(info.dli_fname, resolved) != nullptr ? std::string(resolved)
                                                       : std::string(info.dli_fname);
}

std::string Resolved(const char* path) {
  char resolved[PATH_MAX];
  return realpath(path, resolved) != nullptr ? std::string(resolved) : std::string(path);
}

}  // namespace

void PrepareNvtxInjection(const Config& config) {
  if (!config.nvtx) return;
  const std::string own = OwnPath();
  if (own.empty()) return;
  const char* current = std::getenv(kVariable);
  if (current == nullptr || current[0] == '\0') {
    // The program is single-threaded here (a library constructor): setenv is safe.
    setenv(kVariable, own.c_str(), 1);
    return;
  }
  if (Resolved(current) == own) return;  // `flopspy run` set it
  ReportOnce("nvtx-injection", trace::WarningCode::kGeneric,
             std::string(kVariable) + " names another tool (" + current +
                 "), left as it is: NVTX ranges go to that tool and flopspy records none");
}

}  // namespace flopspy::interpose
