#include "report/call_sites_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>

namespace flopspy::tools {

std::vector<KernelRowKey> KernelRowKeys(const analyzers::TraceAnalysis& run) {
  std::vector<KernelRowKey> keys;
  keys.reserve(run.kernels.size());
  for (const analyzers::KernelGroup& g : run.kernels) keys.emplace_back(g.signature, g.shape_key);
  return keys;
}

void RemapCallSiteKernels(analyzers::CallSiteReport& sites, const std::vector<KernelRowKey>& before,
                          const analyzers::TraceAnalysis& run) {
  std::map<KernelRowKey, uint32_t> now;
  for (size_t i = 0; i < run.kernels.size(); ++i) {
    now.emplace(KernelRowKey{run.kernels[i].signature, run.kernels[i].shape_key},
                static_cast<uint32_t>(i));
  }
  for (analyzers::CallSite& site : sites.sites) {
    std::erase_if(site.kernels, [&](analyzers::CallSiteKernel& k) {
      if (k.group >= before.size()) return true;
      const auto it = now.find(before[k.group]);
      if (it == now.end()) return true;
      k.group = it->second;
      return false;
    });
  }
}

CallSiteCoverage CoverageOf(const analyzers::CallSiteReport& r) {
  CallSiteCoverage c;
  if (r.kernel_ns <= 0) return c;
  c.sampled = std::clamp(r.sampled_ns / r.kernel_ns, 0.0, 1.0);
  c.estimated = std::clamp(r.estimated_ns / r.kernel_ns, 0.0, 1.0 - c.sampled);
  c.none = std::max(0.0, 1.0 - c.sampled - c.estimated);
  return c;
}

std::string FramesFromError(const std::string& regex) {
  if (regex.empty()) return "";
  try {
    const std::regex re(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return "--frames-from " + regex + ": not a valid regular expression (" + e.what() + ")";
  }
  return "";
}

std::optional<uint32_t> StackSampleEvery(const TraceReport& t) {
  const auto config = t.metadata.find("config");
  if (config == t.metadata.end() || !config->is_object()) return std::nullopt;
  const auto value = config->find("stack_sample");
  if (value == config->end() || !value->is_number_integer()) return std::nullopt;
  const auto n = value->get<int64_t>();
  if (n <= 0 || n > INT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(n);
}

std::string CallSiteText(const analyzers::CallSite& site) {
  if (site.kind == analyzers::CallSiteKind::kNoUserFrame) return site.label + " (no user frame)";
  return site.label;
}

std::string RegimeMixText(const std::array<double, 4>& regime_ns, double gpu_ns) {
  if (gpu_ns <= 0) return "-";
  using analyzers::Regime;
  static constexpr std::array<std::pair<Regime, const char*>, 4> kWords = {
      {{Regime::kComputeBound, "compute"},
       {Regime::kMemoryBound, "memory"},
       {Regime::kOverheadBound, "overhead"},
       {Regime::kUnknown, "?"}}};
  std::vector<std::pair<double, const char*>> parts;
  for (const auto& [regime, word] : kWords) {
    const double share = regime_ns[static_cast<size_t>(regime)] / gpu_ns;
    if (share >= 0.005) parts.emplace_back(share, word);
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (const auto& [share, word] : parts) {
    text += fmt::format("{}{} {:.0f}%", text.empty() ? "" : " / ", word, 100 * share);
  }
  return text.empty() ? "-" : text;
}

}  // namespace flopspy::tools
