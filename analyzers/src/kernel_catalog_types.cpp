// Names, sizes and C++ spellings of the catalog's vocabulary.
#include <algorithm>
#include <array>
#include <charconv>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

constexpr std::array<std::string_view, kKernelFamilyCount> kFamilyNames = {"unknown",
                                                                           "elementwise_vectorized",
                                                                           "elementwise_unrolled",
                                                                           "elementwise_legacy",
                                                                           "reduce",
                                                                           "softmax",
                                                                           "layer_norm",
                                                                           "index",
                                                                           "cat",
                                                                           "copy",
                                                                           "fill",
                                                                           "multi_tensor_apply",
                                                                           "triton",
                                                                           "demo",
                                                                           "attention"};

struct DataTypeInfo {
  std::string_view name;
  int size;
};
constexpr std::array<DataTypeInfo, static_cast<size_t>(DataType::kCount)> kDataTypes = {{
    {"unknown", 0},     {"bool", 1},        {"int8", 1},        {"uint8", 1},     {"int16", 2},
    {"int32", 4},       {"uint32", 4},      {"int64", 8},       {"uint64", 8},    {"float16", 2},
    {"bfloat16", 2},    {"float32", 4},     {"float64", 8},     {"complex32", 4}, {"complex64", 8},
    {"complex128", 16}, {"float8_e4m3", 1}, {"float8_e5m2", 1}, {"opaque1", 1},   {"opaque2", 2},
    {"opaque4", 4},     {"opaque8", 8},     {"opaque16", 16},
}};

struct Spelling {
  std::string_view cpp;
  DataType type;
};
constexpr std::array<Spelling, 37> kSpellings = {{
    {"bool", DataType::kBool},
    {"signed char", DataType::kInt8},
    {"char", DataType::kInt8},
    {"unsigned char", DataType::kUInt8},
    {"short", DataType::kInt16},
    {"unsigned short", DataType::kInt16},
    {"int", DataType::kInt32},
    {"unsigned int", DataType::kUInt32},
    {"long", DataType::kInt64},
    {"long int", DataType::kInt64},
    {"long long", DataType::kInt64},
    {"unsigned long", DataType::kUInt64},
    {"unsigned long long", DataType::kUInt64},
    {"float", DataType::kFloat32},
    {"double", DataType::kFloat64},
    {"c10::Half", DataType::kFloat16},
    {"at::Half", DataType::kFloat16},
    {"__half", DataType::kFloat16},
    {"half", DataType::kFloat16},
    {"c10::BFloat16", DataType::kBFloat16},
    {"at::BFloat16", DataType::kBFloat16},
    {"__nv_bfloat16", DataType::kBFloat16},
    {"__hip_bfloat16", DataType::kBFloat16},
    {"c10::complex<float>", DataType::kComplexFloat},
    {"c10::complex<double>", DataType::kComplexDouble},
    {"c10::complex<c10::Half>", DataType::kComplexHalf},
    {"thrust::complex<float>", DataType::kComplexFloat},
    {"thrust::complex<double>", DataType::kComplexDouble},
    {"c10::Float8_e4m3fn", DataType::kFloat8E4M3},
    {"c10::Float8_e4m3fnuz", DataType::kFloat8E4M3},
    {"c10::Float8_e5m2", DataType::kFloat8E5M2},
    {"c10::Float8_e5m2fnuz", DataType::kFloat8E5M2},
    {"int8_t", DataType::kInt8},
    {"uint8_t", DataType::kUInt8},
    {"int32_t", DataType::kInt32},
    {"int64_t", DataType::kInt64},
    {"uint64_t", DataType::kUInt64},
}};

std::string_view StripCv(std::string_view s) {
  s = TrimBlanks(s);
  constexpr std::string_view kConstSuffix = " const";
  constexpr std::string_view kConstPrefix = "const ";
  if (s.size() > kConstSuffix.size() && s.ends_with(kConstSuffix)) {
    s.remove_suffix(kConstSuffix.size());
  }
  if (s.starts_with(kConstPrefix)) s.remove_prefix(kConstPrefix.size());
  return TrimBlanks(s);
}

}  // namespace

std::string_view KernelFamilyName(KernelFamily family) {
  const auto i = static_cast<size_t>(family);
  return i < kFamilyNames.size() ? kFamilyNames[i] : "unknown";
}

std::optional<KernelFamily> KernelFamilyFromName(std::string_view name) {
  for (size_t i = 0; i < kFamilyNames.size(); ++i) {
    if (kFamilyNames[i] == name) return static_cast<KernelFamily>(i);
  }
  return std::nullopt;
}

std::string_view ElementwiseLoopName(ElementwiseLoop loop) {
  switch (loop) {
    case ElementwiseLoop::kNone:
      return "none";
    case ElementwiseLoop::kVectorized:
      return "vectorized";
    case ElementwiseLoop::kUnrolled:
      return "unrolled";
    case ElementwiseLoop::kLegacy:
      return "legacy";
  }
  return "none";
}

std::string_view DataTypeName(DataType type) {
  const auto i = static_cast<size_t>(type);
  return i < kDataTypes.size() ? kDataTypes[i].name : "unknown";
}

std::optional<DataType> DataTypeFromName(std::string_view name) {
  for (size_t i = 0; i < kDataTypes.size(); ++i) {
    if (kDataTypes[i].name == name) return static_cast<DataType>(i);
  }
  return std::nullopt;
}

int DataTypeSize(DataType type) {
  const auto i = static_cast<size_t>(type);
  return i < kDataTypes.size() ? kDataTypes[i].size : 0;
}

bool IsComplex(DataType type) {
  return type == DataType::kComplexHalf || type == DataType::kComplexFloat ||
         type == DataType::kComplexDouble;
}

bool IsFloatingPoint(DataType type) {
  switch (type) {
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kFloat8E4M3:
    case DataType::kFloat8E5M2:
      return true;
    default:
      return IsComplex(type);
  }
}

std::optional<DataType> DataTypeFromCpp(std::string_view spelling) {
  const std::string_view s = StripCv(spelling);
  for (const Spelling& sp : kSpellings) {
    if (sp.cpp == s) return sp.type;
  }
  // OpaqueType<N> in any namespace, N spelled "4" or "4u".
  if (const auto id = ParseTemplateId(s);
      id && LastComponent(id->name) == "OpaqueType" && id->args.size() == 1) {
    std::string_view digits = id->args[0];
    while (!digits.empty() && (digits.back() == 'u' || digits.back() == 'l'))
      digits.remove_suffix(1);
    int bytes = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bytes);
    if (ec == std::errc() && end == digits.data() + digits.size()) {
      switch (bytes) {
        case 1:
          return DataType::kOpaque1;
        case 2:
          return DataType::kOpaque2;
        case 4:
          return DataType::kOpaque4;
        case 8:
          return DataType::kOpaque8;
        case 16:
          return DataType::kOpaque16;
        default:
          break;
      }
    }
  }
  return std::nullopt;
}

std::string_view ConfidenceName(Confidence confidence) {
  switch (confidence) {
    case Confidence::kNone:
      return "none";
    case Confidence::kLow:
      return "low";
    case Confidence::kMedium:
      return "medium";
    case Confidence::kHigh:
      return "high";
  }
  return "none";
}

ParamLayout ParamLayout::FromFunctionDef(const trace::FunctionDef& def) {
  ParamLayout layout;
  layout.count = std::min<int>(def.layout_count, trace::kMaxParamLayout);
  for (int i = 0; i < layout.count; ++i) {
    layout.slots[i] = ParamSlot{def.param_offset[i], def.param_size[i]};
  }
  return layout;
}

}  // namespace flopspy::analyzers
