// The FMA chains keep every accumulator in a register: no memory barrier inside the loop (one
// forces the accumulators through memory and halves throughput:
// docs/cpu-counters-notes.md, "Peak FMA throughput per core").
#include "ceilings_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace flopspy::cpuroof::kernels {

namespace {

// Read at run time so the compiler cannot evaluate the chains (a chain that converges to a fixed
// point in float would otherwise be folded away).
volatile double kStart = 1.0;
volatile double kMultiplier = 0.9999999;
volatile double kAddend = 1e-7;

// Declares a kernel template for one ISA and element type; VEC is the register type.
#define FLOPSPY_FMA_KERNEL(NAME, TARGET, VEC, ELEM, LANES, SET1, STEP, STOREU) \
  template <int N>                                                             \
  TARGET double NAME(uint64_t iterations, double* sink) {                      \
    VEC acc[N];                                                                \
    _Pragma("GCC unroll 32") for (int i = 0; i < N; ++i) {                     \
      acc[i] = SET1(static_cast<ELEM>(kStart + 0.001 * i));                    \
    }                                                                          \
    const VEC b = SET1(static_cast<ELEM>(kMultiplier));                        \
    const VEC c = SET1(static_cast<ELEM>(kAddend));                            \
    for (uint64_t it = 0; it < iterations; ++it) {                             \
      _Pragma("GCC unroll 32") for (int i = 0; i < N; ++i) {                   \
        acc[i] = STEP(acc[i], b, c);                                           \
      }                                                                        \
    }                                                                          \
    ELEM lanes[LANES * N];                                                     \
    _Pragma("GCC unroll 32") for (int i = 0; i < N; ++i) {                     \
      STOREU(lanes + LANES * i, acc[i]);                                       \
    }                                                                          \
    double sum = 0;                                                            \
    for (int i = 0; i < LANES * N; ++i) sum += static_cast<double>(lanes[i]);  \
    *sink += sum;                                                              \
    return 2.0 * LANES * N * static_cast<double>(iterations);                  \
  }

#define FLOPSPY_NO_TARGET

// Portable scalar chains: the compiler keeps them scalar (ISO mode: no contraction to FMA).
inline double ScalarSet(double v) {
  return v;
}
inline float ScalarSetF(float v) {
  return v;
}
inline double ScalarStep(double a, double b, double c) {
  return a * b + c;
}
inline float ScalarStepF(float a, float b, float c) {
  return a * b + c;
}
inline void ScalarStore(double* p, double v) {
  *p = v;
}
inline void ScalarStoreF(float* p, float v) {
  *p = v;
}
FLOPSPY_FMA_KERNEL(ScalarDp, FLOPSPY_NO_TARGET, double, double, 1, ScalarSet, ScalarStep,
                   ScalarStore)
FLOPSPY_FMA_KERNEL(ScalarSp, FLOPSPY_NO_TARGET, float, float, 1, ScalarSetF, ScalarStepF,
                   ScalarStoreF)

#if defined(__x86_64__)
#define FLOPSPY_TARGET_FMA __attribute__((target("fma")))
#define FLOPSPY_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define FLOPSPY_TARGET_AVX512 __attribute__((target("avx512f")))

FLOPSPY_TARGET_FMA inline double FmaScalar(double a, double b, double c) {
  return __builtin_fma(a, b, c);
}
FLOPSPY_TARGET_FMA inline float FmaScalarF(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}
FLOPSPY_FMA_KERNEL(ScalarFmaDp, FLOPSPY_TARGET_FMA, double, double, 1, ScalarSet, FmaScalar,
                   ScalarStore)
FLOPSPY_FMA_KERNEL(ScalarFmaSp, FLOPSPY_TARGET_FMA, float, float, 1, ScalarSetF, FmaScalarF,
                   ScalarStoreF)

// SSE2 (baseline): separate multiply and add.
inline __m128d SseStep(__m128d a, __m128d b, __m128d c) {
  return _mm_add_pd(_mm_mul_pd(a, b), c);
}
inline __m128 SseStepF(__m128 a, __m128 b, __m128 c) {
  return _mm_add_ps(_mm_mul_ps(a, b), c);
}
FLOPSPY_FMA_KERNEL(SseDp, FLOPSPY_NO_TARGET, __m128d, double, 2, _mm_set1_pd, SseStep,
                   _mm_storeu_pd)
FLOPSPY_FMA_KERNEL(SseSp, FLOPSPY_NO_TARGET, __m128, float, 4, _mm_set1_ps, SseStepF, _mm_storeu_ps)
// 128-bit FMA where the CPU has FMA3.
FLOPSPY_FMA_KERNEL(SseFmaDp, FLOPSPY_TARGET_FMA, __m128d, double, 2, _mm_set1_pd, _mm_fmadd_pd,
                   _mm_storeu_pd)
FLOPSPY_FMA_KERNEL(SseFmaSp, FLOPSPY_TARGET_FMA, __m128, float, 4, _mm_set1_ps, _mm_fmadd_ps,
                   _mm_storeu_ps)
FLOPSPY_FMA_KERNEL(Avx2Dp, FLOPSPY_TARGET_AVX2, __m256d, double, 4, _mm256_set1_pd, _mm256_fmadd_pd,
                   _mm256_storeu_pd)
FLOPSPY_FMA_KERNEL(Avx2Sp, FLOPSPY_TARGET_AVX2, __m256, float, 8, _mm256_set1_ps, _mm256_fmadd_ps,
                   _mm256_storeu_ps)
FLOPSPY_FMA_KERNEL(Avx512Dp, FLOPSPY_TARGET_AVX512, __m512d, double, 8, _mm512_set1_pd,
                   _mm512_fmadd_pd, _mm512_storeu_pd)
FLOPSPY_FMA_KERNEL(Avx512Sp, FLOPSPY_TARGET_AVX512, __m512, float, 16, _mm512_set1_ps,
                   _mm512_fmadd_ps, _mm512_storeu_ps)

bool HasFma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma");
}
#endif  // __x86_64__

#if defined(__aarch64__)
inline float64x2_t NeonStep(float64x2_t a, float64x2_t b, float64x2_t c) {
  return vfmaq_f64(c, a, b);
}
inline float32x4_t NeonStepF(float32x4_t a, float32x4_t b, float32x4_t c) {
  return vfmaq_f32(c, a, b);
}
FLOPSPY_FMA_KERNEL(NeonDp, FLOPSPY_NO_TARGET, float64x2_t, double, 2, vdupq_n_f64, NeonStep,
                   vst1q_f64)
FLOPSPY_FMA_KERNEL(NeonSp, FLOPSPY_NO_TARGET, float32x4_t, float, 4, vdupq_n_f32, NeonStepF,
                   vst1q_f32)
#endif

using KernelFn = double (*)(uint64_t, double*);

#define FLOPSPY_PICK(FN, N) \
  switch (N) {              \
    case 1:                 \
      return &FN<1>;        \
    case 2:                 \
      return &FN<2>;        \
    case 4:                 \
      return &FN<4>;        \
    case 8:                 \
      return &FN<8>;        \
    case 12:                \
      return &FN<12>;       \
    default:                \
      break;                \
  }
#define FLOPSPY_PICK16(FN, N) \
  switch (N) {                \
    case 1:                   \
      return &FN<1>;          \
    case 2:                   \
      return &FN<2>;          \
    case 4:                   \
      return &FN<4>;          \
    case 8:                   \
      return &FN<8>;          \
    case 12:                  \
      return &FN<12>;         \
    case 16:                  \
      return &FN<16>;         \
    case 24:                  \
      return &FN<24>;         \
    default:                  \
      break;                  \
  }

KernelFn Pick(Isa isa, bool dp, int n) {
  switch (isa) {
    case Isa::kScalar:
#if defined(__x86_64__)
      if (HasFma()) {
        if (dp) FLOPSPY_PICK(ScalarFmaDp, n) else FLOPSPY_PICK(ScalarFmaSp, n) return nullptr;
      }
#endif
      if (dp) FLOPSPY_PICK(ScalarDp, n) else FLOPSPY_PICK(ScalarSp, n) return nullptr;
#if defined(__x86_64__)
    case Isa::kSse:
      if (HasFma()) {
        if (dp) FLOPSPY_PICK(SseFmaDp, n) else FLOPSPY_PICK(SseFmaSp, n) return nullptr;
      }
      if (dp) FLOPSPY_PICK(SseDp, n) else FLOPSPY_PICK(SseSp, n) return nullptr;
    case Isa::kAvx2:
      if (dp) FLOPSPY_PICK(Avx2Dp, n) else FLOPSPY_PICK(Avx2Sp, n) return nullptr;
    case Isa::kAvx512:
      if (dp) FLOPSPY_PICK16(Avx512Dp, n) else FLOPSPY_PICK16(Avx512Sp, n) return nullptr;
#endif
#if defined(__aarch64__)
    case Isa::kNeon:
      if (dp) FLOPSPY_PICK16(NeonDp, n) else FLOPSPY_PICK16(NeonSp, n) return nullptr;
#endif
    default:
      return nullptr;
  }
}

}  // namespace

// 1 and 2 are compiled too (RunFma accepts them), for tests of latency-bound chains.
std::vector<int> AccumulatorChoices(Isa isa) {
  // 16 vector registers hold at most 12 chains plus the two operands; AVX-512 and NEON have 32.
  if (isa == Isa::kAvx512 || isa == Isa::kNeon) return {4, 8, 12, 16, 24};
  return {4, 8, 12};
}

double RunFma(Isa isa, bool dp, int accumulators, uint64_t iterations, double* sink) {
  KernelFn fn = Pick(isa, dp, accumulators);
  if (!fn) return 0;
  return fn(iterations, sink);
}

// --- bandwidth -------------------------------------------------------------------------------

namespace {

#if !defined(__x86_64__)
double LoadPortable(const double* a, size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = 0; i < n; i += 4) {
    s0 += a[i];
    s1 += a[i + 1];
    s2 += a[i + 2];
    s3 += a[i + 3];
  }
  return s0 + s1 + s2 + s3;
}
void StorePortable(double* a, size_t n, double v) {
  for (size_t i = 0; i < n; ++i) a[i] = v;
}
void CopyPortable(double* dst, const double* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = src[i];
}
void TriadPortable(double* a, const double* b, const double* c, double s, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}
#endif

#if defined(__x86_64__)
double LoadSse(const double* a, size_t n) {
  __m128d s0 = _mm_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i < n; i += 8) {
    s0 = _mm_add_pd(s0, _mm_load_pd(a + i));
    s1 = _mm_add_pd(s1, _mm_load_pd(a + i + 2));
    s2 = _mm_add_pd(s2, _mm_load_pd(a + i + 4));
    s3 = _mm_add_pd(s3, _mm_load_pd(a + i + 6));
  }
  double out[2];
  _mm_storeu_pd(out, _mm_add_pd(_mm_add_pd(s0, s1), _mm_add_pd(s2, s3)));
  return out[0] + out[1];
}
void StoreSse(double* a, size_t n, double v) {
  const __m128d x = _mm_set1_pd(v);
  for (size_t i = 0; i < n; i += 2) _mm_store_pd(a + i, x);
}
void CopySse(double* dst, const double* src, size_t n) {
  for (size_t i = 0; i < n; i += 2) _mm_store_pd(dst + i, _mm_load_pd(src + i));
}
void TriadSse(double* a, const double* b, const double* c, double s, size_t n) {
  const __m128d x = _mm_set1_pd(s);
  for (size_t i = 0; i < n; i += 2) {
    _mm_store_pd(a + i, _mm_add_pd(_mm_load_pd(b + i), _mm_mul_pd(x, _mm_load_pd(c + i))));
  }
}

FLOPSPY_TARGET_AVX2 double LoadAvx2(const double* a, size_t n) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i < n; i += 16) {
    s0 = _mm256_add_pd(s0, _mm256_load_pd(a + i));
    s1 = _mm256_add_pd(s1, _mm256_load_pd(a + i + 4));
    s2 = _mm256_add_pd(s2, _mm256_load_pd(a + i + 8));
    s3 = _mm256_add_pd(s3, _mm256_load_pd(a + i + 12));
  }
  double out[4];
  _mm256_storeu_pd(out, _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)));
  return out[0] + out[1] + out[2] + out[3];
}
FLOPSPY_TARGET_AVX2 void StoreAvx2(double* a, size_t n, double v) {
  const __m256d x = _mm256_set1_pd(v);
  for (size_t i = 0; i < n; i += 4) _mm256_store_pd(a + i, x);
}
FLOPSPY_TARGET_AVX2 void CopyAvx2(double* dst, const double* src, size_t n) {
  for (size_t i = 0; i < n; i += 4) _mm256_store_pd(dst + i, _mm256_load_pd(src + i));
}
FLOPSPY_TARGET_AVX2 void TriadAvx2(double* a, const double* b, const double* c, double s,
                                   size_t n) {
  const __m256d x = _mm256_set1_pd(s);
  for (size_t i = 0; i < n; i += 4) {
    _mm256_store_pd(a + i, _mm256_fmadd_pd(x, _mm256_load_pd(c + i), _mm256_load_pd(b + i)));
  }
}

FLOPSPY_TARGET_AVX512 double LoadAvx512(const double* a, size_t n) {
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i < n; i += 32) {
    s0 = _mm512_add_pd(s0, _mm512_load_pd(a + i));
    s1 = _mm512_add_pd(s1, _mm512_load_pd(a + i + 8));
    s2 = _mm512_add_pd(s2, _mm512_load_pd(a + i + 16));
    s3 = _mm512_add_pd(s3, _mm512_load_pd(a + i + 24));
  }
  double out[8];
  _mm512_storeu_pd(out, _mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)));
  double sum = 0;
  for (double v : out) sum += v;
  return sum;
}
FLOPSPY_TARGET_AVX512 void StoreAvx512(double* a, size_t n, double v) {
  const __m512d x = _mm512_set1_pd(v);
  for (size_t i = 0; i < n; i += 8) _mm512_store_pd(a + i, x);
}
FLOPSPY_TARGET_AVX512 void CopyAvx512(double* dst, const double* src, size_t n) {
  for (size_t i = 0; i < n; i += 8) _mm512_store_pd(dst + i, _mm512_load_pd(src + i));
}
FLOPSPY_TARGET_AVX512 void TriadAvx512(double* a, const double* b, const double* c, double s,
                                       size_t n) {
  const __m512d x = _mm512_set1_pd(s);
  for (size_t i = 0; i < n; i += 8) {
    _mm512_store_pd(a + i, _mm512_fmadd_pd(x, _mm512_load_pd(c + i), _mm512_load_pd(b + i)));
  }
}
#endif  // __x86_64__

}  // namespace

Isa BandwidthIsa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
  return Isa::kSse;
#else
  return Isa::kScalar;
#endif
}

double Load(const double* a, size_t n) {
#if defined(__x86_64__)
  switch (BandwidthIsa()) {
    case Isa::kAvx512:
      return LoadAvx512(a, n);
    case Isa::kAvx2:
      return LoadAvx2(a, n);
    default:
      return LoadSse(a, n);
  }
#else
  return LoadPortable(a, n);
#endif
}

void Store(double* a, size_t n, double value) {
#if defined(__x86_64__)
  switch (BandwidthIsa()) {
    case Isa::kAvx512:
      return StoreAvx512(a, n, value);
    case Isa::kAvx2:
      return StoreAvx2(a, n, value);
    default:
      return StoreSse(a, n, value);
  }
#else
  StorePortable(a, n, value);
#endif
}

void Copy(double* dst, const double* src, size_t n) {
#if defined(__x86_64__)
  switch (BandwidthIsa()) {
    case Isa::kAvx512:
      return CopyAvx512(dst, src, n);
    case Isa::kAvx2:
      return CopyAvx2(dst, src, n);
    default:
      return CopySse(dst, src, n);
  }
#else
  CopyPortable(dst, src, n);
#endif
}

void Triad(double* a, const double* b, const double* c, double s, size_t n) {
#if defined(__x86_64__)
  switch (BandwidthIsa()) {
    case Isa::kAvx512:
      return TriadAvx512(a, b, c, s, n);
    case Isa::kAvx2:
      return TriadAvx2(a, b, c, s, n);
    default:
      return TriadSse(a, b, c, s, n);
  }
#else
  TriadPortable(a, b, c, s, n);
#endif
}

}  // namespace flopspy::cpuroof::kernels
