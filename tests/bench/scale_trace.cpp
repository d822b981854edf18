#include "scale_trace.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/trace/writer.h"

namespace flopspy::bench {
namespace {

constexpr uint32_t kThread = 1001;
constexpr uint32_t kSignaturesPerKernel = 2;  // two launch shapes of each kernel
constexpr uint64_t kUs = 1000;

enum class KernelKind { kElementwise, kReduce, kTriton, kGemm, kOther };

struct Kernel {
  std::string name;
  KernelKind kind;
};

std::vector<Kernel> KernelNames() {
  std::vector<Kernel> k;
  const char* types[] = {"float", "c10::Half", "c10::BFloat16"};
  const char* functors[] = {"MulFunctor",  "AddFunctor",     "DivFunctor",  "SubFunctor",
                            "MaxFunctor",  "MinFunctor",     "GeluFunctor", "SiluFunctor",
                            "ExpFunctor",  "SqrtFunctor",    "AbsFunctor",  "NegFunctor",
                            "TanhFunctor", "SigmoidFunctor", "FillFunctor", "CopyFunctor"};
  for (const char* t : types) {
    for (const char* f : functors) {
      const std::string op = std::string("at::native::") + f + "<" + t + ">";
      k.push_back({"void at::native::vectorized_elementwise_kernel<4, " + op +
                       ", at::detail::Array<char*, 3> >(int, " + op +
                       ", at::detail::Array<char*, 3>)",
                   KernelKind::kElementwise});
    }
    for (const char* r :
         {"func_wrapper_t", "MeanOps", "NormTwoOps", "MaxOps", "MinOps", "SumOps"}) {
      const std::string op = std::string("at::native::ReduceOp<") + t + ", at::native::" + r + "<" +
                             t + ">, unsigned int, " + t + ", 4>";
      k.push_back(
          {"void at::native::reduce_kernel<512, 1, " + op + " >(" + op + ")", KernelKind::kReduce});
    }
  }
  const char* triton[] = {"poi_fused_add_mul",  "poi_fused__to_copy_add",
                          "red_fused__softmax", "per_fused_native_layer_norm",
                          "poi_fused_gelu",     "red_fused_sum_mean"};
  for (int i = 0; i < 150; ++i) {
    k.push_back({"triton_" + std::string(triton[i % 6]) + "_" + std::to_string(i / 6),
                 KernelKind::kTriton});
  }
  const char* gemm_types[] = {"bf16bf16_bf16f32_f32", "f16f16_f16f32_f32", "tf32f32_f32f32_f32"};
  const char* layouts[] = {"tn", "nn", "nt", "tt"};
  const int tiles[] = {64, 128, 256, 192, 96};
  for (const char* t : gemm_types) {
    for (const char* l : layouts) {
      for (int tile : tiles) {
        k.push_back({std::string("sm90_xmma_gemm_") + t + "_" + l + "_n_tilesize" +
                         std::to_string(tile) +
                         "x128x64_warpgroupsize1x1x1_execute_segment_k_off"
                         "_kernel__5x_cublas",
                     KernelKind::kGemm});
      }
    }
  }
  const char* other[] = {
      "void at::native::(anonymous namespace)::layer_norm_kernel<float>(long, float, float const*, "
      "float const*, float const*, float*, float*, float*)",
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
      "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
      "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, "
      "2, -2, true>(at::cuda::detail::TensorInfo<float, unsigned int>)",
      "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, "
      "long>(long const*, float const*, float*, int, long, int, int)",
      "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda"
      "(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
      "const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, "
      "unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
      "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, "
      "{lambda(float)#1}, at::detail::Array<char*, 2>)",
      "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
  };
  for (int i = 0; i < 24; ++i) {
    k.push_back({std::string(other[i % 6]) + (i < 6 ? "" : " [" + std::to_string(i) + "]"),
                 KernelKind::kOther});
  }
  return k;
}

// Buffered output of the writer's chunks.
class FileSink {
 public:
  explicit FileSink(const std::string& path) : file_(std::fopen(path.c_str(), "wb")) {
    if (file_) std::setvbuf(file_, nullptr, _IOFBF, 4 << 20);
  }
  ~FileSink() {
    if (file_) std::fclose(file_);
  }
  bool ok() const { return file_ != nullptr && !failed_; }
  bool Write(std::span<const uint8_t> bytes) {
    failed_ = failed_ || std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size();
    return !failed_;
  }
  bool Close() {
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    return closed && !failed_;
  }

 private:
  std::FILE* file_;
  bool failed_ = false;
};

class Generator {
 public:
  Generator(trace::TraceWriter& writer, uint32_t seed)
      : writer_(writer), random_(seed), kernels_(KernelNames()) {
    thread_.Reset(trace::ChunkSource::kThread, kThread);
    gpu_.Reset(trace::ChunkSource::kGpuActivity, 0);
    process_.Reset(trace::ChunkSource::kProcess, 0);
  }

  void Definitions(uint64_t start_ns) {
    now_ = gpu_free_ = start_ns;
    Process().AppendMetadata(
        R"({"flopspy":{"version":"0.1.0","trace_format":1},)"
        R"("process":{"command":["python","train.py","--model","gpt2-medium"]},)"
        R"("config":{"gpu_timing":true},)"
        R"("devices":[{"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0,)"
        R"("sm_count":132,"clock_khz":1980000,"memory_clock_khz":2619000,)"
        R"("memory_bus_width_bits":5120,"l2_bytes":52428800,)"
        R"("total_memory_bytes":85520809984,"uuid":"GPU-scale","driver_version":"580.0"}]})");
    ++facts_.records;
    uint32_t string_id = 1;
    for (size_t f = 0; f < kernels_.size(); ++f) {
      const uint32_t name = string_id++;
      Define(Process().AppendString(name, kernels_[f].name));
      trace::FunctionDef fn{};
      fn.h = trace::MakeHeader<trace::FunctionDef>();
      fn.id = static_cast<uint32_t>(f + 1);
      fn.handle = 0x7f0000000000 + f * 64;
      fn.mangled_name = fn.demangled_name = name;
      fn.param_count = 3;
      fn.layout_count = 3;
      fn.param_offset[1] = 4, fn.param_offset[2] = 8;
      fn.param_size[0] = 4, fn.param_size[1] = 1, fn.param_size[2] = 24;
      Define(Process().Append(fn));
      for (uint32_t v = 0; v < kSignaturesPerKernel; ++v) {
        trace::KernelSignatureDef s{};
        s.h = trace::MakeHeader<trace::KernelSignatureDef>();
        s.id = static_cast<uint32_t>(f * kSignaturesPerKernel + v + 1);
        s.function = fn.id;
        s.name = name;
        s.grid[0] = (v + 1) * 1024 + static_cast<uint32_t>(f), s.grid[1] = s.grid[2] = 1;
        s.block[0] = 256, s.block[1] = s.block[2] = 1;
        Define(Process().Append(s));
      }
    }
    sgemm_name_ = string_id++;
    Define(Process().AppendString(sgemm_name_, "cublasGemmEx"));
    step_name_ = string_id++;
    Define(Process().AppendString(step_name_, "step"));
    thread_name_ = string_id++;
    Define(Process().AppendString(thread_name_, "pt_main_thread"));
    trace::ThreadDef thread{};
    thread.h = trace::MakeHeader<trace::ThreadDef>();
    thread.thread_id = kThread;
    thread.name = thread_name_;
    Define(Process().Append(thread));
    trace::StreamDef stream{};
    stream.h = trace::MakeHeader<trace::StreamDef>();
    stream.id = 1;
    stream.handle = 0x55aa00;
    Define(Process().Append(stream));
    Flush(process_);  // definitions come before any record that uses them
  }

  // One operator of the model: its kernel launch and GPU record, and now and then a copy, a
  // cuBLAS call, a synchronisation or a step boundary.
  void Operation() {
    ++ops_;
    if (ops_ % 2000 == 1) Region(trace::RegionEdge::kBegin);
    if (ops_ % 100 == 0) {
      LibraryCall();
    } else {
      // A skewed mix: a few kernels take most launches, as in a real model.
      const double u = std::uniform_real_distribution<double>(0, 1)(random_);
      const size_t kernel = static_cast<size_t>(u * u * u * static_cast<double>(kernels_.size()));
      LaunchAndRun(static_cast<uint32_t>(kernel), /*inside_library=*/false);
    }
    if (ops_ % 64 == 0) Copy();
    if (ops_ % 500 == 0) Synchronize();
    if (ops_ % 2000 == 0) Region(trace::RegionEdge::kEnd);
  }

  void Finish() {
    trace::TraceEndRecord end{};
    end.h = trace::MakeHeader<trace::TraceEndRecord>();
    end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
    end.time_ns = now_ + 1000 * kUs;
    end.records_written = facts_.records + 1;
    Flush(thread_);
    Flush(gpu_);
    Define(Process().Append(end));
    Flush(process_);
  }

  const ScaleTraceFacts& facts() const { return facts_; }

 private:
  trace::ChunkBuilder& Process() {
    if (!process_.Fits(64 * 1024)) Flush(process_);
    return process_;
  }
  void Define(bool appended) { facts_.records += appended ? 1 : 0; }

  void Flush(trace::ChunkBuilder& chunk) {
    const trace::ChunkSource source = chunk.source();
    const uint32_t thread = chunk.thread_id();
    writer_.WriteChunk(chunk);
    chunk.Reset(source, thread);
  }

  template <class T>
  void Add(trace::ChunkBuilder& chunk, const T& record) {
    if (!chunk.Fits(sizeof(T))) Flush(chunk);
    chunk.Append(record);
    ++facts_.records;
  }

  uint64_t Jitter(uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(random_);
  }

  uint64_t KernelNs(KernelKind kind) {
    switch (kind) {
      case KernelKind::kGemm:
        return Jitter(80 * kUs, 900 * kUs);
      case KernelKind::kReduce:
        return Jitter(10 * kUs, 60 * kUs);
      case KernelKind::kOther:
        return Jitter(20 * kUs, 200 * kUs);
      default:
        return Jitter(3 * kUs, 40 * kUs);
    }
  }

  void LaunchAndRun(uint32_t kernel, bool inside_library) {
    const uint32_t signature =
        kernel * kSignaturesPerKernel + static_cast<uint32_t>(Jitter(0, 1)) + 1;
    const uint64_t correlation = ++correlation_;
    trace::KernelLaunchRecord l{};
    l.h = trace::MakeHeader<trace::KernelLaunchRecord>(inside_library ? trace::kLaunchInsideLibrary
                                                                      : 0);
    l.api = static_cast<uint16_t>(trace::Api::kCudaLaunchKernel);
    l.enter_ns = now_;
    l.duration_ns = static_cast<uint32_t>(Jitter(2 * kUs, 7 * kUs));
    l.correlation = correlation;
    l.signature = signature;
    l.stream = 1;
    l.param_bytes = 4;
    const uint32_t n = (signature % 7 + 1) * 262144;
    std::memcpy(l.params, &n, 4);
    Add(thread_, l);
    ++facts_.launches;

    trace::GpuActivityRecord g{};
    g.h = trace::MakeHeader<trace::GpuActivityRecord>();
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    g.start_ns = std::max(gpu_free_, now_ + Jitter(4 * kUs, 12 * kUs));
    g.end_ns = g.start_ns + KernelNs(kernels_[kernel].kind);
    g.correlation = correlation;
    g.cupti_correlation = static_cast<uint32_t>(correlation);
    g.stream = 7;
    g.signature = signature;
    g.context = 1;
    Add(gpu_, g);
    ++facts_.gpu_records;
    gpu_free_ = g.end_ns;
    now_ += l.duration_ns + Jitter(1 * kUs, 6 * kUs);
  }

  void LibraryCall() {
    trace::LibraryCallRecord c{};
    c.h = trace::MakeHeader<trace::LibraryCallRecord>();
    c.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kGemm);
    c.enter_ns = now_;
    c.correlation = ++correlation_;
    const int64_t sizes[] = {1024, 2048, 3072, 4096, 1000};
    c.m = sizes[Jitter(0, 4)], c.n = sizes[Jitter(0, 4)], c.k = sizes[Jitter(0, 3)];
    c.batch = 1;
    c.lda = c.m, c.ldb = c.k, c.ldc = c.ldd = c.m;
    c.type_a = c.type_b = c.type_c = c.type_d = analyzers::cuda_type::kR16BF;
    c.compute_type = analyzers::compute_type::k32F;
    c.scale_type = analyzers::cuda_type::kR32F;
    c.side = c.uplo = c.diag = 0xFF;
    c.epilogue = 1;
    c.flags = trace::kLibBetaKnown | trace::kLibAlphaKnown;
    c.ptr_align = 0x08080808;
    c.stream = 1;
    c.name = sgemm_name_;
    c.flops = 2.0 * static_cast<double>(c.m * c.n * c.k);
    c.bytes = 2.0 * static_cast<double>(c.m * c.k + c.k * c.n + c.m * c.n);
    c.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
    const uint32_t gemm = 48 + 18 + 150 + static_cast<uint32_t>(Jitter(0, 59));
    LaunchAndRun(gemm, /*inside_library=*/true);
    c.exit_ns = now_;
    Add(thread_, c);
    ++facts_.library_calls;
  }

  void Copy() {
    trace::ApiCallRecord a{};
    a.h = trace::MakeHeader<trace::ApiCallRecord>();
    a.api = static_cast<uint16_t>(trace::Api::kCudaMemcpyAsync);
    a.enter_ns = now_;
    a.exit_ns = now_ + Jitter(3 * kUs, 9 * kUs);
    a.correlation = ++correlation_;
    a.stream = 0x55aa00;
    a.bytes = 4 << 20;
    a.detail = static_cast<uint32_t>(trace::CopyKind::kHostToDevice) |
               static_cast<uint32_t>(trace::MemoryKind::kPinned) << 8 |
               static_cast<uint32_t>(trace::MemoryKind::kDevice) << 16;
    Add(thread_, a);
    trace::GpuActivityRecord g{};
    g.h = trace::MakeHeader<trace::GpuActivityRecord>();
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy);
    g.copy_kind = static_cast<uint8_t>(trace::CopyKind::kHostToDevice);
    g.src_kind = static_cast<uint8_t>(trace::MemoryKind::kPinned);
    g.dst_kind = static_cast<uint8_t>(trace::MemoryKind::kDevice);
    g.start_ns = std::max(gpu_free_, a.exit_ns);
    g.end_ns = g.start_ns + 200 * kUs;  // 4 MiB at about 20 GB/s
    g.correlation = a.correlation;
    g.stream = 7;
    g.bytes = a.bytes;
    Add(gpu_, g);
    gpu_free_ = g.end_ns;
    now_ = a.exit_ns;
  }

  void Synchronize() {
    trace::ApiCallRecord a{};
    a.h = trace::MakeHeader<trace::ApiCallRecord>(trace::kApiCallSynchronizing);
    a.api = static_cast<uint16_t>(trace::Api::kCudaStreamSynchronize);
    a.enter_ns = now_;
    a.exit_ns = std::max(now_, gpu_free_) + 3 * kUs;
    a.stream = 0x55aa00;
    Add(thread_, a);
    now_ = a.exit_ns;
  }

  void Region(trace::RegionEdge edge) {
    trace::RegionRecord r{};
    r.h = trace::MakeHeader<trace::RegionRecord>();
    r.edge = static_cast<uint8_t>(edge);
    r.time_ns = now_;
    r.name = step_name_;
    Add(thread_, r);
  }

  trace::TraceWriter& writer_;
  std::mt19937_64 random_;
  std::vector<Kernel> kernels_;
  trace::ChunkBuilder thread_{1u << 20}, gpu_{1u << 20}, process_{1u << 20};
  ScaleTraceFacts facts_;
  uint64_t now_ = 0, gpu_free_ = 0, correlation_ = 0, ops_ = 0;
  uint32_t sgemm_name_ = 0, step_name_ = 0, thread_name_ = 0;
};

}  // namespace

size_t ScaleTraceKernelNames() {
  return KernelNames().size();
}

bool WriteScaleTrace(const std::string& path, uint64_t records, uint32_t seed, int32_t rank,
                     bool compressed, ScaleTraceFacts* facts, std::string* error) {
  FileSink sink(path);
  if (!sink.ok()) {
    *error = "cannot write " + path;
    return false;
  }
  trace::TraceWriter writer([&sink](std::span<const uint8_t> b) { return sink.Write(b); });
  trace::FileIdentity id;
  id.pid = 30000 + static_cast<uint32_t>(rank < 0 ? 0 : rank);
  id.rank = rank;
  id.local_rank = rank;
  id.start_realtime_ns = 1'760'000'000'000'000'000ull;
  id.start_monotonic_ns = 50'000'000'000ull;
  id.run_id = 7;
  id.host = "bench-node";
  id.compressed_chunks = compressed;
  if (compressed) writer.SetCompression(trace::kDefaultCompressionLevel);
  writer.WriteHeader(trace::MakeFileHeader(id));
  Generator g(writer, seed);
  g.Definitions(id.start_monotonic_ns + 1000);
  while (g.facts().records < records) g.Operation();
  g.Finish();
  if (!sink.Close()) {
    *error = "write error in " + path;
    return false;
  }
  *facts = g.facts();
  facts->bytes = writer.bytes_written();
  return true;
}

}  // namespace flopspy::bench
