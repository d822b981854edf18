// Matching a runtime device to the table, and turning an entry into roofs.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "flopspy/gpu_roofline/computed_peaks.h"
#include "flopspy/gpu_roofline/device_table.h"

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
using analyzers::DeviceRoofs;
using analyzers::MemoryLevel;
using analyzers::RoofSource;

bool Has(const std::vector<std::string>& tokens, const std::string& t) {
  return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
}

// The memory size in decimal GB: the first "<n>gb" token of the name ("A100-SXM4-40GB"; a MIG
// name's later "3g.20gb" is the slice, not the board), else the reported total. 0 = unknown.
double MemoryGb(const std::vector<std::string>& tokens, const DeviceProperties& props) {
  for (const std::string& t : tokens) {
    if (t.size() > 2 && t.compare(t.size() - 2, 2, "gb") == 0 &&
        std::all_of(t.begin(), t.end() - 2, [](unsigned char c) { return std::isdigit(c); })) {
      return std::strtod(t.substr(0, t.size() - 2).c_str(), nullptr);
    }
  }
  return static_cast<double>(props.total_memory_bytes) / 1e9;
}

bool IsCudaCorePath(ComputePath p) {
  return p == ComputePath::kFp64 || p == ComputePath::kFp32 || p == ComputePath::kFp16 ||
         p == ComputePath::kBf16;
}

std::string FormatRatio(int part, int whole) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d of %d", part, whole);
  return buf;
}

}  // namespace

std::vector<std::string> NameTokens(std::string_view name) {
  std::vector<std::string> tokens;
  std::string cur;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      cur.push_back(static_cast<char>(std::tolower(c)));
    } else if (!cur.empty()) {
      tokens.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) tokens.push_back(std::move(cur));
  return tokens;
}

const DeviceSpec* FindKnownDevice(const DeviceProperties& props) {
  const std::vector<std::string> tokens = NameTokens(props.name);
  const double memory_gb = MemoryGb(tokens, props);
  const DeviceSpec* best = nullptr;
  int best_score = -1;
  for (const DeviceSpec& spec : KnownDevices()) {
    const bool required = std::all_of(spec.require_tokens.begin(), spec.require_tokens.end(),
                                      [&](const std::string& t) { return Has(tokens, t); });
    const bool forbidden = std::any_of(spec.forbid_tokens.begin(), spec.forbid_tokens.end(),
                                       [&](const std::string& t) { return Has(tokens, t); });
    if (!required || forbidden) continue;
    // A name that matches but a compute capability that does not is not this part.
    if (props.cc_major != 0 &&
        (props.cc_major != spec.cc_major || props.cc_minor != spec.cc_minor)) {
      continue;
    }
    if (memory_gb > 0) {
      if (spec.min_memory_gb > 0 && memory_gb < spec.min_memory_gb) continue;
      if (spec.max_memory_gb > 0 && memory_gb >= spec.max_memory_gb) continue;
    }
    const int score = props.sm_count > 0 && props.sm_count == spec.sm_count ? 1 : 0;
    if (score > best_score) {
      best = &spec;
      best_score = score;
    }
  }
  return best;
}

DeviceRoofs RoofsFromSpec(const DeviceSpec& spec) {
  DeviceRoofs roofs;
  roofs.name = spec.name;
  roofs.table_key = spec.key;
  roofs.cc_major = spec.cc_major;
  roofs.cc_minor = spec.cc_minor;
  roofs.sm_count = spec.sm_count;
  roofs.boost_clock_mhz = spec.boost_clock_mhz;
  roofs.l2_bytes = spec.l2_bytes;
  roofs.memory_bytes = spec.memory_bytes;

  const ArchRates* rates = FindArchRates(spec.cc_major, spec.cc_minor, spec.consumer);
  for (int i = 1; i < analyzers::kComputePathCount; ++i) {
    const auto path = static_cast<ComputePath>(i);
    if (spec.peak[i] > 0) {
      roofs.flops[i] = {spec.peak[i], RoofSource::kDatasheet, 0};
      continue;
    }
    // Datasheets rarely print CUDA-core fp64/fp16/bf16; those follow from the formula. Tensor
    // gaps stay empty for the fallback chain: vendors' tensor figures often assume a clock
    // below the boost clock, so the formula would overstate them.
    if (rates != nullptr && IsCudaCorePath(path)) {
      const double peak =
          PeakFromRate(spec.sm_count, spec.boost_clock_mhz, rates->fma_per_clk_per_sm[i]);
      if (peak > 0) roofs.flops[i] = {peak, RoofSource::kComputed, 0};
    }
  }
  if (spec.dram_bytes_per_s > 0) {
    roofs.Bandwidth(MemoryLevel::kDram) = {spec.dram_bytes_per_s, RoofSource::kDatasheet, 0};
  }
  if (spec.l2_bytes_per_clk > 0 && spec.boost_clock_mhz > 0) {
    roofs.Bandwidth(MemoryLevel::kL2) = {spec.l2_bytes_per_clk * spec.boost_clock_mhz * 1e6,
                                         RoofSource::kComputed, 0};
  }
  return roofs;
}

DeviceRoofs RoofsForDevice(const DeviceProperties& props) {
  const DeviceSpec* spec = FindKnownDevice(props);
  if (spec == nullptr) return ComputedRoofs(props);

  DeviceRoofs roofs = RoofsFromSpec(*spec);
  if (props.l2_bytes > 0) roofs.l2_bytes = props.l2_bytes;
  if (props.total_memory_bytes > 0) roofs.memory_bytes = props.total_memory_bytes;

  // A MIG instance (or a cut-down board sold under the same name) has fewer SMs than the entry:
  // its compute roofs are the entry's scaled by the SMs present.
  if (props.sm_count > 0 && props.sm_count < spec->sm_count) {
    const double share = static_cast<double>(props.sm_count) / spec->sm_count;
    for (auto& roof : roofs.flops) {
      if (roof.nominal > 0) roof = {roof.nominal * share, RoofSource::kComputed, 0};
    }
    roofs.notes.push_back("compute roofs scaled to the " +
                          FormatRatio(props.sm_count, spec->sm_count) +
                          " SMs present (MIG instance?); bandwidth roofs are the whole GPU's");
    roofs.sm_count = props.sm_count;
  }
  return roofs;
}

}  // namespace flopspy::gpuroof
