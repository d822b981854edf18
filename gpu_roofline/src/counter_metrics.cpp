#include "flopspy/gpu_roofline/counter_metrics.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace flopspy::gpuroof {
namespace {

struct GroupName {
  std::string_view name;
  uint32_t bit;
};
constexpr GroupName kGroupNames[] = {
    {"fp32", kCounterFp32},     {"fp64", kCounterFp64}, {"fp16", kCounterFp16},
    {"tensor", kCounterTensor}, {"dram", kCounterDram}, {"l2", kCounterL2},
    {"time", kCounterTime},
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// SASS thread-instruction counters "where all predicates were true" (Nsight Compute's roofline
// sections use the same ones).
std::string Sass(std::string_view op) {
  return "sm__sass_thread_inst_executed_op_" + std::string(op) + "_pred_on";
}

std::string Tensor(std::string_view path) {
  return "sm__ops_path_tensor_src_" + std::string(path);
}

// Floating-point tensor-path metrics per generation, one per source/destination type and
// disjoint by their descriptions (integer paths are not FLOPs). Names checked against CUPTI
// 13.0's metric lists for every chip of the family (tests/unit/counters/host_config_test.cpp).
struct TensorPath {
  std::string_view path;
  bool optional;  // the low-precision paths are spelled differently across Blackwell chips
};

std::vector<TensorPath> TensorPaths(ChipFamily family) {
  switch (family) {
    case ChipFamily::kVolta:
      return {{"fp16_dst_fp16", false}, {"fp16_dst_fp32", false}};
    case ChipFamily::kTuring:
      return {{"fp16_dst_fp16", false}, {"fp16_bf16_tf32_dst_fp32", false}};
    case ChipFamily::kAmpere:
      return {{"fp16_dst_fp16", false},
              {"fp16_dst_fp32", false},
              {"bf16_dst_fp32", false},
              {"tf32_dst_fp32", false},
              {"fp64", false}};
    case ChipFamily::kAda:
      return {{"fp16_dst_fp16", false}, {"fp16_dst_fp32", false}, {"bf16_dst_fp32", false},
              {"tf32_dst_fp32", false}, {"fp64", false},          {"fp8", false}};
    case ChipFamily::kHopper:
      return {{"fp16", false},
              {"bf16_dst_fp32", false},
              {"tf32_dst_fp32", false},
              {"fp64", false},
              {"fp8", false}};
    case ChipFamily::kBlackwell:
    case ChipFamily::kBlackwellRtx:
      // GB100/GB102 count FP4/FP6/FP8 sources together; GB110 and GB20x split FP8 from FP4/FP6.
      return {{"fp16_dst_fp16", false},
              {"fp16_dst_fp32", false},
              {"bf16_dst_fp32", false},
              {"tf32_dst_fp32", false},
              {"fp64", false},
              {"fp4_dst_fp32", false},
              {"fp4_fp6_fp8_dst_fp16", true},
              {"fp4_fp6_fp8_dst_fp32", true},
              {"fp4_fp6_dst_fp16", true},
              {"fp4_fp6_dst_fp32", true},
              {"fp8_dst_fp16", true},
              {"fp8_dst_fp32", true}};
    case ChipFamily::kUnknown:
      break;
  }
  return {};
}

}  // namespace

CounterGroupsParse ParseCounterGroups(std::string_view list) {
  CounterGroupsParse result;
  const std::string text = Lower(Trim(list));
  if (text.empty() || text == "all") return result;
  uint32_t groups = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view word = Trim(std::string_view(text).substr(start, comma - start));
    const auto it = std::find_if(std::begin(kGroupNames), std::end(kGroupNames),
                                 [&](const GroupName& g) { return g.name == word; });
    if (it == std::end(kGroupNames)) {
      result.error = "unknown metric group \"" + std::string(word) +
                     "\" (expected all or a list of fp32, fp64, fp16, tensor, dram, l2, time)";
      return result;
    }
    groups |= it->bit;
    start = comma + 1;
  }
  result.groups = groups;
  return result;
}

std::string CounterGroupsText(uint32_t groups) {
  std::string text;
  for (const GroupName& g : kGroupNames) {
    if ((groups & g.bit) == 0) continue;
    if (!text.empty()) text += ",";
    text += g.name;
  }
  return text;
}

ChipFamily ChipFamilyOf(std::string_view chip) {
  const std::string c = Lower(chip);
  const auto starts = [&](std::string_view p) { return c.rfind(p, 0) == 0; };
  if (starts("gv")) return ChipFamily::kVolta;
  if (starts("tu")) return ChipFamily::kTuring;
  if (starts("ga")) return ChipFamily::kAmpere;
  if (starts("ad")) return ChipFamily::kAda;
  if (starts("gh")) return ChipFamily::kHopper;
  if (starts("gb2")) return ChipFamily::kBlackwellRtx;
  if (starts("gb")) return ChipFamily::kBlackwell;
  return ChipFamily::kUnknown;
}

std::vector<MetricCandidate> CounterCandidates(ChipFamily family, uint32_t groups) {
  std::vector<MetricCandidate> c;
  const auto add = [&](std::vector<std::string> names, CounterQuantity q, double weight,
                       bool optional = false) {
    c.push_back({std::move(names), q, weight, optional});
  };
  // Nsight Compute's weights: an FMA is two FLOPs; a half2 instruction does two lanes.
  if (groups & kCounterFp32) {
    add({Sass("fadd")}, CounterQuantity::kFp32, 1);
    add({Sass("fmul")}, CounterQuantity::kFp32, 1);
    add({Sass("ffma")}, CounterQuantity::kFp32, 2);
  }
  if (groups & kCounterFp64) {
    add({Sass("dadd")}, CounterQuantity::kFp64, 1);
    add({Sass("dmul")}, CounterQuantity::kFp64, 1);
    add({Sass("dfma")}, CounterQuantity::kFp64, 2);
  }
  if (groups & kCounterFp16) {
    add({Sass("hadd")}, CounterQuantity::kFp16, 2);
    add({Sass("hmul")}, CounterQuantity::kFp16, 2);
    add({Sass("hfma")}, CounterQuantity::kFp16, 4);
  }
  if (groups & kCounterTensor) {
    for (const TensorPath& t : TensorPaths(family)) {
      add({Tensor(t.path)}, CounterQuantity::kTensor, 1, t.optional);
    }
  }
  if (groups & kCounterDram) {
    // GB20x spells them dram__bytes_op_read/write; Tegra chips have no dram__ bytes at all.
    add({"dram__bytes_read", "dram__bytes_op_read"}, CounterQuantity::kDramRead, 1);
    add({"dram__bytes_write", "dram__bytes_op_write"}, CounterQuantity::kDramWrite, 1);
  }
  if (groups & kCounterL2) add({"lts__t_bytes"}, CounterQuantity::kL2, 1);
  if (groups & kCounterTime) add({"gpu__time_duration"}, CounterQuantity::kDuration, 1);
  return c;
}

MetricSelection SelectMetrics(std::span<const MetricCandidate> candidates,
                              const std::function<bool(std::string_view)>& has) {
  MetricSelection s;
  for (const MetricCandidate& c : candidates) {
    const auto found = std::find_if(c.names.begin(), c.names.end(),
                                    [&](const std::string& name) { return has(name); });
    if (found == c.names.end()) {
      if (!c.names.empty() && !c.optional) s.missing.push_back(c.names.front());
      continue;
    }
    s.terms.push_back({*found + ".sum", c.quantity, c.weight});
  }
  return s;
}

std::vector<const char*> MetricNames(std::span<const MetricTerm> terms) {
  std::vector<const char*> names;
  names.reserve(terms.size());
  for (const MetricTerm& t : terms) names.push_back(t.name.c_str());
  return names;
}

uint32_t ValidBitOf(CounterQuantity quantity) {
  switch (quantity) {
    case CounterQuantity::kFp32:
      return trace::kMetricsFp32;
    case CounterQuantity::kFp64:
      return trace::kMetricsFp64;
    case CounterQuantity::kFp16:
      return trace::kMetricsFp16;
    case CounterQuantity::kTensor:
      return trace::kMetricsTensor;
    case CounterQuantity::kDramRead:
    case CounterQuantity::kDramWrite:
      return trace::kMetricsDram;
    case CounterQuantity::kL2:
      return trace::kMetricsL2;
    case CounterQuantity::kDuration:
      return trace::kMetricsDuration;
  }
  return 0;
}

CounterValues EvaluateCounters(std::span<const MetricTerm> terms, std::span<const double> values) {
  CounterValues v;
  const size_t n = std::min(terms.size(), values.size());
  for (size_t i = 0; i < n; ++i) {
    const double raw = std::isfinite(values[i]) && values[i] > 0 ? values[i] : 0.0;
    const double x = raw * terms[i].weight;
    switch (terms[i].quantity) {
      case CounterQuantity::kFp32:
        v.fp32 += x, v.valid |= trace::kMetricsFp32;
        break;
      case CounterQuantity::kFp64:
        v.fp64 += x, v.valid |= trace::kMetricsFp64;
        break;
      case CounterQuantity::kFp16:
        v.fp16 += x, v.valid |= trace::kMetricsFp16;
        break;
      case CounterQuantity::kTensor:
        v.tensor += x, v.valid |= trace::kMetricsTensor;
        break;
      case CounterQuantity::kDramRead:
        v.dram_read += x, v.valid |= trace::kMetricsDram;
        break;
      case CounterQuantity::kDramWrite:
        v.dram_write += x, v.valid |= trace::kMetricsDram;
        break;
      case CounterQuantity::kL2:
        v.l2 += x, v.valid |= trace::kMetricsL2;
        break;
      case CounterQuantity::kDuration:
        v.duration_ns += x, v.valid |= trace::kMetricsDuration;
        break;
    }
  }
  return v;
}

trace::KernelMetricsRecord ToMetricsRecord(const CounterValues& v, uint16_t sample,
                                           uint16_t passes) {
  trace::KernelMetricsRecord r{};
  r.h = trace::MakeHeader<trace::KernelMetricsRecord>();
  r.samples = sample;
  r.passes = passes;
  r.valid = v.valid;
  r.flops_fp32 = v.fp32;
  r.flops_fp64 = v.fp64;
  r.flops_fp16 = v.fp16;
  r.tensor_ops = v.tensor;
  r.dram_read_bytes = v.dram_read;
  r.dram_write_bytes = v.dram_write;
  r.l2_bytes = v.l2;
  r.gpu_duration_ns = v.duration_ns;
  return r;
}

CounterValues FromMetricsRecord(const trace::KernelMetricsRecord& r) {
  CounterValues v;
  v.valid = r.valid;
  v.fp32 = r.flops_fp32;
  v.fp64 = r.flops_fp64;
  v.fp16 = r.flops_fp16;
  v.tensor = r.tensor_ops;
  v.dram_read = r.dram_read_bytes;
  v.dram_write = r.dram_write_bytes;
  v.l2 = r.l2_bytes;
  v.duration_ns = r.gpu_duration_ns;
  return v;
}

}  // namespace flopspy::gpuroof
