// The first step of ShortenKernelName (display_text.h): a demangled kernel name without what
// never tells two kernels apart.
#pragma once

#include <string>
#include <string_view>

namespace flopspy::analyzers {

// "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,
// std::array<char*, 3ul> >(int, ...)" becomes
// "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>>": no return type, parameter list,
// namespaces or "(anonymous namespace)"; plumbing arguments (std::array, OffsetCalculator,
// load/store policies) dropped; a lambda named by the function that holds it
// ("GeluCUDAKernelImpl"); all-number templates (GemmShape<128, 64, 32>, cute::tuple of
// cute::C) as "128x64x32"; wrappers such as cutlass::device_kernel<K> as K. Names that are not
// C++ (Triton, cuBLAS) come back unchanged. `terse` also drops the scalar types beside a
// functor or tile in nested templates, for names still too long.
std::string CompactKernelName(std::string_view name, bool terse = false);

}  // namespace flopspy::analyzers
