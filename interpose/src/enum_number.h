// The number a program passed as an enum argument, read without loading it as the enum type (a
// caller's out-of-range value is not one of the enumerators): cuDNN modes, NCCL types and ops.
#pragma once

#include <cstring>

namespace flopspy::interpose {

template <class Enum>
int EnumNumber(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

}  // namespace flopspy::interpose
