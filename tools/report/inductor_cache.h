// What torch.compile's inductor recorded about its Triton kernels in the modules it generated
// (the inductor cache): per kernel name, the bytes and FLOPs of `inductor_meta` (kernel_num_gb,
// kernel_flop: TORCHINDUCTOR_BENCHMARK_KERNEL=1 or config.profile_bandwidth) and the element
// counts fixed in its body (xnumel, r0_numel). docs/kernel-catalog.md, "Triton and
// torch.compile", says what they hold; `flopspy-report --inductor-cache DIR` gives them to the
// analysis (InductorFigures) for the kernels the catalog cannot model.
//
// Bounded: only *.py files up to a size cap are read, at most a number of them, and only the
// kernels asked for are kept. A file that cannot be read gives one "flopspy:" warning. A name
// defined by several files with different metadata is not known: it is listed with the reason,
// so that a stale or foreign module never gives a figure silently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flopspy/analyzers/external_figures.h"

namespace flopspy::tools {

struct InductorKernelMeta {
  std::optional<double> flops;  // kernel_flop when above 0 (inductor counts only mm/conv FLOPs)
  std::optional<double> bytes;  // kernel_num_gb x 1e9
  std::optional<int64_t> xnumel;
  std::optional<int64_t> rnumel;
  std::string file;  // the first file that defined it
  bool operator==(const InductorKernelMeta& o) const {
    return flops == o.flops && bytes == o.bytes && xnumel == o.xnumel && rnumel == o.rnumel;
  }
};

struct InductorCacheLimits {
  uint64_t max_file_bytes = 4u << 20;
  size_t max_files = 50000;
};

struct InductorCache {
  std::string dir;
  std::map<std::string, InductorKernelMeta, std::less<>> kernels;  // by kernel name
  // Names defined more than once with different metadata: why each is left unknown.
  std::map<std::string, std::string, std::less<>> conflicts;
  std::vector<std::string> warnings;  // one "flopspy: ..." line per file skipped
  size_t files_read = 0;
  size_t files_too_large = 0;
  bool truncated = false;  // max_files reached: later files were not read
};

// $TORCHINDUCTOR_CACHE_DIR, else /tmp/torchinductor_<user> (inductor's own default).
std::string DefaultInductorCacheDir();

// The kernels defined in module text `text` (one generated file), in order, each with its own
// metadata; a name may come twice (the scan treats that as it treats two files).
std::vector<std::pair<std::string, InductorKernelMeta>> ParseInductorModule(std::string_view text);

// Scans `dir` for the kernels named in `wanted` (every one found when `wanted` is empty).
InductorCache ScanInductorCache(const std::string& dir, const std::set<std::string>& wanted,
                                const InductorCacheLimits& limits = {});

// The cache's per-launch figures for the analysis: a kernel with bytes or FLOPs recorded (names
// in conflict are left out), its element counts as the shape key, the file in the reason.
analyzers::ExternalKernelFigures InductorFigures(const InductorCache& cache);

}  // namespace flopspy::tools
