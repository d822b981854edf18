// Reading kernel parameters out of the captured bytes.
#include <cstdint>
#include <cstring>
#include <string>

#include "flopspy/analyzers/demangle.h"
#include "kernel_catalog_internal.h"

namespace flopspy::analyzers::catalog_detail {

bool GlobMatch(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0;
  size_t star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<int> ScalarParamSize(std::string_view type) {
  type = TrimBlanks(type);
  if (type.empty()) return std::nullopt;
  if (type.back() == '*' || type.back() == '&') return 8;
  if (type.ends_with(" const")) type.remove_suffix(6);
  if (type.starts_with("const ")) type.remove_prefix(6);
  struct Entry {
    std::string_view name;
    int size;
  };
  static constexpr Entry kSizes[] = {
      {"bool", 1},
      {"char", 1},
      {"signed char", 1},
      {"unsigned char", 1},
      {"short", 2},
      {"unsigned short", 2},
      {"int", 4},
      {"unsigned int", 4},
      {"float", 4},
      {"long", 8},
      {"unsigned long", 8},
      {"long long", 8},
      {"unsigned long long", 8},
      {"double", 8},
      {"c10::Half", 2},
      {"c10::BFloat16", 2},
  };
  for (const Entry& e : kSizes) {
    if (e.name == type) return e.size;
  }
  return std::nullopt;
}

std::optional<int64_t> LoadSigned(const LaunchFacts& launch, size_t offset, int size) {
  if (size != 1 && size != 2 && size != 4 && size != 8) return std::nullopt;
  if (offset + size > launch.params.size()) return std::nullopt;
  const uint8_t* p = launch.params.data() + offset;
  switch (size) {
    case 1:
      return static_cast<int8_t>(p[0]);
    case 2: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

std::optional<uint64_t> LoadUnsigned(const LaunchFacts& launch, size_t offset, int size) {
  if (size != 1 && size != 2 && size != 4 && size != 8) return std::nullopt;
  if (offset + size > launch.params.size()) return std::nullopt;
  uint64_t v = 0;
  std::memcpy(&v, launch.params.data() + offset, size);  // little-endian (schema.h asserts it)
  return v;
}

std::optional<int> ParamOffset(const KernelClass& kc, const LaunchFacts& launch, int index) {
  if (index < 0) return std::nullopt;
  if (index < launch.layout.count) return launch.layout.slots[index].offset;
  if (index == 0) return 0;  // whatever its type, the first parameter starts the buffer
  if (index >= static_cast<int>(kc.param_types.size())) return std::nullopt;
  // Parameters are laid out like the members of a struct, each at its natural alignment.
  int offset = 0;
  for (int i = 0; i <= index; ++i) {
    const std::optional<int> size = ScalarParamSize(kc.param_types[i]);
    if (!size) return std::nullopt;
    offset = (offset + *size - 1) / *size * *size;
    if (i == index) return offset;
    offset += *size;
  }
  return std::nullopt;
}

namespace {

// Offset and size of a scalar parameter, with the layout checked against the signature.
std::optional<ParamSlot> ScalarSlot(const KernelClass& kc, const LaunchFacts& launch, int index,
                                    std::string* why) {
  if (index < 0 || index >= static_cast<int>(kc.param_types.size())) {
    *why = "the name's signature has no parameter " + std::to_string(index);
    return std::nullopt;
  }
  const std::optional<int> size = ScalarParamSize(kc.param_types[index]);
  if (!size) {
    *why = "parameter " + std::to_string(index) + " is not a scalar";
    return std::nullopt;
  }
  if (index < launch.layout.count && launch.layout.slots[index].size != *size) {
    *why = "parameter layout size " + std::to_string(launch.layout.slots[index].size) +
           " disagrees with the signature's " + kc.param_types[index];
    return std::nullopt;
  }
  const std::optional<int> offset = ParamOffset(kc, launch, index);
  if (!offset) {
    *why = "offset of parameter " + std::to_string(index) + " unknown";
    return std::nullopt;
  }
  if (static_cast<size_t>(*offset) + *size > launch.params.size()) {
    *why = "parameter " + std::to_string(index) + " was not captured (" +
           std::to_string(launch.params.size()) + " bytes available)";
    return std::nullopt;
  }
  return ParamSlot{static_cast<uint16_t>(*offset), static_cast<uint16_t>(*size)};
}

}  // namespace

std::optional<int64_t> ReadIntParam(const KernelClass& kc, const LaunchFacts& launch, int index,
                                    std::string* why) {
  const std::optional<ParamSlot> slot = ScalarSlot(kc, launch, index, why);
  if (!slot) return std::nullopt;
  if (TrimBlanks(kc.param_types[index]).starts_with("unsigned")) {
    const std::optional<uint64_t> v = LoadUnsigned(launch, slot->offset, slot->size);
    if (!v || *v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(*v);
  }
  return LoadSigned(launch, slot->offset, slot->size);
}

std::optional<uint64_t> ReadPointerParam(const KernelClass& kc, const LaunchFacts& launch,
                                         int index, std::string* why) {
  const std::optional<ParamSlot> slot = ScalarSlot(kc, launch, index, why);
  if (!slot) return std::nullopt;
  if (slot->size != 8) {
    *why = "parameter " + std::to_string(index) + " is not a pointer";
    return std::nullopt;
  }
  return LoadUnsigned(launch, slot->offset, 8);
}

}  // namespace flopspy::analyzers::catalog_detail
