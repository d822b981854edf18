// Packed cuDNN tensors for tests (analyzers/dnn_formulas.h): dims in cuDNN's order (N, C,
// spatial... for images), strides of a packed NCHW tensor or, channels last, of NHWC.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "flopspy/analyzers/dnn_formulas.h"

namespace flopspy::testing {

inline analyzers::DnnTensor PackedDnnTensor(uint8_t type, std::initializer_list<int64_t> dims,
                                            bool channels_last = false) {
  analyzers::DnnTensor t;
  t.type = type;
  t.rank = static_cast<int>(dims.size());
  int i = 0;
  for (int64_t d : dims) t.dims[i++] = d;
  if (!channels_last || t.rank < 3) {
    int64_t stride = 1;
    for (int j = t.rank - 1; j >= 0; --j) {
      t.strides[j] = stride;
      stride *= t.dims[j];
    }
    return t;
  }
  int64_t stride = t.dims[1];
  t.strides[1] = 1;
  for (int j = t.rank - 1; j >= 2; --j) {
    t.strides[j] = stride;
    stride *= t.dims[j];
  }
  t.strides[0] = stride;
  return t;
}

}  // namespace flopspy::testing
