#include "flopspy/analyzers/blas_types.h"

#include <array>

namespace flopspy::analyzers {
namespace {

struct TypeInfo {
  std::string_view name;
  double bytes;
  bool complex;
};

// Indexed by cudaDataType value (0..33).
constexpr std::array<TypeInfo, 34> kTypes = {{
    {"R_32F", 4, false},       {"R_64F", 8, false},        {"R_16F", 2, false},
    {"R_8I", 1, false},        {"C_32F", 8, true},         {"C_64F", 16, true},
    {"C_16F", 4, true},        {"C_8I", 2, true},          {"R_8U", 1, false},
    {"C_8U", 2, true},         {"R_32I", 4, false},        {"C_32I", 8, true},
    {"R_32U", 4, false},       {"C_32U", 8, true},         {"R_16BF", 2, false},
    {"C_16BF", 4, true},       {"R_4I", 0.5, false},       {"C_4I", 1, true},
    {"R_4U", 0.5, false},      {"C_4U", 1, true},          {"R_16I", 2, false},
    {"C_16I", 4, true},        {"R_16U", 2, false},        {"C_16U", 4, true},
    {"R_64I", 8, false},       {"C_64I", 16, true},        {"R_64U", 8, false},
    {"C_64U", 16, true},       {"R_8F_E4M3", 1, false},    {"R_8F_E5M2", 1, false},
    {"R_8F_UE8M0", 1, false},  {"R_6F_E2M3", 0.75, false}, {"R_6F_E3M2", 0.75, false},
    {"R_4F_E2M1", 0.5, false},
}};

}  // namespace

double DataTypeBytes(uint8_t type) {
  return type < kTypes.size() ? kTypes[type].bytes : 0.0;
}

bool IsComplexType(uint8_t type) {
  return type < kTypes.size() && kTypes[type].complex;
}

bool IsFp8Type(uint8_t type) {
  return type == cuda_type::kR8FE4M3 || type == cuda_type::kR8FE5M2;
}

std::string_view DataTypeName(uint8_t type) {
  if (type == kNotApplicable) return "n/a";
  return type < kTypes.size() ? kTypes[type].name : "unknown";
}

std::string_view ComputeTypeName(uint8_t stored) {
  switch (stored) {
    case compute_type::k16F:
      return "16F";
    case compute_type::k16FPedantic:
      return "16F_PEDANTIC";
    case compute_type::k32F:
      return "32F";
    case compute_type::k32FPedantic:
      return "32F_PEDANTIC";
    case compute_type::k64F:
      return "64F";
    case compute_type::k64FPedantic:
      return "64F_PEDANTIC";
    case compute_type::k32I:
      return "32I";
    case compute_type::k32IPedantic:
      return "32I_PEDANTIC";
    case compute_type::k32FFast16F:
      return "32F_FAST_16F";
    case compute_type::k32FFast16BF:
      return "32F_FAST_16BF";
    case compute_type::k32FFastTF32:
      return "32F_FAST_TF32";
    case compute_type::k32FEmulated16BFx9:
      return "32F_EMULATED_16BFX9";
    case compute_type::k64FEmulatedFixedPoint:
      return "64F_EMULATED_FIXEDPOINT";
    case kNotApplicable:
      return "n/a";
    default:
      return "unknown";
  }
}

std::string_view EpilogueName(uint32_t epilogue) {
  switch (epilogue) {
    case lt_epilogue::kDefault:
      return "DEFAULT";
    case lt_epilogue::kRelu:
      return "RELU";
    case lt_epilogue::kReluAux:
      return "RELU_AUX";
    case lt_epilogue::kBias:
      return "BIAS";
    case lt_epilogue::kReluBias:
      return "RELU_BIAS";
    case lt_epilogue::kReluAuxBias:
      return "RELU_AUX_BIAS";
    case lt_epilogue::kDrelu:
      return "DRELU";
    case lt_epilogue::kDreluBgrad:
      return "DRELU_BGRAD";
    case lt_epilogue::kGelu:
      return "GELU";
    case lt_epilogue::kGeluAux:
      return "GELU_AUX";
    case lt_epilogue::kGeluBias:
      return "GELU_BIAS";
    case lt_epilogue::kGeluAuxBias:
      return "GELU_AUX_BIAS";
    case lt_epilogue::kDgelu:
      return "DGELU";
    case lt_epilogue::kDgeluBgrad:
      return "DGELU_BGRAD";
    case lt_epilogue::kBgradA:
      return "BGRADA";
    case lt_epilogue::kBgradB:
      return "BGRADB";
    default:
      return "unknown";
  }
}

}  // namespace flopspy::analyzers
