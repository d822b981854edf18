// The tensor-core (and FP32/FP64) peaks by cuBLASLt GEMMs: large, square, 256-aligned, TN (the
// layout cuBLASLt requires for FP8 and int8, and fast for every type), inputs filled with small
// pseudo-random values, cuBLASLt's first heuristic choice with a 64 MiB workspace.
#include <cstring>
#include <optional>

#include "ceilings_bench.h"
#include "cublaslt_api.h"
#include "flopspy/gpu_roofline/ceilings_plan.h"

namespace flopspy::gpuroof::cuda {
namespace {

using analyzers::ComputePath;

constexpr size_t kWorkspaceBytes = size_t{64} << 20;
// GEMMs are sized to last about this long at the nominal peak (up to 8192^3), quick or not:
// a smaller GEMM reaches a smaller share of the peak, and quick mode only times fewer of them.
constexpr double kGemmSizingSeconds = 0.05;

// The cuBLASLt types of each GemmCase, by id.
struct GemmTypes {
  std::string_view id;
  cudaDataType_t input;
  cudaDataType_t output;
  cublasComputeType_t compute;
  cudaDataType_t scale;
  const char* fill;  // kernel that fills the inputs
  const char* type_name;
};

constexpr GemmTypes kTypes[] = {
    {"gemm_fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, "flopspy_fill_f16",
     "fp16"},
    {"gemm_fp16_fp16acc", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, CUDA_R_16F,
     "flopspy_fill_f16", "fp16"},
    {"gemm_bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, "flopspy_fill_bf16",
     "bf16"},
    {"gemm_tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F,
     "flopspy_fill_f32", "tf32"},
    {"gemm_fp8", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, "flopspy_fill_e4m3",
     "fp8"},
    {"gemm_int8", CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I, "flopspy_fill_i8", "int8"},
    {"gemm_fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, "flopspy_fill_f32",
     "fp32"},
    {"gemm_fp64", CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, "flopspy_fill_f64",
     "fp64"},
};

const GemmTypes* TypesFor(std::string_view id) {
  for (const GemmTypes& t : kTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

// alpha = 1 and beta = 0 in the scale type.
struct Scalars {
  alignas(8) unsigned char alpha[8] = {};
  alignas(8) unsigned char beta[8] = {};
  explicit Scalars(cudaDataType_t scale) {
    switch (scale) {
      case CUDA_R_16F: {
        const uint16_t one = 0x3C00;  // 1.0 in IEEE half
        std::memcpy(alpha, &one, sizeof one);
        break;
      }
      case CUDA_R_64F: {
        const double one = 1.0;
        std::memcpy(alpha, &one, sizeof one);
        break;
      }
      case CUDA_R_32I: {
        const int32_t one = 1;
        std::memcpy(alpha, &one, sizeof one);
        break;
      }
      default: {
        const float one = 1.0f;
        std::memcpy(alpha, &one, sizeof one);
        break;
      }
    }
  }
};

std::string LtError(const char* what, cublasStatus_t status) {
  return std::string(what) + " failed with cuBLAS status " +
         std::to_string(static_cast<int>(status));
}

// The descriptors of one GEMM, destroyed on scope exit.
struct GemmDescriptors {
  const CublasLtApi* lt;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  ~GemmDescriptors() {
    if (preference) lt->MatmulPreferenceDestroy(preference);
    if (d) lt->MatrixLayoutDestroy(d);
    if (b) lt->MatrixLayoutDestroy(b);
    if (a) lt->MatrixLayoutDestroy(a);
    if (op) lt->MatmulDescDestroy(op);
  }
};

// D (n x n) = A^T B with A and B stored k x n, column-major: the TN layout.
std::string Describe(const CublasLtApi& lt, const GemmTypes& t, int n, GemmDescriptors* g) {
  cublasStatus_t s = lt.MatmulDescCreate(&g->op, t.compute, t.scale);
  if (s != CUBLAS_STATUS_SUCCESS) return LtError("cublasLtMatmulDescCreate", s);
  const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
  s = lt.MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose);
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = lt.MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep);
  }
  if (s == CUBLAS_STATUS_SUCCESS && t.input == CUDA_R_8F_E4M3) {
    // FP8 on Hopper: accumulate in the tensor cores without periodic promotion, the mode the
    // datasheet peak assumes (PyTorch's _scaled_mm(use_fast_accum=True)).
    const int8_t fast = 1;
    s = lt.MatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
  }
  if (s != CUBLAS_STATUS_SUCCESS) return LtError("cublasLtMatmulDescSetAttribute", s);
  const auto size = static_cast<uint64_t>(n);
  s = lt.MatrixLayoutCreate(&g->a, t.input, size, size, n);
  if (s == CUBLAS_STATUS_SUCCESS) s = lt.MatrixLayoutCreate(&g->b, t.input, size, size, n);
  if (s == CUBLAS_STATUS_SUCCESS) s = lt.MatrixLayoutCreate(&g->d, t.output, size, size, n);
  if (s != CUBLAS_STATUS_SUCCESS) return LtError("cublasLtMatrixLayoutCreate", s);
  s = lt.MatmulPreferenceCreate(&g->preference);
  if (s != CUBLAS_STATUS_SUCCESS) return LtError("cublasLtMatmulPreferenceCreate", s);
  const uint64_t workspace = kWorkspaceBytes;
  s = lt.MatmulPreferenceSetAttribute(g->preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                      &workspace, sizeof workspace);
  return s == CUBLAS_STATUS_SUCCESS ? "" : LtError("cublasLtMatmulPreferenceSetAttribute", s);
}

GpuBenchResult RunGemm(const BenchContext& ctx, const CublasLtApi& lt, cublasLtHandle_t handle,
                       CUdeviceptr workspace, const GemmCase& gemm) {
  const DriverApi& cu = *ctx.cu;
  GpuBenchResult r;
  r.id = std::string(gemm.id);
  r.path = GemmPathOnDevice(gemm, ctx.roofs);
  const GemmTypes* types = TypesFor(gemm.id);
  r.name = "cublasLt " + std::string(types ? types->type_name : "?") + " GEMM (" +
           std::string(gemm.label) + ")";
  if (types == nullptr) {
    r.skipped = "no cuBLASLt types for this case";
    return r;
  }
  if (!SupportsComputeCapability(ctx.props.cc_major, ctx.props.cc_minor, gemm.min_cc_major,
                                 gemm.min_cc_minor)) {
    r.skipped = "needs compute capability " + std::to_string(gemm.min_cc_major) + "." +
                std::to_string(gemm.min_cc_minor) +
                " (this GPU: " + std::to_string(ctx.props.cc_major) + "." +
                std::to_string(ctx.props.cc_minor) + ")";
    return r;
  }
  ctx.Progress(r.id);
  const auto nominal =
      analyzers::ResolvePeak(ctx.roofs, *r.path, analyzers::RoofPreference::kNominalOnly);
  size_t free_bytes = 0, total_bytes = 0;
  if (cu.MemGetInfo(&free_bytes, &total_bytes) != CUDA_SUCCESS) free_bytes = 0;
  const uint64_t budget = free_bytes / 10 * 8;  // leave room for cuBLASLt's own buffers
  const int n =
      GemmSize(nominal ? nominal->flops_per_s : 0, kGemmSizingSeconds, 1024, 8192, gemm, budget);
  if (n == 0) {
    r.skipped = "not enough free device memory for a 1024^3 GEMM";
    return r;
  }
  r.name = "cublasLt " + std::string(types->type_name) + " " + std::to_string(n) + "x" +
           std::to_string(n) + "x" + std::to_string(n) + " TN (" + std::string(gemm.label) + ")";
  const uint64_t elems = static_cast<uint64_t>(n) * static_cast<uint64_t>(n);
  DeviceBuffer a(cu), b(cu), d(cu);
  std::string e = a.Allocate(elems * static_cast<uint64_t>(gemm.input_bytes));
  if (e.empty()) e = b.Allocate(elems * static_cast<uint64_t>(gemm.input_bytes));
  if (e.empty()) e = d.Allocate(elems * static_cast<uint64_t>(gemm.output_bytes));
  if (e.empty()) e = FillRandom(ctx, types->fill, a.get(), elems, 1);
  if (e.empty()) e = FillRandom(ctx, types->fill, b.get(), elems, 2);
  GemmDescriptors g{&lt};
  if (e.empty()) e = Describe(lt, *types, n, &g);
  cublasLtMatmulHeuristicResult_t choice{};
  if (e.empty()) {
    int found = 0;
    const cublasStatus_t s = lt.MatmulAlgoGetHeuristic(handle, g.op, g.a, g.b, g.d, g.d,
                                                       g.preference, 1, &choice, &found);
    if (s != CUBLAS_STATUS_SUCCESS || found == 0) {
      e = "cuBLASLt offers no algorithm for it on this GPU" +
          (s != CUBLAS_STATUS_SUCCESS ? " (status " + std::to_string(static_cast<int>(s)) + ")"
                                      : std::string());
    }
  }
  if (!e.empty()) {
    r.skipped = e;
    return r;
  }
  const Scalars scalars(types->scale);
  const auto stream = reinterpret_cast<cudaStream_t>(ctx.stream);
  auto enqueue = [&](int64_t count) -> std::string {
    for (int64_t i = 0; i < count; ++i) {
      const cublasStatus_t s =
          lt.Matmul(handle, g.op, scalars.alpha, reinterpret_cast<const void*>(a.get()), g.a,
                    reinterpret_cast<const void*>(b.get()), g.b, scalars.beta,
                    reinterpret_cast<const void*>(d.get()), g.d, reinterpret_cast<void*>(d.get()),
                    g.d, &choice.algo, reinterpret_cast<void*>(workspace), kWorkspaceBytes, stream);
      if (s != CUBLAS_STATUS_SUCCESS) return LtError("cublasLtMatmul", s);
    }
    return "";
  };
  int64_t count = 1;
  e = Calibrate(ctx, enqueue, 1, 64, &count);
  if (e.empty()) {
    e = TimeRepetitions(
        ctx, 1, ctx.repetitions, [&] { return enqueue(count); }, &r.seconds);
  }
  if (!e.empty()) {
    r.seconds.clear();
    r.skipped = e;
    return r;
  }
  r.work = GemmFlops(n, n, n) * static_cast<double>(count);
  r.detail = std::to_string(count) + " GEMMs per repetition, workspace " +
             std::to_string(choice.workspaceSize >> 10) + " KiB";
  return r;
}

}  // namespace

std::vector<GpuBenchResult> RunGemmBenchmarks(const BenchContext& ctx,
                                              std::vector<std::string>* notes) {
  std::vector<GpuBenchResult> out;
  CublasLtApi lt;
  std::string error;
  cublasLtHandle_t handle = nullptr;
  if (lt.Load(&error)) {
    if (const cublasStatus_t s = lt.Create(&handle); s != CUBLAS_STATUS_SUCCESS) {
      error = LtError("cublasLtCreate", s);
      handle = nullptr;
    }
  }
  DeviceBuffer workspace(*ctx.cu);
  if (handle != nullptr) error = workspace.Allocate(kWorkspaceBytes);
  if (!error.empty()) {
    notes->push_back("no GEMM ceilings: " + error);
    for (const GemmCase& gemm : GemmCases()) {
      GpuBenchResult r;
      r.id = std::string(gemm.id);
      r.path = GemmPathOnDevice(gemm, ctx.roofs);
      r.name = "cublasLt GEMM (" + std::string(gemm.label) + ")";
      r.skipped = "cuBLASLt unavailable";
      out.push_back(std::move(r));
    }
    if (handle != nullptr) lt.Destroy(handle);
    return out;
  }
  notes->push_back("cuBLASLt " + std::to_string(lt.GetVersion()) + " from " + lt.path);
  for (const GemmCase& gemm : GemmCases()) {
    out.push_back(RunGemm(ctx, lt, handle, workspace.get(), gemm));
  }
  ctx.cu->StreamSynchronize(ctx.stream);
  lt.Destroy(handle);
  return out;
}

}  // namespace flopspy::gpuroof::cuda
