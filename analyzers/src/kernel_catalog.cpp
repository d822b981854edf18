// Classification: what a kernel is, from its demangled name alone. The name carries the launch
// template (vectorized, unrolled, legacy loop, reduce_kernel, ...), the functor and, through
// template arguments and lambda parameter lists, the element types. The FLOP and byte models live
// in kernel_catalog_estimate.cpp; the functor tables in kernel_catalog_tables.cpp.
#include "flopspy/analyzers/kernel_catalog.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/inductor_kernel_name.h"
#include "kernel_catalog_attention.h"
#include "kernel_catalog_internal.h"

namespace flopspy::analyzers {
namespace {

using catalog_detail::GlobMatch;
using catalog_detail::ScalarParamSize;

DataType TypeOf(std::string_view spelling) {
  return DataTypeFromCpp(spelling).value_or(DataType::kUnknown);
}

// The number in "std::array<char*, 3ul>" or "at::detail::Array<char*, 3>"; 0 if not an array.
int ArrayOperandCount(std::string_view text) {
  const std::optional<TemplateId> id = ParseTemplateId(text);
  if (!id || id->args.size() != 2) return 0;
  const std::string_view name = LastComponent(id->name);
  if (name != "array" && name != "Array") return 0;
  std::string_view digits = id->args[1];
  while (!digits.empty() && (digits.back() == 'u' || digits.back() == 'l')) digits.remove_suffix(1);
  int k = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
  return ec == std::errc() && end == digits.data() + digits.size() ? k : 0;
}

bool IsNumber(std::string_view s) {
  s = TrimBlanks(s);
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == 'u' || c == 'l';
  });
}

Confidence MinConfidence(Confidence a, Confidence b) {
  return a < b ? a : b;
}

void AppendReason(KernelClass& kc, std::string_view text) {
  if (text.empty()) return;
  if (!kc.reason.empty()) kc.reason += "; ";
  kc.reason += text;
}

// CUDA-core path the arithmetic runs on. ATen computes Half and BFloat16 in float (opmath_type),
// so they land on the FP32 path; integer and bool kernels do no floating-point work.
ComputePath PathFor(const std::vector<DataType>& types) {
  bool fp32 = false;
  for (DataType t : types) {
    if (t == DataType::kFloat64 || t == DataType::kComplexDouble) return ComputePath::kFp64;
    if (IsFloatingPoint(t)) fp32 = true;
  }
  return fp32 ? ComputePath::kFp32 : ComputePath::kUnknown;
}

std::vector<DataType> AllTypes(const KernelClass& kc) {
  std::vector<DataType> all = kc.input_types;
  all.push_back(kc.output_type);
  if (kc.acc_type != DataType::kUnknown) all.push_back(kc.acc_type);
  return all;
}

// --- Elementwise --------------------------------------------------------------------------------

struct FunctorTypes {
  std::vector<DataType> inputs;
  DataType output = DataType::kUnknown;
  bool decoded = false;  // the structure told us the inputs (possibly none)
};

// Element types from ATen's wrapper functors, else from the innermost lambda's parameters.
FunctorTypes DecodeFunctorTypes(std::string_view f) {
  FunctorTypes out;
  if (const std::optional<TemplateId> id = ParseTemplateId(f);
      id && TrimBlanks(id->rest).empty() && !id->args.empty()) {
    const std::string_view name = LastComponent(id->name);
    const auto& a = id->args;
    if (name == "BinaryFunctor" && a.size() == 4) {
      out.inputs = {TypeOf(a[0]), TypeOf(a[1])};
      out.output = TypeOf(a[2]);
      out.decoded = true;
      return out;
    }
    if ((name == "AUnaryFunctor" || name == "BUnaryFunctor") && a.size() == 4) {
      // The other operand is a CPU scalar held in the functor: AUnary fixes a, BUnary fixes b.
      out.inputs = {TypeOf(name == "AUnaryFunctor" ? a[1] : a[0])};
      out.output = TypeOf(a[2]);
      out.decoded = true;
      return out;
    }
    if ((name == "AUnaryFunctor" || name == "BUnaryFunctor") && a.size() == 1) {
      // PyTorch <= 1.8: BUnaryFunctor<AddFunctor<float> >.
      if (const auto op = ParseTemplateId(a[0]); op && !op->args.empty()) {
        out.inputs = {TypeOf(op->args[0])};
        out.output = out.inputs[0];
        out.decoded = true;
      }
      return out;
    }
    if (name == "FillFunctor") {
      out.output = TypeOf(a[0]);
      out.decoded = true;
      return out;
    }
    if (name == "CUDAFunctorOnSelf_add" || name == "CUDAFunctorOnOther_add" ||
        name == "AbsFunctor" || name == "MulScalarFunctor") {
      out.inputs = {TypeOf(a[0])};
      out.output = out.inputs[0];
      out.decoded = true;
      return out;
    }
    if (name.ends_with("Functor") || name == "CUDAFunctor_add") {
      // Binary functors of one type: CUDAFunctor_add<T>, MulFunctor<T>, CompareFunctor<T>, ...
      out.inputs = {TypeOf(a[0]), TypeOf(a[0])};
      out.output = out.inputs[0];
      out.decoded = true;
      return out;
    }
  }
  if (const auto params = LastLambdaParams(f)) {
    for (std::string_view p : *params) out.inputs.push_back(TypeOf(p));
    out.output = out.inputs.empty() ? DataType::kUnknown : out.inputs[0];
    out.decoded = true;
  }
  return out;
}

const FunctorRule* FindFunctorRule(std::string_view functor_text) {
  for (const FunctorRule& rule : ElementwiseFunctorRules()) {
    if (GlobMatch(rule.pattern, functor_text)) return &rule;
  }
  return nullptr;
}

struct LoopFacts {
  ElementwiseLoop loop = ElementwiseLoop::kNone;
  int array_operands = 0;  // K from std::array<char*, K>; 0 when the name has none
  bool casts = false;      // LoadWithCast / gpu_kernel_impl: memory dtypes are runtime values
  bool strided = false;    // offset calculators: strided or broadcast operands
};

void ClassifyElementwise(KernelClass& kc, std::string_view functor_text, const LoopFacts& loop) {
  kc.loop = loop.loop;
  switch (loop.loop) {
    case ElementwiseLoop::kVectorized:
      kc.family = KernelFamily::kElementwiseVectorized;
      break;
    case ElementwiseLoop::kUnrolled:
      kc.family = KernelFamily::kElementwiseUnrolled;
      break;
    default:
      kc.family = KernelFamily::kElementwiseLegacy;
      break;
  }
  const FunctorTypes types = DecodeFunctorTypes(functor_text);
  const FunctorRule* rule = FindFunctorRule(functor_text);
  if (rule != nullptr && rule->family != KernelFamily::kUnknown) kc.family = rule->family;
  kc.functor = rule != nullptr ? std::string(rule->name) : std::string();

  kc.input_types = types.inputs;
  kc.output_type = types.output;
  if (rule != nullptr) {
    switch (rule->output) {
      case OutputRule::kBool:
        kc.output_type = DataType::kBool;
        break;
      case OutputRule::kFixed:
        kc.output_type = rule->fixed_output;
        break;
      case OutputRule::kLastInput:
        if (!kc.input_types.empty()) kc.output_type = kc.input_types.back();
        break;
      case OutputRule::kFirstInput:
        break;
    }
  }
  kc.operands = loop.array_operands;
  if (kc.operands == 0 && types.decoded) kc.operands = static_cast<int>(types.inputs.size()) + 1;

  const bool types_complete = types.decoded && kc.output_type != DataType::kUnknown &&
                              std::none_of(kc.input_types.begin(), kc.input_types.end(),
                                           [](DataType t) { return t == DataType::kUnknown; }) &&
                              kc.operands == static_cast<int>(kc.input_types.size()) + 1;
  kc.bytes_known = types_complete;
  kc.path = PathFor(AllTypes(kc));
  kc.model = KernelModel::kElementwise;

  // Structural confidence: how sure the N x (sum of element sizes) byte count is.
  Confidence structural = Confidence::kHigh;
  if (loop.casts) {
    structural = Confidence::kLow;
    AppendReason(kc,
                 "dynamic casting: memory dtypes are runtime values, bytes assume the "
                 "compute types");
  } else if (loop.strided || loop.loop == ElementwiseLoop::kLegacy) {
    structural = Confidence::kMedium;
    AppendReason(kc, "strided or broadcast operands: some reads may hit in cache");
  }
  if (!types_complete) AppendReason(kc, "operand types not fully decoded from the name");

  if (rule == nullptr) {
    kc.op = FunctorOpName(functor_text);
    kc.flops_known = false;
    kc.confidence = kc.bytes_known ? structural : Confidence::kNone;
    AppendReason(kc, "functor not in the catalog: FLOPs unknown");
    return;
  }
  AppendReason(kc, rule->note);
  const bool complex = std::any_of(kc.input_types.begin(), kc.input_types.end(), IsComplex) ||
                       IsComplex(kc.output_type);
  const bool floating = kc.path != ComputePath::kUnknown;
  kc.flops_per_element = rule->flops;
  kc.special_per_element = rule->special;
  kc.flops_known = true;
  if (!floating && types_complete) {
    kc.flops_per_element = 0;  // integer and bool arithmetic is not floating-point work
    kc.special_per_element = 0;
    if (rule->flops > 0) AppendReason(kc, "integer operands: 0 FLOPs");
  } else if (complex && rule->flops > 0) {
    // LAWN 41: a complex add is 2 real FLOPs, a complex multiply 6. Others are not modelled.
    if (kc.functor == "add" || kc.functor == "sub") {
      kc.flops_per_element = 2;
    } else if (kc.functor == "mul") {
      kc.flops_per_element = 6;
    } else {
      kc.flops_known = false;
      AppendReason(kc, "complex operands: FLOPs not modelled for this functor");
    }
  }
  kc.confidence = kc.bytes_known ? MinConfidence(structural, rule->confidence) : Confidence::kLow;
}

// --- Reduce -------------------------------------------------------------------------------------

struct Layout {
  int size = 0;
  int align = 1;
};

// Natural layout of a struct whose members are scalars of the given sizes.
Layout StructOf(std::initializer_list<int> member_sizes) {
  Layout l;
  for (int s : member_sizes) {
    if (s <= 0) return {};
    l.size = (l.size + s - 1) / s * s + s;
    l.align = std::max(l.align, s);
  }
  l.size = (l.size + l.align - 1) / l.align * l.align;
  return l;
}

int AlignUp(int value, int align) {
  return (value + align - 1) / align * align;
}

// The byte offset of ReduceOp::config, from the layout of `ops_t ops; arg_t ident;` that precedes
// it (aten/src/ATen/native/cuda/Reduce.cuh). Also sizeof(arg_t), which ReduceConfig stores as
// element_size_bytes: EstimateKernel checks it against the captured bytes.
void DecodeReduceLayout(KernelClass& kc, std::string_view ops_text) {
  const std::optional<TemplateId> ops = ParseTemplateId(ops_text);
  if (!ops) return;
  const std::string_view name = LastComponent(ops->name);
  const auto& a = ops->args;
  Layout ops_layout{1, 1};  // an empty struct
  Layout arg;
  auto size_of = [](std::string_view t) { return DataTypeSize(TypeOf(t)); };
  if (name == "func_wrapper_t" && a.size() == 2) {
    // One member, the combine functor (empty: a captureless lambda or a stateless struct such
    // as MaxNanFunctor<acc_t>); arg_t is the functor's first parameter type.
    if (const auto params = LastLambdaParams(ops_text); params && !params->empty()) {
      kc.acc_type = TypeOf((*params)[0]);
    } else if (const auto functor = ParseTemplateId(a[1]); functor && functor->args.size() == 1) {
      kc.acc_type = TypeOf(functor->args[0]);
    }
    const int s = DataTypeSize(kc.acc_type);
    if (s > 0) arg = {s, s};
  } else if (name == "MeanOps" && (a.size() == 2 || a.size() == 4)) {
    kc.acc_type = TypeOf(a.size() == 2 ? a[0] : a[1]);
    const int factor = size_of(a.size() == 2 ? a[1] : a[2]);
    ops_layout = {factor, factor};
    arg = {DataTypeSize(kc.acc_type), DataTypeSize(kc.acc_type)};
  } else if (name == "NanSumOps" && a.size() == 2) {
    kc.acc_type = TypeOf(a[0]);  // NanSumOps<acc_t, data_t>
    arg = {DataTypeSize(kc.acc_type), DataTypeSize(kc.acc_type)};
  } else if ((name == "AbsMaxOps" || name == "AbsMinOps") && !a.empty()) {
    // <scalar_t, acc_t = scalar_t, out_t = acc_t> (PyTorch <= 1.9: <acc_t>).
    kc.acc_type = TypeOf(a.size() >= 2 ? a[1] : a[0]);
    arg = {DataTypeSize(kc.acc_type), DataTypeSize(kc.acc_type)};
  } else if ((name == "MaxOps" || name == "MinOps" || name == "ArgMaxOps" || name == "ArgMinOps") &&
             !a.empty()) {
    // MinMaxReductionOps: arg_t = pair<scalar_t, int64_t> (values with their indices).
    kc.acc_type = TypeOf(a[0]);
    arg = StructOf({DataTypeSize(kc.acc_type), 8});
  } else if (name == "MinMaxOps" && a.size() >= 2) {
    kc.acc_type = TypeOf(a[1]);  // <scalar_t, acc_scalar_t, index_t>: pair<acc, acc>
    arg = StructOf({DataTypeSize(kc.acc_type), DataTypeSize(kc.acc_type)});
  } else if ((name == "NormTwoOps" || name == "NormOneOps" || name == "NormZeroOps" ||
              name == "NormOps") &&
             (a.size() == 2 || a.size() == 3)) {
    kc.acc_type = TypeOf(a[1]);  // <scalar_t, acc_t, out_t = acc_t>
    const int s = DataTypeSize(kc.acc_type);
    arg = {s, s};
    if (name == "NormOps") ops_layout = {s, s};  // acc_t norm_
  } else if (name == "WelfordOps" && (a.size() == 4 || a.size() == 5)) {
    kc.acc_type = TypeOf(a[1]);
    const int acc = DataTypeSize(kc.acc_type);
    const int index = size_of(a[2]);
    if (a.size() == 4) {
      ops_layout = StructOf({acc, 1});         // acc correction; bool take_sqrt
      arg = StructOf({acc, acc, index, acc});  // mean, m2, n, nf
    } else {
      ops_layout = StructOf({1, 1});  // PyTorch <= 1.9: bool unbiased, take_sqrt
      arg = StructOf({acc, acc, index, size_of(a[3])});
    }
  }
  if (arg.size <= 0) return;
  const int ident = AlignUp(ops_layout.size, arg.align);
  kc.reduce_config_offset = AlignUp(ident + arg.size, 4);
  kc.reduce_arg_bytes = arg.size;
}

void ClassifyReduce(KernelClass& kc, std::string_view reduce_op) {
  kc.family = KernelFamily::kReduce;
  kc.model = KernelModel::kReduce;
  const std::optional<TemplateId> id = ParseTemplateId(reduce_op);
  if (!id || LastComponent(id->name) != "ReduceOp" || id->args.size() < 3) {
    kc.model = KernelModel::kNone;
    AppendReason(kc, "ReduceOp argument not understood");
    return;
  }
  const auto& a = id->args;
  const DataType in = TypeOf(a[0]);
  DataType out = in;
  if (a.size() >= 4 && !IsNumber(a[3])) out = TypeOf(a[3]);
  kc.input_types = {in};
  kc.output_type = out;
  kc.operands = 2;
  const ReduceRule* rule = nullptr;
  for (const ReduceRule& r : ReduceRules()) {
    if (GlobMatch(r.pattern, a[1])) {
      rule = &r;
      break;
    }
  }
  DecodeReduceLayout(kc, a[1]);
  kc.path = PathFor(AllTypes(kc));
  kc.bytes_known = in != DataType::kUnknown && out != DataType::kUnknown;
  if (kc.reduce_config_offset < 0) {
    kc.model = KernelModel::kNone;
    AppendReason(kc, "ReduceOp layout not known for these ops: figures unknown");
  }
  if (rule == nullptr) {
    AppendReason(kc, "reduction functor not in the catalog: FLOPs unknown");
    kc.confidence = kc.model == KernelModel::kNone ? Confidence::kNone : Confidence::kMedium;
    return;
  }
  kc.functor = std::string(rule->name);
  kc.flops_known = true;
  kc.flops_per_element = rule->flops;
  kc.special_per_element = rule->special;
  kc.flops_per_output = rule->flops_per_output;
  if (kc.path == ComputePath::kUnknown) {
    kc.flops_per_element = 0;
    kc.special_per_element = 0;
    kc.flops_per_output = 0;
  }
  AppendReason(kc, rule->note);
  AppendReason(kc, "sizes read from ReduceConfig in the by-value ReduceOp parameter");
  kc.confidence = kc.model == KernelModel::kNone
                      ? Confidence::kNone
                      : MinConfidence(rule->confidence, Confidence::kHigh);
}

// --- Softmax, layer norm, indexing ------------------------------------------------------------

void ClassifySoftmax(KernelClass& kc, const FunctionNameParts& parts) {
  kc.family = KernelFamily::kSoftmax;
  const std::string_view base = parts.base;
  const auto& t = parts.template_args;
  kc.backward = base.find("Backward") != std::string_view::npos ||
                base.find("backward") != std::string_view::npos;
  DataType in = DataType::kUnknown, acc = DataType::kUnknown, out = DataType::kUnknown;
  if (base.starts_with("softmax_warp_")) {
    // <input_t, output_t, acc_t, log2_elements, is_log_softmax, ...>
    kc.model = KernelModel::kSoftmaxWarp;
    if (t.size() >= 5) {
      in = TypeOf(t[0]);
      out = TypeOf(t[1]);
      acc = TypeOf(t[2]);
      kc.log_softmax = t[4] == "true";
    }
  } else {
    // cunn_SoftMax*<ILP, scalar_t, accscalar_t, outscalar_t, Epilogue> (ILP absent in the
    // Reg variants) and cunn_SpatialSoftMax*<scalar_t, accscalar_t, outscalar_t, Epilogue>.
    kc.model = base.starts_with("cunn_SpatialSoftMax") ? KernelModel::kSoftmaxSpatial
                                                       : KernelModel::kSoftmaxBlock;
    const size_t first = !t.empty() && IsNumber(t[0]) ? 1 : 0;
    if (t.size() >= first + 4) {
      in = TypeOf(t[first]);
      acc = TypeOf(t[first + 1]);
      out = TypeOf(t[first + 2]);
      kc.log_softmax = t[first + 3].find("LogSoftMax") != std::string_view::npos;
    }
  }
  kc.acc_type = acc;
  if (kc.backward) {
    // gradInput (scalar_t / output_t) from output and gradOutput (outscalar_t / input_t).
    const DataType grad_in = base.starts_with("softmax_warp_") ? out : in;
    const DataType saved = base.starts_with("softmax_warp_") ? in : out;
    kc.input_types = {saved, saved};
    kc.output_type = grad_in;
    kc.operands = 3;
  } else {
    kc.input_types = {in};
    kc.output_type = out;
    kc.operands = 2;
  }
  kc.functor =
      std::string(kc.log_softmax ? "log_softmax" : "softmax") + (kc.backward ? "_backward" : "");
  kc.path = PathFor(AllTypes(kc));
  kc.bytes_known = in != DataType::kUnknown && out != DataType::kUnknown;
  kc.flops_known = kc.bytes_known;
  // Forward: exp(x - max) / sum -> sub, exp, add (the sum), div; the max pass only compares.
  // log_softmax: x - max - log(sum) -> sub, exp, add, sub. Backward softmax:
  // y * (g - sum(g * y)) -> mul, add, sub, mul. Backward log_softmax: g - exp(y) * sum(g) -> add,
  // exp, mul, sub.
  kc.flops_per_element = 4;
  kc.special_per_element = (!kc.backward || kc.log_softmax) ? 1 : 0;
  kc.confidence = kc.bytes_known ? Confidence::kMedium : Confidence::kNone;
  AppendReason(kc,
               "4 FLOPs per element by the catalog's softmax convention; bytes are one read "
               "of each input and one write (rows re-read from cache are not counted)");
}

void ClassifyLayerNorm(KernelClass& kc, const FunctionNameParts& parts) {
  kc.family = KernelFamily::kLayerNorm;
  const std::string_view base = parts.base;
  const auto& t = parts.template_args;
  const DataType x = t.empty() ? DataType::kUnknown : TypeOf(t[0]);
  kc.acc_type = t.size() >= 2 ? TypeOf(t[1]) : DataType::kUnknown;
  kc.rms_norm = t.size() >= 3 && t[2] == "true";
  const char* what = kc.rms_norm ? "rms_norm" : "layer_norm";
  if (base == "vectorized_layer_norm_kernel") {
    kc.model = KernelModel::kLayerNormFused;
    kc.functor = what;
    kc.input_types = {x};
    kc.output_type = x;
    AppendReason(kc,
                 "per element: mean 1, variance 3, normalise 2, affine 1 + 1 (RMS norm: 2 + "
                 "1 + 1); one rsqrt per row");
  } else if (base == "RowwiseMomentsCUDAKernel") {
    kc.model = KernelModel::kLayerNormMoments;
    kc.functor = std::string(what) + "_moments";
    kc.input_types = {x};
    kc.output_type = kc.acc_type;
    AppendReason(kc, "per element: mean 1 + variance 3 (RMS: 2); one rsqrt per row");
  } else if (base == "LayerNormForwardCUDAKernel") {
    kc.model = KernelModel::kLayerNormApply;
    kc.functor = std::string(what) + "_apply";
    kc.input_types = {x};
    kc.output_type = x;
    AppendReason(kc, "per element: (x - mean) * rstd, then gamma and beta");
  } else if (base.starts_with("layer_norm_grad_input_kernel")) {
    kc.model = KernelModel::kLayerNormGradInput;
    kc.backward = true;
    kc.functor = std::string(what) + "_backward_input";
    kc.input_types = {x, x};
    kc.output_type = x;
    AppendReason(kc, "FLOPs counted from ATen's compute_gI formula (13 per element, RMS 9): low");
  } else {
    kc.backward = true;
    kc.functor = std::string(what) + "_backward_gamma_beta";
    kc.input_types = {x, x};
    kc.output_type = x;
    AppendReason(kc, "gamma/beta gradient kernels: figures not modelled");
    kc.path = PathFor(AllTypes(kc));
    return;
  }
  kc.operands = static_cast<int>(kc.input_types.size()) + 1;
  kc.path = PathFor(AllTypes(kc));
  kc.bytes_known = x != DataType::kUnknown && kc.acc_type != DataType::kUnknown;
  kc.flops_known = kc.bytes_known;
  kc.confidence = !kc.bytes_known ? Confidence::kNone
                  : kc.backward   ? Confidence::kLow
                                  : Confidence::kMedium;
}

int OpaqueOrTypeBytes(std::string_view text) {
  const size_t at = text.find("OpaqueType<");
  if (at == std::string_view::npos) return 0;
  const std::optional<DataType> t = DataTypeFromCpp(text.substr(at, text.find('>', at) - at + 1));
  return t ? DataTypeSize(*t) : 0;
}

void ClassifyIndexElementwise(KernelClass& kc, std::string_view f) {
  kc.family = KernelFamily::kIndex;
  kc.model = KernelModel::kIndexElementwise;
  if (f.find("index_put_kernel_impl<") != std::string_view::npos) {
    kc.functor = "index_put";
  } else if (f.find("index_copy_kernel_impl<") != std::string_view::npos) {
    kc.functor = "index_copy";
  } else if (f.find("index_fill_kernel_impl<") != std::string_view::npos) {
    kc.functor = "index_fill";
  } else if (f.find("index_kernel_impl<") != std::string_view::npos) {
    kc.functor = "index";
  }
  kc.element_bytes = OpaqueOrTypeBytes(f);
  if (kc.element_bytes == 0 || kc.functor.empty()) {
    kc.model = KernelModel::kNone;
    AppendReason(kc, "index functor or element size not decoded");
    return;
  }
  const DataType opaque = TypeOf("OpaqueType<" + std::to_string(kc.element_bytes) + ">");
  kc.input_types = {opaque, DataType::kInt64};
  kc.output_type = opaque;
  kc.operands = 3;
  kc.bytes_known = true;
  kc.flops_known = true;  // moves only
  kc.confidence = Confidence::kLow;
  AppendReason(kc,
               "bytes assume one int64 index read per element and no cache reuse of the "
               "source");
}

void ClassifyScatterGather(KernelClass& kc, std::string_view f) {
  kc.family = KernelFamily::kIndex;
  kc.model = KernelModel::kScatterGather;
  constexpr std::string_view kImpl = "_cuda_scatter_gather_internal_kernel<";
  const size_t at = f.find(kImpl);
  if (at == std::string_view::npos) {
    kc.model = KernelModel::kNone;
    AppendReason(kc, "scatter/gather functor not decoded");
    return;
  }
  const std::optional<TemplateId> impl = ParseTemplateId(f.substr(at));
  if (!impl || impl->args.size() < 2) {
    kc.model = KernelModel::kNone;
    return;
  }
  const bool scatter_like = impl->args[0] == "true";
  const DataType elem = TypeOf(impl->args[1]);
  const DataType index = impl->args.size() >= 3 ? TypeOf(impl->args[2]) : DataType::kInt64;
  kc.element_bytes = DataTypeSize(elem);
  std::string_view op;
  if (const size_t o = impl->rest.find("operator()<"); o != std::string_view::npos) {
    const std::string_view after = impl->rest.substr(o + 11);
    op = LastComponent(after.substr(0, after.find('>')));
  }
  kc.functor = scatter_like ? "scatter" : "gather";
  if (op.starts_with("Reduce")) {
    kc.scatter_reduce = true;
    if (op == "ReduceAdd") kc.functor = "scatter_add";
    if (op == "ReduceMultiply") kc.functor = "scatter_mul";
    if (op == "ReduceMean") kc.functor = "scatter_mean";
    if (op == "ReduceMaximum") kc.functor = "scatter_max";
    if (op == "ReduceMinimum") kc.functor = "scatter_min";
    kc.flops_per_element =
        (op == "ReduceAdd" || op == "ReduceMultiply" || op == "ReduceMean") ? 1 : 0;
  }
  kc.input_types = {elem, index};
  kc.output_type = elem;
  kc.operands = 3;
  kc.path = PathFor({elem});
  if (kc.path == ComputePath::kUnknown) kc.flops_per_element = 0;
  kc.bytes_known = kc.element_bytes > 0 && DataTypeSize(index) > 0;
  kc.flops_known = kc.bytes_known;
  kc.confidence = kc.bytes_known ? Confidence::kLow : Confidence::kNone;
  AppendReason(kc,
               "N = index elements; bytes assume one source read, one index read and one "
               "destination write per element (plus a destination read when reducing)");
}

std::string MultiTensorFunctor(const FunctionNameParts& parts) {
  if (parts.template_args.size() < 2) return "";
  std::string all;
  for (std::string_view a : parts.template_args) all += a;
  const auto id = ParseTemplateId(parts.template_args[1]);
  const std::string_view name =
      id ? LastComponent(id->name) : LastComponent(parts.template_args[1]);
  if (all.find("_amp_foreach_non_finite_check_and_unscale") != std::string::npos) {
    return "amp_unscale";
  }
  if (name == "FusedAdamMathFunctor") return "fused_adam";
  if (name == "FusedAdamWMathFunctor") return "fused_adamw";
  if (name == "FusedSgdMathFunctor") return "fused_sgd";
  if (all.find("std::plus") != std::string::npos) return "foreach_add";
  if (all.find("std::multiplies") != std::string::npos) return "foreach_mul";
  return std::string(name);
}

// fused_dropout_kernel[_vec]<scalar_t, accscalar_t, IndexType, ADims[, VEC][, mask_t]>(
//   TensorInfo<scalar_t const, IndexType> a, TensorInfo<scalar_t, IndexType> b,
//   TensorInfo<mask_t, IndexType> c, IndexType totalElements, accscalar_t p, philox state)
// (aten/src/ATen/native/cuda/Dropout.cu). totalElements sits past three TensorInfos, out of
// reach; the element count is the product of the input TensorInfo's sizes.
void ClassifyFusedDropout(KernelClass& kc, const FunctionNameParts& parts) {
  kc.family = KernelFamily::kElementwiseLegacy;
  kc.model = KernelModel::kFusedDropout;
  kc.functor = "dropout";
  const auto& t = parts.template_args;
  const DataType elem = t.empty() ? DataType::kUnknown : TypeOf(t[0]);
  DataType mask = DataType::kUnknown;
  if (kc.param_types.size() >= 3) {
    if (const auto info = ParseTemplateId(kc.param_types[2]); info && !info->args.empty()) {
      mask = TypeOf(info->args[0]);
    }
  }
  kc.input_types = {elem};
  kc.output_type = elem;
  kc.operands = 3;  // input, output, mask
  kc.element_bytes = DataTypeSize(mask);
  kc.path = PathFor({elem});
  kc.bytes_known = DataTypeSize(elem) > 0 && kc.element_bytes > 0;
  kc.flops_known = kc.bytes_known;
  kc.flops_per_element = kc.path == ComputePath::kUnknown ? 0 : 2;
  kc.confidence = kc.bytes_known ? Confidence::kMedium : Confidence::kNone;
  kc.reason =
      "x * mask * scale: 2 FLOPs per element, the random numbers (integer Philox) not counted; "
      "bytes: input, output and mask once each; elements from the input TensorInfo";
}

// flopspy-demo's kernels (demo/src/gpu_kernels.cuh): element count first, then the operation
// functor (unary_kernel, binary_kernel), then `T const*` inputs and one `T*` output.
void ClassifyDemo(KernelClass& kc, const FunctionNameParts& parts) {
  kc.family = KernelFamily::kDemo;
  const std::string_view base = parts.base;
  for (size_t i = 1; i < kc.param_types.size(); ++i) {
    std::string_view p = TrimBlanks(kc.param_types[i]);
    if (!p.ends_with('*')) continue;
    p.remove_suffix(1);
    p = TrimBlanks(p);
    if (p.ends_with(" const")) {
      kc.input_types.push_back(TypeOf(p.substr(0, p.size() - 6)));
    } else {
      kc.output_type = TypeOf(p);
    }
  }
  kc.operands = static_cast<int>(kc.input_types.size()) + 1;
  const bool n_first = !kc.param_types.empty() && kc.param_types[0] == "int";
  const bool types_known = n_first && kc.output_type != DataType::kUnknown &&
                           std::none_of(kc.input_types.begin(), kc.input_types.end(),
                                        [](DataType t) { return t == DataType::kUnknown; });
  kc.path = PathFor(AllTypes(kc));
  if (!types_known) {
    kc.reason = "flopspy-demo kernel with an unexpected signature";
    return;
  }
  kc.bytes_known = true;
  if (base == "fill_kernel") {
    kc.model = KernelModel::kElementwise;
    kc.functor = "fill";
    kc.flops_known = true;
    kc.confidence = Confidence::kHigh;
    kc.reason = "writes a scalar: output only";
  } else if (base == "sum_kernel") {
    kc.model = KernelModel::kDemoSum;
    kc.functor = "sum";
    kc.flops_known = true;
    kc.flops_per_element = 1;
    kc.confidence = Confidence::kHigh;
    kc.reason = "one add per input; one partial sum written per block";
  } else if ((base == "unary_kernel" || base == "binary_kernel") && !parts.template_args.empty()) {
    kc.model = KernelModel::kElementwise;
    const FunctorRule* rule = FindFunctorRule(parts.template_args[0]);
    if (rule == nullptr) {
      kc.confidence = Confidence::kHigh;
      kc.reason = "flopspy-demo operation not in the catalog: FLOPs unknown";
      return;
    }
    kc.functor = std::string(rule->name);
    kc.flops_known = true;
    kc.flops_per_element = rule->flops;
    kc.special_per_element = rule->special;
    kc.confidence = rule->confidence;
    kc.reason = std::string(rule->note);
  } else {
    kc.bytes_known = false;
    kc.reason = "flopspy-demo kernel not in the catalog";
  }
}

bool IsAten(const FunctionNameParts& parts) {
  return parts.qualified.starts_with("at::") ||
         (parts.qualified.starts_with("(anonymous namespace)::softmax_warp_"));
}

// What the ATen rules look at: the split name and whether parameter 0 is a scalar (N).
struct AtenKernel {
  const FunctionNameParts& parts;
  std::string_view base;
  const std::vector<std::string_view>& t;  // template arguments
  bool n_is_param0;
};

// One row per ATen kernel shape, tried in order: the first whose predicate holds classifies.
struct AtenRule {
  bool (*matches)(const KernelClass& kc, const AtenKernel& k);
  void (*classify)(KernelClass& kc, const AtenKernel& k);
};

void ClassifyLegacyElementwise(KernelClass& kc, const AtenKernel& k) {
  // <nt, vt, gpu_kernel_impl[_nocast]<F>(TensorIteratorBase&, F const&)::{lambda(int)#1}>
  const std::optional<TemplateId> impl = ParseTemplateId(k.t[2]);
  const std::string_view impl_name = impl ? LastComponent(impl->name) : std::string_view();
  if (impl && impl->args.size() == 1 &&
      (impl_name == "gpu_kernel_impl_nocast" || impl_name == "gpu_kernel_impl")) {
    LoopFacts loop{ElementwiseLoop::kLegacy};
    loop.casts = impl_name == "gpu_kernel_impl";
    ClassifyElementwise(kc, impl->args[0], loop);
  } else {
    kc.family = KernelFamily::kElementwiseLegacy;
    kc.loop = ElementwiseLoop::kLegacy;
    kc.reason = "elementwise loop body not decoded";
  }
}

void ClassifyUnrolledElementwise(KernelClass& kc, const AtenKernel& k) {
  LoopFacts loop{ElementwiseLoop::kUnrolled, ArrayOperandCount(k.t[1])};
  for (std::string_view arg : k.t) {
    if (arg.find("LoadWithCast") != std::string_view::npos) loop.casts = true;
    if (arg.starts_with("OffsetCalculator")) loop.strided = true;
  }
  ClassifyElementwise(kc, k.t[0], loop);
}

void ClassifyGatherRows(KernelClass& kc, const AtenKernel& k) {
  kc.family = KernelFamily::kIndex;
  kc.model = KernelModel::kGatherRows;
  kc.functor = "gather_rows";
  kc.input_types = {TypeOf(k.t[1])};                // the index; rows are raw bytes
  kc.element_bytes = DataTypeSize(TypeOf(k.t[1]));  // bytes per index
  kc.operands = 3;
  kc.bytes_known = kc.element_bytes > 0;
  kc.flops_known = kc.bytes_known;
  kc.confidence = kc.bytes_known ? Confidence::kHigh : Confidence::kNone;
  kc.reason = "rows x row bytes read and written, plus one index per row";
}

void ClassifyIndexSelect(KernelClass& kc, const AtenKernel& k) {
  kc.family = KernelFamily::kIndex;
  kc.model = KernelModel::kIndexSelect;
  kc.functor = "index_select";
  const DataType elem = TypeOf(k.t[0]);
  kc.input_types = {elem};
  kc.output_type = elem;
  kc.operands = 3;
  kc.element_bytes = DataTypeSize(elem);
  kc.bytes_known = kc.element_bytes > 0;
  kc.flops_known = kc.bytes_known;
  kc.path = PathFor({elem});
  kc.confidence = kc.bytes_known ? Confidence::kMedium : Confidence::kNone;
  kc.reason = "elements from the destination TensorInfo; index reads not counted";
}

void ClassifyCat(KernelClass& kc, const AtenKernel& k) {
  kc.family = KernelFamily::kCat;
  kc.functor = "cat";
  const DataType elem = k.t.empty() ? DataType::kUnknown : TypeOf(k.t[0]);
  kc.input_types = {elem};
  kc.output_type = elem;
  kc.element_bytes = DataTypeSize(elem);
  kc.reason =
      "input sizes live in the by-value CatArrInputTensorMetadata, past the captured "
      "bytes: figures unknown";
}

void ClassifyMultiTensorApply(KernelClass& kc, const AtenKernel& k) {
  kc.family = KernelFamily::kMultiTensorApply;
  kc.functor = MultiTensorFunctor(k.parts);
  kc.reason =
      "tensor list sizes live in the by-value TensorListMetadata, past the captured "
      "bytes: figures unknown";
}

constexpr AtenRule kAtenRules[] = {
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base == "vectorized_elementwise_kernel" && k.t.size() == 3;
     },
     [](KernelClass& kc, const AtenKernel& k) {
       ClassifyElementwise(kc, k.t[1], {ElementwiseLoop::kVectorized, ArrayOperandCount(k.t[2])});
     }},
    // PyTorch 1.5: modern::elementwise_kernel<nt, vt, vec, func, Array<char*, K>>.
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base == "elementwise_kernel" &&
              k.parts.qualified.find("::modern::") != std::string_view::npos && k.t.size() >= 2;
     },
     [](KernelClass& kc, const AtenKernel& k) {
       ClassifyElementwise(kc, k.t[k.t.size() - 2],
                           {ElementwiseLoop::kVectorized, ArrayOperandCount(k.t.back())});
     }},
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base == "unrolled_elementwise_kernel" && k.t.size() >= 2;
     },
     ClassifyUnrolledElementwise},
    {[](const KernelClass&, const AtenKernel& k) {
       return (k.base == "elementwise_kernel" || k.base == "elementwise_kernel_manual_unroll") &&
              k.t.size() == 3;
     },
     ClassifyLegacyElementwise},
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base == "reduce_kernel" && k.t.size() == 3;
     },
     [](KernelClass& kc, const AtenKernel& k) { ClassifyReduce(kc, k.t[2]); }},
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base.starts_with("cunn_SoftMax") || k.base.starts_with("cunn_SpatialSoftMax") ||
              k.base == "softmax_warp_forward" || k.base == "softmax_warp_backward";
     },
     [](KernelClass& kc, const AtenKernel& k) { ClassifySoftmax(kc, k.parts); }},
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base == "vectorized_layer_norm_kernel" || k.base == "RowwiseMomentsCUDAKernel" ||
              k.base == "LayerNormForwardCUDAKernel" ||
              k.base.starts_with("layer_norm_grad_input_kernel") ||
              k.base.starts_with("GammaBetaBackward");
     },
     [](KernelClass& kc, const AtenKernel& k) { ClassifyLayerNorm(kc, k.parts); }},
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base == "index_elementwise_kernel" && k.t.size() == 3 && k.n_is_param0;
     },
     [](KernelClass& kc, const AtenKernel& k) { ClassifyIndexElementwise(kc, k.t[2]); }},
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base == "vectorized_gather_kernel" && k.t.size() == 2;
     },
     ClassifyGatherRows},
    {[](const KernelClass&, const AtenKernel& k) {
       return (k.base == "indexSelectLargeIndex" || k.base == "indexSelectSmallIndex") &&
              !k.t.empty();
     },
     ClassifyIndexSelect},
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base == "_scatter_gather_elementwise_kernel" && k.t.size() == 3 && k.n_is_param0;
     },
     [](KernelClass& kc, const AtenKernel& k) { ClassifyScatterGather(kc, k.t[2]); }},
    {[](const KernelClass& kc, const AtenKernel& k) {
       return (k.base == "fused_dropout_kernel_vec" || k.base == "fused_dropout_kernel") &&
              kc.param_types.size() >= 3;
     },
     [](KernelClass& kc, const AtenKernel& k) { ClassifyFusedDropout(kc, k.parts); }},
    {[](const KernelClass&, const AtenKernel& k) {
       return k.base.starts_with("CatArrayBatchedCopy");
     },
     ClassifyCat},
    {[](const KernelClass&, const AtenKernel& k) { return k.base == "multi_tensor_apply_kernel"; },
     ClassifyMultiTensorApply},
};

KernelClass ClassifyDemangled(const std::string& demangled) {
  KernelClass kc;
  const FunctionNameParts parts = SplitFunctionName(demangled);
  kc.kernel =
      std::string(parts.base.empty() ? TrimBlanks(std::string_view(demangled)) : parts.base);
  for (std::string_view p : parts.params) kc.param_types.emplace_back(p);

  if (kc.kernel.starts_with("triton_")) {
    kc.family = KernelFamily::kTriton;
    // Inductor's names say the kind and the fused operations (docs/kernel-catalog.md, "Triton
    // and torch.compile"); the op shows both, the functor the kind.
    const std::optional<InductorKernelName> inductor = ParseInductorKernelName(kc.kernel);
    kc.functor = inductor ? inductor->kind : "triton";
    if (inductor) kc.op = InductorOpText(*inductor);
    kc.reason =
        "Triton kernel: generated code, no catalog model (hardware counters can measure it)";
    return kc;
  }
  if (parts.qualified.starts_with("flopspy_demo::")) {
    ClassifyDemo(kc, parts);
    if (kc.model == KernelModel::kNone) kc.bytes_known = kc.flops_known = false;
    return kc;
  }
  // Attention kernels sit in several namespaces (pytorch_flash::, flash::, none): by name.
  if (catalog_detail::ClassifyAttention(kc, parts, demangled)) return kc;
  if (!IsAten(parts)) {
    kc.reason = "not a kernel the catalog knows";
    return kc;
  }

  const AtenKernel k{parts, parts.base, parts.template_args,
                     !kc.param_types.empty() && ScalarParamSize(kc.param_types[0])};
  const auto rule = std::find_if(std::begin(kAtenRules), std::end(kAtenRules),
                                 [&](const AtenRule& r) { return r.matches(kc, k); });
  if (rule != std::end(kAtenRules)) {
    rule->classify(kc, k);
  } else {
    kc.reason = "ATen kernel not in the catalog";
  }
  if (kc.model == KernelModel::kNone) {
    kc.flops_known = false;
    kc.bytes_known = false;
    kc.confidence = Confidence::kNone;
  }
  return kc;
}

}  // namespace

KernelClass ClassifyKernel(std::string_view name) {
  const std::string demangled = NormalizeDemangledName(Demangle(TrimBlanks(name)));
  KernelClass kc = ClassifyDemangled(demangled);
  // Triton's functor is its kind ("pointwise"), never an operation: its op is set above.
  if (kc.op.empty() && kc.family != KernelFamily::kTriton) kc.op = kc.functor;
  kc.category = CategorizeKernel(kc, demangled);
  return kc;
}

}  // namespace flopspy::analyzers
