// The catalog's data: which functor text means which operation, and what it costs per element.
// docs/kernel-catalog.md explains the counting convention and how to add a row. Rows are tried in
// order and the first match wins, so a specific pattern must come before a general one that would
// also match it ("nansum_functor" before "sum_functor", "AbsMaxOps" before "MaxOps").
#include <array>

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

using C = Confidence;
using F = KernelFamily;
using O = OutputRule;
using T = DataType;

constexpr FunctorRule Arith(std::string_view pattern, std::string_view name, float flops,
                            float special, C confidence, std::string_view note) {
  return {pattern,        name,        F::kUnknown, flops, special,
          O::kFirstInput, T::kUnknown, confidence,  note};
}
constexpr FunctorRule Logic(std::string_view pattern, std::string_view name, O output,
                            std::string_view note) {
  return {pattern, name, F::kUnknown, 0, 0, output, T::kUnknown, C::kHigh, note};
}
constexpr FunctorRule Copy(std::string_view pattern, T fixed_output, std::string_view note) {
  return {pattern,
          "copy",
          F::kCopy,
          0,
          0,
          fixed_output == T::kUnknown ? O::kFirstInput : O::kFixed,
          fixed_output,
          C::kHigh,
          note};
}

constexpr std::string_view kTranscendental =
    "one special-function call: 1 FLOP, 1 special op (hardware runs a multi-instruction sequence)";

constexpr std::array kFunctorRules = {
    // --- Fill and copies (0 FLOPs). The cast copies' lambdas take the input type.
    FunctorRule{"*FillFunctor<*", "fill", F::kFill, 0, 0, O::kFirstInput, T::kUnknown, C::kHigh,
                "writes a scalar: output only"},
    Copy("*::bfloat16_copy_kernel_cuda(*", T::kBFloat16, "float32 -> bfloat16 conversion"),
    Copy("*::float16_copy_kernel_cuda(*", T::kFloat16, "float32 -> float16 conversion"),
    Copy("*::bfloat16tofloat32_copy_kernel_cuda(*", T::kFloat32, "bfloat16 -> float32 conversion"),
    Copy("*::float16tofloat32_copy_kernel_cuda(*", T::kFloat32, "float16 -> float32 conversion"),
    Copy("*::direct_copy_kernel_cuda(*", T::kUnknown, "copy; with LoadWithCast also a conversion"),
    Copy("*::copy_device_to_device(*", T::kUnknown, "copy (PyTorch <= 1.8 spelling)"),

    // --- Binary and scalar arithmetic. add counts 1 although ATen computes a + alpha * b (an
    // FFMA, 2 FLOPs in counters): alpha is 1 in nearly every call and the model counts the math.
    Arith("*CUDAFunctorOnSelf_add<*", "add", 1, 0, C::kHigh, "tensor + CPU scalar"),
    Arith("*CUDAFunctorOnOther_add<*", "add", 1, 0, C::kHigh, "CPU scalar + tensor"),
    Arith("*CUDAFunctor_add<*", "add", 1, 0, C::kHigh, "a + alpha*b, alpha assumed 1 (also sub)"),
    Arith("*::AddFunctor<*", "add", 1, 0, C::kHigh, "a + alpha*b (PyTorch <= 1.8)"),
    Arith("*::add_kernel_cuda(*", "add", 1, 0, C::kHigh, "a + alpha*b (PyTorch 1.4-1.5 lambda)"),
    Arith("*::sub_kernel_cuda(*", "sub", 1, 0, C::kHigh, "a - alpha*b"),
    Arith("*MulScalarFunctor<*", "mul", 1, 0, C::kHigh, "tensor * scalar (PyTorch <= 1.8)"),
    Arith("*MulFunctor<*", "mul", 1, 0, C::kHigh, "a * b"),
    Arith("*::mul_kernel_cuda(*", "mul", 1, 0, C::kHigh, "a * b"),
    Arith("*::div_floor_kernel_cuda(*", "div_floor", 1, 0, C::kMedium,
          "a / b then floor; the rounding fix-ups are not counted"),
    Arith("*::div_trunc_kernel_cuda(*", "div_trunc", 1, 0, C::kMedium, "a / b then trunc"),
    Arith("*DivFunctor<*", "div", 1, 0, C::kHigh, "a / b (hardware: reciprocal + FFMA steps)"),
    Arith("*::div_true_kernel_cuda(*", "div", 1, 0, C::kHigh, "a / b"),
    Arith("*::reciprocal_kernel_cuda(*", "reciprocal", 1, 0, C::kHigh, "1 / x: one division"),
    Arith("*::remainder_kernel_cuda(*", "remainder", 3, 0, C::kLow, "a - b * floor(a / b)"),
    Arith("*::fmod_kernel_cuda(*", "fmod", 3, 0, C::kLow, "a - b * trunc(a / b)"),
    Arith("*addcmul*", "addcmul", 3, 0, C::kHigh, "self + value * t1 * t2: 2 mul + 1 add"),
    Arith("*addcdiv*", "addcdiv", 3, 0, C::kHigh, "self + value * t1 / t2: mul, div, add"),
    // ATen's CUDA lerp kernels are lerp_scalar_kernel and lerp_tensor_kernel (Lerp.cu).
    Arith("*lerp_*kernel*", "lerp", 3, 0, C::kMedium, "self + w * (end - self): sub, mul, add"),
    Arith("*::masked_scale_kernel<*", "dropout_scale", 2, 0, C::kHigh,
          "dropout (mask given): x * mask * scale"),
    Arith("*::frac_kernel_cuda(*", "frac", 1, 0, C::kHigh, "x - trunc(x): one sub"),
    Arith("*::round_decimals_kernel_cuda(*", "round_decimals", 2, 0, C::kMedium,
          "x * 10^d, round, then / 10^d"),
    Arith("*::mse_kernel_cuda(*", "mse", 2, 0, C::kHigh, "(a - b)^2: sub, mul"),
    Arith("*mse_backward_cuda_kernel*", "mse_backward", 3, 0, C::kHigh,
          "alpha * (a - b) * grad: sub, mul, mul"),
    Arith("*::smooth_l1_kernel_cuda(*", "smooth_l1", 4, 0, C::kMedium,
          "|z| < beta ? 0.5 z^2 / beta : |z| - 0.5 beta, z = a - b: the quadratic branch"),
    Arith("*::huber_kernel_cuda(*", "huber", 4, 0, C::kMedium,
          "|z| < delta ? 0.5 z^2 : delta (|z| - 0.5 delta), z = a - b: the quadratic branch"),

    // --- Sign, rounding, selection and comparison: no floating-point arithmetic.
    Arith("*AbsFunctor<*", "abs", 0, 0, C::kHigh, "sign-bit operation"),
    Arith("*::abs_kernel_cuda(*", "abs", 0, 0, C::kHigh, "sign-bit operation"),
    Arith("*::neg_kernel_cuda(*", "neg", 0, 0, C::kHigh, "sign-bit operation"),
    Arith("*::sign_kernel_cuda(*", "sign", 0, 0, C::kHigh, "comparisons"),
    Arith("*::floor_kernel_cuda(*", "floor", 0, 0, C::kHigh, "rounding instruction, not a FLOP"),
    Arith("*::ceil_kernel_cuda(*", "ceil", 0, 0, C::kHigh, "rounding instruction, not a FLOP"),
    Arith("*::trunc_kernel_cuda(*", "trunc", 0, 0, C::kHigh, "rounding instruction, not a FLOP"),
    Arith("*::round_kernel_cuda(*", "round", 0, 0, C::kHigh, "rounding instruction, not a FLOP"),
    Arith("*::threshold_kernel_impl<*", "threshold", 0, 0, C::kHigh,
          "x <= t ? v : other (relu backward, relu in older versions): comparison + select"),
    Arith("*::launch_clamp_scalar(*", "clamp", 0, 0, C::kHigh, "min/max: comparisons"),
    Arith("*clamp*", "clamp", 0, 0, C::kHigh, "min/max: comparisons"),
    Arith("*::hardtanh_backward*", "hardtanh_backward", 0, 0, C::kHigh, "comparisons + select"),
    Arith("*::maximum_kernel_cuda(*", "maximum", 0, 0, C::kHigh, "comparison"),
    Arith("*::minimum_kernel_cuda(*", "minimum", 0, 0, C::kHigh, "comparison"),
    Arith("*::fmax_kernel_cuda(*", "maximum", 0, 0, C::kHigh, "comparison"),
    Arith("*::fmin_kernel_cuda(*", "minimum", 0, 0, C::kHigh, "comparison"),
    Arith("*::masked_fill_kernel(*", "masked_fill", 0, 0, C::kHigh, "select by a bool mask"),
    Arith("*::nan_to_num_kernel_cuda(*", "nan_to_num", 0, 0, C::kHigh,
          "comparisons + select (isnan itself is ne(x, x), a comparison)"),
    Arith("*::sgn_kernel_cuda(*", "sgn", 0, 0, C::kHigh, "real operands: comparisons"),
    Arith("*::copysign_kernel_cuda(*", "copysign", 0, 0, C::kHigh, "sign-bit operation"),
    Arith("*::heaviside_kernel_cuda(*", "heaviside", 0, 0, C::kHigh, "comparisons + select"),
    Arith("*::nextafter_kernel_cuda(*", "nextafter", 0, 0, C::kHigh, "bit manipulation"),
    Arith("*::hardshrink_kernel(*", "hardshrink", 0, 0, C::kHigh, "comparisons + select"),
    Arith("*::shrink_backward_kernel(*", "shrink_backward", 0, 0, C::kHigh, "comparisons + select"),
    Logic("*::signbit_kernel_cuda(*", "signbit", O::kBool, "sign-bit test"),
    Logic("*::isposinf_kernel_impl(*", "isposinf", O::kBool, "comparison"),
    Logic("*::isneginf_kernel_impl(*", "isneginf", O::kBool, "comparison"),
    Logic("*::where_kernel_impl(*", "where", O::kLastInput, "select: cond ? a : b"),
    Logic("*CompareEqFunctor<*", "eq", O::kBool, "comparison"),
    Logic("*Compare*Functor<*", "compare", O::kBool, "comparison"),
    Logic("*compare_scalar_kernel<*", "compare", O::kBool, "comparison with a scalar"),
    Logic("*::eq_kernel_cuda(*", "eq", O::kBool, "comparison"),
    Logic("*::ne_kernel_cuda(*", "ne", O::kBool, "comparison"),
    Logic("*::logical_not_kernel_cuda(*", "logical_not", O::kBool, "logic on truth values"),
    Logic("*::logical_and_kernel_cuda(*", "logical_and", O::kBool, "logic on truth values"),
    Logic("*::logical_or_kernel_cuda(*", "logical_or", O::kBool, "logic on truth values"),
    Logic("*::logical_xor_kernel_cuda(*", "logical_xor", O::kBool, "logic on truth values"),
    Logic("*::bitwise_not_kernel_cuda(*", "bitwise_not", O::kFirstInput, "integer logic"),
    Logic("*Bitwise*Functor<*", "bitwise", O::kFirstInput, "integer logic"),
    Logic("*::bitwise_*_kernel_cuda(*", "bitwise", O::kFirstInput, "integer logic"),
    Logic("*shift_kernel_cuda(*", "shift", O::kFirstInput, "integer shift"),
    Logic("*::gcd_kernel_cuda(*", "gcd", O::kFirstInput, "integer arithmetic"),
    Logic("*::lcm_kernel_cuda(*", "lcm", O::kFirstInput, "integer arithmetic"),

    // --- pow. The lambda number picks the branch of pow_tensor_scalar_kernel_impl; the order
    // follows aten/src/ATen/native/cuda/PowKernel.cu. Since PyTorch 1.9 (TensorIteratorBase&):
    // x^2, x^3, x^-2, general; before (TensorIterator&): sqrt, x^2, x^3, rsqrt, 1/x, x^-2, general.
    // Exponents 0.5, -0.5 and -1 dispatch to the sqrt, rsqrt and reciprocal kernels.
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIteratorBase&, *)::{lambda(*)#1}", "square",
          1, 0, C::kMedium, "x * x (pow with exponent 2)"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIteratorBase&, *)::{lambda(*)#2}", "cube", 2,
          0, C::kMedium, "x * x * x (pow with exponent 3)"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIteratorBase&, *)::{lambda(*)#3}",
          "inverse_square", 2, 0, C::kMedium, "1 / (x * x) (pow with exponent -2)"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIteratorBase&, *)::{lambda(*)#4}", "pow", 1,
          1, C::kMedium, "pow(x, e) for a general scalar exponent: one special function"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIterator&, *)::{lambda(*)#1}", "sqrt", 1, 1,
          C::kLow, "PyTorch <= 1.8 branch order: exponent 0.5"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIterator&, *)::{lambda(*)#2}", "square", 1,
          0, C::kLow, "PyTorch <= 1.8 branch order: exponent 2"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIterator&, *)::{lambda(*)#3}", "cube", 2, 0,
          C::kLow, "PyTorch <= 1.8 branch order: exponent 3"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIterator&, *)::{lambda(*)#4}", "rsqrt", 1, 1,
          C::kLow, "PyTorch <= 1.8 branch order: exponent -0.5"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIterator&, *)::{lambda(*)#5}", "reciprocal",
          1, 0, C::kLow, "PyTorch <= 1.8 branch order: exponent -1"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIterator&, *)::{lambda(*)#6}",
          "inverse_square", 2, 0, C::kLow, "PyTorch <= 1.8 branch order: exponent -2"),
    Arith("*pow_tensor_scalar_kernel_impl<*>(at::TensorIterator&, *)::{lambda(*)#7}", "pow", 1, 1,
          C::kLow, "PyTorch <= 1.8 branch order: general exponent"),
    Arith("*::pow_tensor_tensor_kernel(*", "pow", 1, 1, C::kHigh, kTranscendental),
    Arith("*pow_scalar_tensor_impl*", "pow", 1, 1, C::kHigh, kTranscendental),

    // --- One special function each.
    Arith("*::sqrt_kernel_cuda(*", "sqrt", 1, 1, C::kHigh, kTranscendental),
    Arith("*::rsqrt_kernel_cuda(*", "rsqrt", 1, 1, C::kHigh, kTranscendental),
    Arith("*::exp_kernel_cuda(*", "exp", 1, 1, C::kHigh, kTranscendental),
    Arith("*::exp2_kernel_cuda(*", "exp2", 1, 1, C::kHigh, kTranscendental),
    Arith("*::expm1_kernel_cuda(*", "expm1", 1, 1, C::kHigh, kTranscendental),
    Arith("*::log_kernel_cuda(*", "log", 1, 1, C::kHigh, kTranscendental),
    Arith("*::log2_kernel_cuda(*", "log2", 1, 1, C::kHigh, kTranscendental),
    Arith("*::log10_kernel_cuda(*", "log10", 1, 1, C::kHigh, kTranscendental),
    Arith("*::log1p_kernel_cuda(*", "log1p", 1, 1, C::kHigh, kTranscendental),
    Arith("*::sin_kernel_cuda(*", "sin", 1, 1, C::kHigh, kTranscendental),
    Arith("*::cos_kernel_cuda(*", "cos", 1, 1, C::kHigh, kTranscendental),
    Arith("*::tan_kernel_cuda(*", "tan", 1, 1, C::kHigh, kTranscendental),
    Arith("*::asin_kernel_cuda(*", "asin", 1, 1, C::kHigh, kTranscendental),
    Arith("*::acos_kernel_cuda(*", "acos", 1, 1, C::kHigh, kTranscendental),
    Arith("*::atan_kernel_cuda(*", "atan", 1, 1, C::kHigh, kTranscendental),
    Arith("*::atan2_kernel_cuda(*", "atan2", 1, 1, C::kHigh, kTranscendental),
    Arith("*::asinh_kernel_cuda(*", "asinh", 1, 1, C::kHigh, kTranscendental),
    Arith("*::acosh_kernel_cuda(*", "acosh", 1, 1, C::kHigh, kTranscendental),
    Arith("*::atanh_kernel_cuda(*", "atanh", 1, 1, C::kHigh, kTranscendental),
    Arith("*::hypot_kernel_cuda(*", "hypot", 4, 1, C::kHigh,
          "sqrt(a * a + b * b): 3 arithmetic + sqrt"),
    Arith("*::sinh_kernel_cuda(*", "sinh", 1, 1, C::kHigh, kTranscendental),
    Arith("*::cosh_kernel_cuda(*", "cosh", 1, 1, C::kHigh, kTranscendental),
    Arith("*::tanh_backward_kernel_cuda(*", "tanh_backward", 3, 0, C::kHigh,
          "dy * (1 - y * y): mul, sub, mul"),
    Arith("*::tanh_kernel_cuda(*", "tanh", 1, 1, C::kHigh, kTranscendental),
    Arith("*::erf_kernel_cuda(*", "erf", 1, 1, C::kHigh, kTranscendental),
    Arith("*::erfc_kernel_cuda(*", "erfc", 1, 1, C::kHigh, kTranscendental),
    Arith("*::erfinv_kernel_cuda(*", "erfinv", 1, 1, C::kHigh, kTranscendental),
    Arith("*::erfcx_kernel_cuda(*", "erfcx", 1, 1, C::kHigh, kTranscendental),
    Arith("*::lgamma_kernel_cuda(*", "lgamma", 1, 1, C::kHigh, kTranscendental),
    Arith("*::digamma_kernel_cuda(*", "digamma", 1, 1, C::kHigh, kTranscendental),
    Arith("*::trigamma_kernel_cuda(*", "trigamma", 1, 1, C::kHigh, kTranscendental),
    Arith("*::polygamma_kernel_cuda(*", "polygamma", 1, 1, C::kHigh, kTranscendental),
    Arith("*::i0_kernel_cuda(*", "i0", 1, 1, C::kHigh, kTranscendental),
    Arith("*::i0e_kernel_cuda(*", "i0e", 1, 1, C::kHigh, kTranscendental),
    Arith("*::i1_kernel_cuda(*", "i1", 1, 1, C::kHigh, kTranscendental),
    Arith("*::i1e_kernel_cuda(*", "i1e", 1, 1, C::kHigh, kTranscendental),
    Arith("*::sinc_kernel_cuda(*", "sinc", 3, 1, C::kMedium, "sin(pi x) / (pi x): mul, sin, div"),
    Arith("*::logit_backward_kernel_cuda(*", "logit_backward", 3, 0, C::kMedium,
          "dy / (x * (1 - x)): sub, mul, div (eps bounds not counted)"),
    Arith("*::logit_kernel_cuda(*", "logit", 3, 1, C::kMedium,
          "log(x / (1 - x)): sub, div, log (eps clamp not counted)"),
    Arith("*::logaddexp2_kernel_cuda(*", "logaddexp2", 5, 2, C::kMedium,
          "max + log1p(exp2(-|a - b|)) / ln 2: sub, exp2, log1p, mul, add"),
    Arith("*::logaddexp_kernel_cuda(*", "logaddexp", 4, 2, C::kMedium,
          "max + log1p(exp(-|a - b|)): sub, exp, log1p, add"),
    Arith("*::xlog1py_kernel_cuda(*", "xlog1py", 2, 1, C::kHigh, "x * log1p(y): log1p, mul"),
    Arith("*::xlogy_kernel_cuda(*", "xlogy", 2, 1, C::kHigh, "x * log(y): log, mul"),

    // --- Activations, counted from the ATen formulas (opmath in float for Half and BFloat16).
    Arith("*::sigmoid_backward_kernel_cuda(*", "sigmoid_backward", 3, 0, C::kHigh,
          "dy * (1 - y) * y: sub, mul, mul"),
    Arith("*::sigmoid_kernel_cuda(*", "sigmoid", 3, 1, C::kHigh,
          "1 / (1 + exp(-x)): exp, add, div"),
    Arith("*GeluBackwardCUDAKernelImpl(*GeluType)::{lambda()#1}*", "gelu_tanh_backward", 18, 1,
          C::kMedium, "derivative of the tanh form, 18 operations in ATen's formula"),
    Arith("*GeluBackwardCUDAKernelImpl(*GeluType)::{lambda()#2}*", "gelu_erf_backward", 11, 2,
          C::kMedium, "dy * (cdf + x * pdf): erf and exp, 9 arithmetic operations"),
    Arith("*GeluCUDAKernelImpl(*GeluType)::{lambda()#1}*", "gelu_tanh", 9, 1, C::kHigh,
          "0.5 x (1 + tanh(k (x + 0.044715 x^3))): 8 arithmetic + tanh"),
    Arith("*GeluCUDAKernelImpl(*GeluType)::{lambda()#2}*", "gelu_erf", 5, 1, C::kHigh,
          "x * 0.5 * (1 + erf(x / sqrt 2)): 4 arithmetic + erf"),
    Arith("*::silu_backward_kernel(*", "silu_backward", 8, 1, C::kHigh,
          "dy * s * (1 + x * (1 - s)), s = sigmoid(x)"),
    Arith("*::silu_kernel(*", "silu", 3, 1, C::kHigh, "x / (1 + exp(-x)): exp, add, div"),
    Arith("*::mish_backward_kernel(*", "mish_backward", 12, 4, C::kMedium,
          "dy * (t + x * s * (1 - t * t)), s = sigmoid(x), t = tanh(softplus(x))"),
    Arith("*::mish_kernel(*", "mish", 4, 3, C::kHigh, "x * tanh(log1p(exp(x))): 3 special + mul"),
    Arith("*::glu_kernel(*", "glu", 4, 1, C::kHigh, "a * sigmoid(b): exp, add, div, mul"),
    Arith("*launch_log_sigmoid_forward_kernel(*", "log_sigmoid", 3, 2, C::kHigh,
          "min(0, x) - log1p(exp(-|x|)): exp, log1p, sub"),
    Arith("*::log_sigmoid_backward_kernel(*", "log_sigmoid_backward", 6, 1, C::kHigh,
          "dy * (m - s * z / (1 + z)), z = exp(-|x|): exp, add, div, mul, sub, mul"),
    Arith("*::prelu_kernel(*", "prelu", 1, 0, C::kHigh, "x > 0 ? x : w * x"),
    Arith("*::softshrink_kernel(*", "softshrink", 1, 0, C::kHigh, "x -+ lambda outside [-l, l]"),
    Arith("*::hardsigmoid_backward_kernel(*", "hardsigmoid_backward", 1, 0, C::kHigh,
          "g / 6 inside (-3, 3)"),
    Arith("*::softplus_backward_kernel(*", "softplus_backward", 5, 1, C::kMedium,
          "z = exp(beta x): g * z / (z + 1) below the threshold"),
    Arith("*::softplus_kernel(*", "softplus", 4, 2, C::kMedium,
          "log1p(exp(beta x)) / beta below the threshold"),
    Arith("*::leaky_relu_backward_kernel(*", "leaky_relu_backward", 1, 0, C::kHigh,
          "x > 0 ? g : g * slope"),
    Arith("*::leaky_relu_kernel(*", "leaky_relu", 1, 0, C::kHigh, "x > 0 ? x : x * slope"),
    Arith("*::hardswish_backward_kernel(*", "hardswish_backward", 3, 0, C::kMedium,
          "g * (x / 3 + 0.5) inside (-3, 3)"),
    Arith("*::hardswish_kernel(*", "hardswish", 3, 0, C::kHigh, "x * min(max(x + 3, 0), 6) / 6"),
    Arith("*::hardsigmoid_kernel(*", "hardsigmoid", 2, 0, C::kHigh, "min(max(x + 3, 0), 6) / 6"),
    Arith("*::elu_backward_kernel(*", "elu_backward", 3, 0, C::kMedium,
          "negative branch g * negiptcoef * (y + negcoef); the positive branch is 1 mul"),
    Arith("*::elu_kernel(*", "elu", 5, 1, C::kLow,
          "negative branch (exp(x*s) - 1) * alpha * scale; the positive branch is 1 mul"),

    // --- flopspy-demo's operations (demo/src/gpu_kernels.cuh), matched exactly.
    Arith("*flopspy_demo::MulOp", "mul", 1, 0, C::kHigh, "a * b"),
    Arith("*flopspy_demo::SinOp", "sin", 1, 1, C::kHigh, kTranscendental),
    Arith("*flopspy_demo::SqrtOp", "sqrt", 1, 1, C::kHigh, kTranscendental),
    Arith("*flopspy_demo::Log10Op", "log10", 1, 1, C::kHigh, kTranscendental),
    Arith("*flopspy_demo::PowOp", "pow", 1, 1, C::kHigh,
          "powf(x, e) with the exponent held in the functor: one special function"),
    Arith("*flopspy_demo::SigmoidOp", "sigmoid", 3, 1, C::kHigh,
          "1 / (1 + expf(-x)): exp, add, div"),
};

constexpr std::array kReduceRules = {
    ReduceRule{"*nansum_functor*", "nansum", 1, 0, 0, C::kHigh, "one add per input"},
    ReduceRule{"*NanSumOps<*", "nansum", 1, 0, 0, C::kHigh, "one add per input"},
    ReduceRule{"*sum_functor*", "sum", 1, 0, 0, C::kHigh, "one add per input"},
    ReduceRule{"*prod_functor*", "prod", 1, 0, 0, C::kHigh, "one mul per input"},
    ReduceRule{"*MeanOps<*", "mean", 1, 0, 1, C::kHigh, "one add per input, one mul per output"},
    ReduceRule{"*ArgMaxOps<*", "argmax", 0, 0, 0, C::kHigh, "comparisons only"},
    ReduceRule{"*ArgMinOps<*", "argmin", 0, 0, 0, C::kHigh, "comparisons only"},
    ReduceRule{"*AbsMaxOps<*", "amax_abs", 0, 0, 0, C::kHigh, "comparisons only"},
    ReduceRule{"*AbsMinOps<*", "amin_abs", 0, 0, 0, C::kHigh, "comparisons only"},
    ReduceRule{"*MinMaxOps<*", "aminmax", 0, 0, 0, C::kHigh, "comparisons only"},
    ReduceRule{"*MaxOps<*", "max", 0, 0, 0, C::kHigh, "comparisons only (values and indices)"},
    ReduceRule{"*MinOps<*", "min", 0, 0, 0, C::kHigh, "comparisons only (values and indices)"},
    ReduceRule{"*MaxNanFunctor<*", "max", 0, 0, 0, C::kHigh, "comparisons only (amax, max())"},
    ReduceRule{"*MinNanFunctor<*", "min", 0, 0, 0, C::kHigh, "comparisons only (amin, min())"},
    ReduceRule{"*NormTwoOps<*", "norm2", 2, 0, 0, C::kHigh, "x * x + acc: mul, add"},
    ReduceRule{"*NormOneOps<*", "norm1", 1, 0, 0, C::kHigh, "|x| + acc: one add"},
    ReduceRule{"*NormZeroOps<*", "norm0", 1, 0, 0, C::kHigh, "count of non-zeros: one add"},
    ReduceRule{"*NormOps<*", "norm_p", 2, 1, 0, C::kMedium, "pow(|x|, p) + acc"},
    ReduceRule{"*WelfordOps<*", "var", 6, 0, 0, C::kMedium,
               "Welford update: sub, div, add, sub, mul, add"},
    ReduceRule{"*::and_kernel_cuda(*", "all", 0, 0, 0, C::kHigh, "logic on truth values"},
    ReduceRule{"*::or_kernel_cuda(*", "any", 0, 0, 0, C::kHigh, "logic on truth values"},
};

}  // namespace

std::span<const FunctorRule> ElementwiseFunctorRules() {
  return kFunctorRules;
}
std::span<const ReduceRule> ReduceRules() {
  return kReduceRules;
}

}  // namespace flopspy::analyzers
