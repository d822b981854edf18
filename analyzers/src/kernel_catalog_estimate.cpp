// Estimation: turning a classified kernel and one launch's captured parameters into FLOPs and
// bytes. Each model reads only what the name says is there; anything missing or inconsistent
// leaves the figures unknown, with the reason.
#include <cstdint>
#include <string>

#include "flopspy/analyzers/kernel_catalog.h"
#include "kernel_catalog_attention.h"
#include "kernel_catalog_internal.h"

namespace flopspy::analyzers {
namespace {

using catalog_detail::kTensorInfoBytes;
using catalog_detail::kTensorInfoDimsAt;
using catalog_detail::kTensorInfoMaxDims;
using catalog_detail::kTensorInfoSizesAt;
using catalog_detail::LoadSigned;
using catalog_detail::ParamOffset;
using catalog_detail::ReadIntParam;
using catalog_detail::ReadPointerParam;

// What a model computed for one launch.
struct Figures {
  int64_t elements = 0;
  double flops = 0;
  double special = 0;
  double bytes = 0;
  std::string shape_key;
};

// Element counts come from untrusted bytes: a product that overflows is a misread, not a size.
std::optional<int64_t> CheckedProduct(std::initializer_list<int64_t> factors, std::string* why) {
  int64_t product = 1;
  for (int64_t f : factors) {
    if (f < 0 || __builtin_mul_overflow(product, f, &product)) {
      *why = "element count out of range";
      return std::nullopt;
    }
  }
  return product;
}

DataType InputType(const KernelClass& kc, size_t i) {
  return i < kc.input_types.size() ? kc.input_types[i] : DataType::kUnknown;
}

double BytesPerElement(const KernelClass& kc) {
  double sum = DataTypeSize(kc.output_type);
  for (DataType t : kc.input_types) sum += DataTypeSize(t);
  return sum;
}

std::string Key(std::initializer_list<std::pair<std::string_view, int64_t>> items) {
  std::string key;
  for (const auto& [name, value] : items) {
    if (!key.empty()) key += ',';
    key += name;
    key += '=';
    key += std::to_string(value);
  }
  return key;
}

std::optional<Figures> Elementwise(const KernelClass& kc, const LaunchFacts& launch,
                                   std::string* why) {
  const std::optional<int64_t> n = ReadIntParam(kc, launch, 0, why);
  if (!n) return std::nullopt;
  if (*n < 0) {
    *why = "negative element count";
    return std::nullopt;
  }
  Figures f;
  f.elements = *n;
  const double dn = static_cast<double>(*n);
  f.bytes = dn * BytesPerElement(kc);
  f.flops = dn * kc.flops_per_element;
  f.special = dn * kc.special_per_element;
  f.shape_key = Key({{"n", *n}});
  return f;
}

std::optional<Figures> Reduce(const KernelClass& kc, const LaunchFacts& launch, std::string* why) {
  const std::optional<int> param = ParamOffset(kc, launch, 0);
  if (!param) {
    *why = "ReduceOp parameter offset unknown";
    return std::nullopt;
  }
  if (launch.layout.count > 0 && launch.layout.slots[0].size < kc.reduce_config_offset + 12) {
    *why = "parameter 0 is smaller than a ReduceOp";
    return std::nullopt;
  }
  // ReduceConfig starts with int element_size_bytes, num_inputs, num_outputs.
  const size_t config = static_cast<size_t>(*param + kc.reduce_config_offset);
  const auto element_size = LoadSigned(launch, config, 4);
  const auto inputs = LoadSigned(launch, config + 4, 4);
  const auto outputs = LoadSigned(launch, config + 8, 4);
  if (!element_size || !inputs || !outputs) {
    *why = "ReduceConfig not captured (needs " + std::to_string(config + 12) + " bytes, have " +
           std::to_string(launch.params.size()) + ")";
    return std::nullopt;
  }
  if (*element_size != kc.reduce_arg_bytes || *inputs < 1 || *outputs < 1) {
    *why = "ReduceConfig check failed (element_size_bytes " + std::to_string(*element_size) +
           ", expected " + std::to_string(kc.reduce_arg_bytes) + "): layout differs";
    return std::nullopt;
  }
  const auto elements = CheckedProduct({*inputs, *outputs}, why);
  if (!elements) return std::nullopt;
  Figures f;
  f.elements = *elements;
  const double in = static_cast<double>(f.elements);
  const double out = static_cast<double>(*outputs);
  f.bytes = in * DataTypeSize(InputType(kc, 0)) + out * DataTypeSize(kc.output_type);
  f.flops = in * kc.flops_per_element + out * kc.flops_per_output;
  f.special = in * kc.special_per_element;
  f.shape_key = Key({{"inputs", *inputs}, {"outputs", *outputs}});
  return f;
}

std::optional<Figures> Softmax(const KernelClass& kc, const LaunchFacts& launch, std::string* why) {
  const int last = static_cast<int>(kc.param_types.size()) - 1;
  int64_t rows = 0, cols = 0, inner = 1;
  if (kc.model == KernelModel::kSoftmaxBlock) {
    // One block per row (aten/src/ATen/native/cuda/SoftMax.cu); the class count is the last
    // parameter.
    const auto c = ReadIntParam(kc, launch, last, why);
    if (!c) return std::nullopt;
    rows = launch.grid.x;
    cols = *c;
  } else if (kc.model == KernelModel::kSoftmaxWarp) {
    // (dst, src, batch, stride, count) forward; (gradInput, grad, output, batch, stride, count).
    const int first = kc.backward ? 3 : 2;
    const auto b = ReadIntParam(kc, launch, first, why);
    const auto c = b ? ReadIntParam(kc, launch, first + 2, why) : std::nullopt;
    if (!b || !c) return std::nullopt;
    rows = *b;
    cols = *c;
  } else {
    // Spatial: outer, dim, inner are the last three parameters.
    const auto o = ReadIntParam(kc, launch, last - 2, why);
    const auto d = o ? ReadIntParam(kc, launch, last - 1, why) : std::nullopt;
    const auto i = d ? ReadIntParam(kc, launch, last, why) : std::nullopt;
    if (!o || !d || !i) return std::nullopt;
    rows = *o;
    cols = *d;
    inner = *i;
  }
  const auto elements = CheckedProduct({rows, cols, inner}, why);
  if (!elements) return std::nullopt;
  Figures f;
  f.elements = *elements;
  const double e = static_cast<double>(f.elements);
  f.bytes = e * BytesPerElement(kc);
  f.flops = e * kc.flops_per_element;
  f.special = e * kc.special_per_element;
  f.shape_key = kc.model == KernelModel::kSoftmaxSpatial
                    ? Key({{"outer", rows}, {"dim", cols}, {"inner", inner}})
                    : Key({{"rows", rows}, {"cols", cols}});
  return f;
}

std::optional<Figures> LayerNorm(const KernelClass& kc, const LaunchFacts& launch,
                                 std::string* why) {
  // Every layer norm kernel here runs one block per row (aten/src/ATen/native/cuda/
  // layer_norm_kernel.cu), so rows = grid.x; N is a parameter.
  const int n_index = kc.model == KernelModel::kLayerNormGradInput ? 6 : 0;
  const auto n = ReadIntParam(kc, launch, n_index, why);
  if (!n) return std::nullopt;
  if (*n < 0) {
    *why = "negative row length";
    return std::nullopt;
  }
  const int64_t rows = launch.grid.x;
  bool gamma = false, beta = false, mean = true;
  auto present = [&](int index, bool* out) {
    const auto p = ReadPointerParam(kc, launch, index, why);
    if (!p) return false;
    *out = *p != 0;
    return true;
  };
  double per_element = 0;
  double row_bytes = 0;  // per row, beyond the streamed elements: mean and rstd
  double streamed = 0;   // tensors of rows x N elements read or written
  const double acc = DataTypeSize(kc.acc_type);
  switch (kc.model) {
    case KernelModel::kLayerNormFused:
      // (int N, T_ACC eps, X, gamma, beta, mean, rstd, Y)
      if (!present(3, &gamma) || !present(4, &beta) || !present(5, &mean)) return std::nullopt;
      if (kc.rms_norm) beta = false;
      per_element = kc.rms_norm ? 3 + (gamma ? 1 : 0) : 6 + (gamma ? 1 : 0) + (beta ? 1 : 0);
      streamed = 2;
      row_bytes = acc * ((mean ? 1 : 0) + 1);
      break;
    case KernelModel::kLayerNormMoments:
      // (int64 N, T_ACC eps, X, mean, rstd)
      per_element = kc.rms_norm ? 2 : 4;
      streamed = 1;
      row_bytes = acc * (kc.rms_norm ? 1 : 2);
      break;
    case KernelModel::kLayerNormApply:
      // (int64 N, X, mean, rstd, gamma, beta, Y)
      if (!present(4, &gamma) || !present(5, &beta)) return std::nullopt;
      if (kc.rms_norm) beta = false;
      per_element = kc.rms_norm ? 1 + (gamma ? 1 : 0) : 2 + (gamma ? 1 : 0) + (beta ? 1 : 0);
      streamed = 2;
      row_bytes = acc * (kc.rms_norm ? 1 : 2);
      break;
    default:  // kLayerNormGradInput: (dY, X, mean, rstd, gamma, dX, int N)
      if (!present(4, &gamma)) return std::nullopt;
      per_element = kc.rms_norm ? 9 : 13;
      streamed = 3;
      row_bytes = acc * 2;
      break;
  }
  const double t = DataTypeSize(InputType(kc, 0));
  const double dn = static_cast<double>(*n);
  const double dr = static_cast<double>(rows);
  const auto elements = CheckedProduct({rows, *n}, why);
  if (!elements) return std::nullopt;
  Figures f;
  f.elements = *elements;
  f.flops = dr * dn * per_element;
  f.special = kc.model == KernelModel::kLayerNormFused || kc.model == KernelModel::kLayerNormMoments
                  ? dr  // one rsqrt per row
                  : 0;
  f.flops += f.special;
  f.bytes = dr * dn * t * streamed + dn * t * ((gamma ? 1 : 0) + (beta ? 1 : 0)) + dr * row_bytes;
  f.shape_key = Key({{"rows", rows}, {"n", *n}, {"gamma", gamma}, {"beta", beta}});
  return f;
}

// Elements of a 32-bit-indexed at::cuda::detail::TensorInfo<T, unsigned int> passed by value as
// parameter 0: {T* data; unsigned sizes[25]; unsigned strides[25]; int dims;} (216 bytes;
// aten/src/ATen/cuda/detail/TensorInfo.cuh). The product of the sizes is every element the
// tensor holds (collapsing dimensions keeps the product).
std::optional<int64_t> TensorInfoElements(const KernelClass& kc, const LaunchFacts& launch,
                                          std::string* why) {
  if (kc.param_types.empty() || !kc.param_types[0].ends_with(", unsigned int>")) {
    *why = "TensorInfo parameter does not use 32-bit indexing";
    return std::nullopt;
  }
  if (launch.layout.count > 0 && launch.layout.slots[0].size != kTensorInfoBytes) {
    *why = "parameter 0 is not a 32-bit TensorInfo";
    return std::nullopt;
  }
  const auto base = ParamOffset(kc, launch, 0).value_or(0);
  const auto dims = LoadSigned(launch, base + kTensorInfoDimsAt, 4);
  if (!dims) {
    *why = "TensorInfo not captured (needs " + std::to_string(base + kTensorInfoDimsAt + 4) +
           " bytes)";
    return std::nullopt;
  }
  if (*dims < 1 || *dims > kTensorInfoMaxDims) {
    *why = "TensorInfo has " + std::to_string(*dims) + " dimensions";
    return std::nullopt;
  }
  int64_t elements = 1;
  for (int i = 0; i < *dims; ++i) {
    const auto size = catalog_detail::LoadUnsigned(launch, base + kTensorInfoSizesAt + 4 * i, 4);
    if (!size) return std::nullopt;
    const auto product = CheckedProduct({elements, static_cast<int64_t>(*size)}, why);
    if (!product) return std::nullopt;
    elements = *product;
  }
  return elements;
}

std::optional<Figures> Indexing(const KernelClass& kc, const LaunchFacts& launch,
                                std::string* why) {
  Figures f;
  switch (kc.model) {
    case KernelModel::kIndexElementwise: {
      const auto n = ReadIntParam(kc, launch, 0, why);
      if (!n || *n < 0) return std::nullopt;
      f.elements = *n;
      f.bytes = static_cast<double>(*n) * (2.0 * kc.element_bytes + 8);
      f.shape_key = Key({{"n", *n}});
      return f;
    }
    case KernelModel::kScatterGather: {
      const auto n = ReadIntParam(kc, launch, 0, why);
      if (!n || *n < 0) return std::nullopt;
      f.elements = *n;
      const double idx = DataTypeSize(InputType(kc, 1));
      f.bytes =
          static_cast<double>(*n) * ((kc.scatter_reduce ? 3.0 : 2.0) * kc.element_bytes + idx);
      f.flops = static_cast<double>(*n) * kc.flops_per_element;
      f.shape_key = Key({{"n", *n}});
      return f;
    }
    case KernelModel::kGatherRows: {
      // (char* out, char* inp, index_t* idx, int num_ind, int64 slice_size_bytes, ...)
      const auto rows = ReadIntParam(kc, launch, 3, why);
      const auto row_bytes = rows ? ReadIntParam(kc, launch, 4, why) : std::nullopt;
      if (!rows || !row_bytes || *rows < 0 || *row_bytes < 0) return std::nullopt;
      f.elements = *rows;
      f.bytes =
          static_cast<double>(*rows) * (2.0 * static_cast<double>(*row_bytes) + kc.element_bytes);
      f.shape_key = Key({{"rows", *rows}, {"row_bytes", *row_bytes}});
      return f;
    }
    default: {  // kIndexSelect: the destination holds every element the kernel writes.
      const auto elements = TensorInfoElements(kc, launch, why);
      if (!elements) return std::nullopt;
      f.elements = *elements;
      f.bytes = static_cast<double>(*elements) * 2.0 * kc.element_bytes;
      f.shape_key = Key({{"elements", *elements}});
      return f;
    }
  }
}

std::optional<Figures> FusedDropout(const KernelClass& kc, const LaunchFacts& launch,
                                    std::string* why) {
  const auto elements = TensorInfoElements(kc, launch, why);
  if (!elements) return std::nullopt;
  Figures f;
  f.elements = *elements;
  const double n = static_cast<double>(*elements);
  f.bytes = n * (BytesPerElement(kc) + kc.element_bytes);  // input, output, mask
  f.flops = n * kc.flops_per_element;
  f.shape_key = Key({{"elements", *elements}});
  return f;
}

std::optional<Figures> DemoSum(const KernelClass& kc, const LaunchFacts& launch, std::string* why) {
  // sum_kernel<B>(int n, const float* in, float* partial): reads n inputs, writes one partial
  // per block (demo/src/gpu_kernels.cuh).
  const auto n = ReadIntParam(kc, launch, 0, why);
  if (!n) return std::nullopt;
  if (*n < 0) {
    *why = "negative element count";
    return std::nullopt;
  }
  Figures f;
  f.elements = *n;
  const double blocks = static_cast<double>(launch.grid.x) * launch.grid.y * launch.grid.z;
  f.bytes = static_cast<double>(*n) * DataTypeSize(InputType(kc, 0)) +
            blocks * DataTypeSize(kc.output_type);
  f.flops = static_cast<double>(*n) * kc.flops_per_element;
  f.shape_key = Key({{"n", *n}});
  return f;
}

}  // namespace

KernelEstimate EstimateKernel(const KernelClass& kc, const LaunchFacts& launch) {
  KernelEstimate e;
  e.family = kc.family;
  e.loop = kc.loop;
  e.kernel = kc.kernel;
  e.functor = kc.functor;
  e.input_types = kc.input_types;
  e.output_type = kc.output_type;
  e.operands = kc.operands;
  e.path = kc.path;
  e.reason = kc.reason;
  if (kc.model == KernelModel::kNone || (!kc.flops_known && !kc.bytes_known)) return e;

  std::string why;
  std::optional<Figures> f;
  switch (kc.model) {
    case KernelModel::kElementwise:
      f = Elementwise(kc, launch, &why);
      break;
    case KernelModel::kReduce:
      f = Reduce(kc, launch, &why);
      break;
    case KernelModel::kSoftmaxBlock:
    case KernelModel::kSoftmaxWarp:
    case KernelModel::kSoftmaxSpatial:
      f = Softmax(kc, launch, &why);
      break;
    case KernelModel::kLayerNormFused:
    case KernelModel::kLayerNormMoments:
    case KernelModel::kLayerNormApply:
    case KernelModel::kLayerNormGradInput:
      f = LayerNorm(kc, launch, &why);
      break;
    case KernelModel::kIndexElementwise:
    case KernelModel::kGatherRows:
    case KernelModel::kIndexSelect:
    case KernelModel::kScatterGather:
      f = Indexing(kc, launch, &why);
      break;
    case KernelModel::kFusedDropout:
      f = FusedDropout(kc, launch, &why);
      break;
    case KernelModel::kDemoSum:
      f = DemoSum(kc, launch, &why);
      break;
    case KernelModel::kFlashAttention2:
    case KernelModel::kMemEffAttention:
      return catalog_detail::EstimateAttention(kc, launch, std::move(e));
    case KernelModel::kNone:
      break;
  }
  if (!f) {
    e.reason =
        (why.empty() ? std::string("launch parameters not decoded") : why) + "; " + kc.reason;
    return e;
  }
  e.elements = f->elements;
  e.shape_key = std::move(f->shape_key);
  e.confidence = kc.confidence;
  if (kc.bytes_known) {
    e.bytes = f->bytes;
    e.bytes_source = trace::FigureSource::kCatalog;
  }
  if (kc.flops_known) {
    e.flops = f->flops;
    e.special_ops = f->special;
    e.source = trace::FigureSource::kCatalog;
  }
  return e;
}

KernelEstimate EstimateKernel(std::string_view name, const LaunchFacts& launch) {
  return EstimateKernel(ClassifyKernel(name), launch);
}

}  // namespace flopspy::analyzers
