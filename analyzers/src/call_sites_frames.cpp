// Frame names and the user-frame rule of the call-site analysis (docs/call-sites.md, "How the
// report attributes kernels to lines").
#include <array>
#include <string>

#include "call_sites_internal.h"
#include "helpers_internal.h"

namespace flopspy::analyzers {

std::string_view CallSiteKindName(CallSiteKind kind) {
  switch (kind) {
    case CallSiteKind::kFrame:
      return "frame";
    case CallSiteKind::kNoUserFrame:
      return "no user frame";
    case CallSiteKind::kBackward:
      return "backward";
    case CallSiteKind::kNoStack:
      return "no stack";
  }
  return "unknown";
}

std::string FrameLabel(const SourceFrame& frame) {
  using call_sites_internal::BaseName;
  std::string label;
  if (!frame.file.empty()) {
    label = std::string(BaseName(frame.file));
    if (frame.line > 0) label += ":" + std::to_string(frame.line);
    if (!frame.function.empty()) label += " (" + frame.function + ")";
    return label;
  }
  if (frame.python) return frame.function.empty() ? "?" : frame.function;
  // Native without debug info: "symbol (libfoo.so)", or already "libfoo.so+0x1a2b".
  const std::string_view module = BaseName(frame.module);
  if (module.empty() || frame.function.rfind(std::string(module) + "+0x", 0) == 0) {
    return frame.function;
  }
  return frame.function + " (" + std::string(module) + ")";
}

namespace call_sites_internal {
namespace {

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The first folder under the last site-packages or dist-packages folder of `path`, "" when the
// path lies in neither.
std::string_view InstalledPackage(std::string_view path) {
  size_t at = std::string_view::npos;
  for (const std::string_view folder : {"/site-packages/", "/dist-packages/"}) {
    const size_t found = path.rfind(folder);
    if (found != std::string_view::npos && (at == std::string_view::npos || found > at)) {
      at = found + folder.size();
    }
  }
  if (at == std::string_view::npos) return {};
  std::string_view rest = path.substr(at);
  return rest.substr(0, rest.find('/'));
}

bool InSitePackages(std::string_view path) {
  return path.find("/site-packages/") != std::string_view::npos ||
         path.find("/dist-packages/") != std::string_view::npos;
}

// ".../lib/python3.11/..." (lib64, "3.13t" free-threaded): the standard library's folder.
bool InStandardLibrary(std::string_view path) {
  for (size_t at = path.find("/python"); at != std::string_view::npos;
       at = path.find("/python", at + 1)) {
    const std::string_view before = path.substr(0, at);
    if (!before.ends_with("/lib") && !before.ends_with("/lib64") && before != "lib" &&
        before != "lib64") {
      continue;
    }
    size_t i = at + 7;
    size_t digits = 0;
    while (i < path.size() && helpers::IsAsciiDigit(path[i])) ++i, ++digits;
    if (digits == 0 || i >= path.size() || path[i] != '.') continue;
    ++i;
    digits = 0;
    while (i < path.size() && helpers::IsAsciiDigit(path[i])) ++i, ++digits;
    if (digits == 0) continue;
    if (i < path.size() && path[i] == 't') ++i;
    if (i < path.size() && path[i] == '/') return true;
  }
  return false;
}

// Packages whose frames are never the user's: the framework and its compiler, and flopspy.
bool IsFrameworkPackage(std::string_view package) {
  return package == "torch" || package == "triton" || package == "flopspy";
}

}  // namespace

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool IsUserPythonFile(std::string_view file) {
  if (file.empty() || StartsWith(file, "<frozen")) return false;
  if (InSitePackages(file)) return !IsFrameworkPackage(InstalledPackage(file));
  if (InStandardLibrary(file)) return false;
  // flopspy's own Python package (python/flopspy/, on PYTHONPATH): its modules are all "_*.py".
  const size_t slash = file.rfind('/');
  const std::string_view folder =
      slash == std::string_view::npos ? std::string_view() : BaseName(file.substr(0, slash));
  return !(folder == "flopspy" && StartsWith(BaseName(file), "_"));
}

bool IsUserNativeFrame(std::string_view module_path) {
  if (module_path.empty()) return false;  // an address in no listed object
  if (InSitePackages(module_path) && IsFrameworkPackage(InstalledPackage(module_path))) {
    return false;  // torch/_C.so, triton's compiled launchers
  }
  static constexpr std::array<std::string_view, 21> kSystem = {
      "libflopspy", "libcuda.", "libcudart", "libcublas", "libcudnn", "libnccl",
      "libnvrtc",   "libc.so",  "libc-",     "libstdc++", "libgcc_s", "ld-linux",
      "libpthread", "libdl.",   "libdl-",    "libm.so",   "libm-",    "libpython",
      "libtorch",   "libc10",   "python"};  // the interpreter (Debian links libpython in)
  const std::string_view base = BaseName(module_path);
  for (const std::string_view prefix : kSystem) {
    if (StartsWith(base, prefix)) return false;
  }
  return !StartsWith(base, "linux-vdso");
}

UserFrameRule::UserFrameRule(const std::string& frames_from) {
  if (!frames_from.empty()) frames_from_.emplace(frames_from, std::regex::ECMAScript);
}

bool UserFrameRule::Matches(std::string_view text) const {
  // Paths come from the trace: a bounded length keeps the regex engine's recursion bounded.
  text = text.substr(0, 4096);
  return std::regex_search(text.begin(), text.end(), *frames_from_);
}

bool UserFrameRule::IsUser(const SourceFrame& frame) const {
  if (frame.python) {
    if (frame.file.empty()) return false;  // a code object the trace does not describe
    return frames_from_ ? Matches(frame.file) : IsUserPythonFile(frame.file);
  }
  if (frames_from_) {
    return (!frame.file.empty() && Matches(frame.file)) ||
           (!frame.module.empty() && Matches(frame.module));
  }
  return IsUserNativeFrame(frame.module);
}

}  // namespace call_sites_internal
}  // namespace flopspy::analyzers
