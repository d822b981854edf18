// Calls every entry point of the cuBLAS handle and legacy APIs that flopspy hooks, once each,
// with distinctive arguments, and says what the record of each call must hold. The argument
// order here is transcribed from cublas_api.h / cublas.h independently of the hooks' decoders:
// the compiler checks the types against NVIDIA's headers, the test checks the meaning.
#include "client_cublas.h"

#include <iterator>
#include <string>
#include <vector>

#include "fake_cublas.h"
#include "flopspy/trace/schema.h"
#include "hooks_cublas_table.h"

namespace flopspy::cublas_client {
namespace {

using trace::kLibAlphaKnown;
using trace::kLibBatchedPointers;
using trace::kLibBetaKnown;
using trace::kLibBetaNonZero;
using trace::kLibGrouped;
using trace::kLibGroupsFollow;

constexpr long long kBig = 1ll << 32;  // _64 forms get sizes that do not fit in an int

template <class T>
std::string ValueText(const T& v) {
  char buf[64];
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    std::snprintf(buf, sizeof buf, "value=%g", static_cast<double>(v));
  } else {
    std::snprintf(buf, sizeof buf, "value=(%g,%g)", static_cast<double>(v.x),
                  static_cast<double>(v.y));
  }
  return buf;
}

class Client {
 public:
  struct Call {
    bool host;
    bool beta_nz;
    int status;
  };

  Client(Sink& sink, cublasHandle_t handle) : sink_(sink), h_(handle) {}

  // --- Level 3 -----------------------------------------------------------------------------
  template <class I, class T1, class T2, class T3, class Fn>
  void Gemm(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const auto ta = Op(0), tb = Op(1);
    const I m = Dim<I>(10), n = Dim<I>(20), k = Dim<I>(30);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000);
    const auto s = fn(h_, ta, tb, m, n, k, HostScalar<T1>(true), Ptr<T1>(0), lda, Ptr<T1>(1), ldb,
                      HostScalar<T1>(c.beta_nz), Out<T1>(2), ldc);
    GemmFields(e, ta, tb, m, n, k, lda, ldb, ldc);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemmBatched(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const auto ta = Op(0), tb = Op(1);
    const I m = Dim<I>(10), n = Dim<I>(20), k = Dim<I>(30);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000), batch = Dim<I>(2);
    const auto s = fn(h_, ta, tb, m, n, k, HostScalar<T1>(true), Arr<T1>(0), lda, Arr<T1>(1), ldb,
                      HostScalar<T1>(c.beta_nz), OutArr<T1>(2), ldc, batch);
    GemmFields(e, ta, tb, m, n, k, lda, ldb, ldc);
    e.Set("batch", batch);
    Scalars(e, c, kLibBatchedPointers);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemmStrided(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const auto ta = Op(0), tb = Op(1);
    const I m = Dim<I>(10), n = Dim<I>(20), k = Dim<I>(30);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000), batch = Dim<I>(2);
    const long long sa = 100000 + i_, sb = i_ % 4 == 0 ? 0 : 200000 + i_, sc = 300000 + i_;
    const auto s = fn(h_, ta, tb, m, n, k, HostScalar<T1>(true), Ptr<T1>(0), lda, sa, Ptr<T1>(1),
                      ldb, sb, HostScalar<T1>(c.beta_nz), Out<T1>(2), ldc, sc, batch);
    GemmFields(e, ta, tb, m, n, k, lda, ldb, ldc);
    e.Set("batch", batch).Set("stride_a", sa).Set("stride_b", sb).Set("stride_c", sc);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  // SgemmEx (float scalars) and CgemmEx, Cgemm3mEx (complex): operand types by argument.
  template <class I, class T1, class T2, class T3, class Fn>
  void GemmExTyped(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const auto ta = Op(0), tb = Op(1);
    const I m = Dim<I>(10), n = Dim<I>(20), k = Dim<I>(30);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000);
    static constexpr cudaDataType kReal[][3] = {{CUDA_R_32F, CUDA_R_32F, CUDA_R_32F},
                                                {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F},
                                                {CUDA_R_8I, CUDA_R_8I, CUDA_R_32F}};
    static constexpr cudaDataType kComplex[][3] = {{CUDA_C_32F, CUDA_C_32F, CUDA_C_32F},
                                                   {CUDA_C_8I, CUDA_C_8I, CUDA_C_32F}};
    const cudaDataType* t = std::is_same_v<T1, float> ? kReal[i_ % 3] : kComplex[i_ % 2];
    const auto s = fn(h_, ta, tb, m, n, k, HostScalar<T1>(true), Ptr<void>(0), t[0], lda,
                      Ptr<void>(1), t[1], ldb, HostScalar<T1>(c.beta_nz), Out<void>(2), t[2], ldc);
    GemmFields(e, ta, tb, m, n, k, lda, ldb, ldc);
    e.Set("type_a", t[0]).Set("type_b", t[1]).Set("type_c", t[2]);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  // GemmEx and its batched forms: A, B, C types, compute type and the scale type it implies.
  struct ExCase {
    cudaDataType a, b, c;
    cublasComputeType_t compute;
    cudaDataType scale;
  };
  const ExCase& NextExCase() const {
    static constexpr ExCase kCases[] = {
        {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F},
        {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F},
        {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F},
        {CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I},
        {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F},
        {CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_C_32F},
        {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, CUDA_R_16F},
        {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, CUDA_R_32F},
    };
    return kCases[i_ % std::size(kCases)];
  }
  void ExFields(Expect& e, const ExCase& x) {
    e.Set("type_a", x.a).Set("type_b", x.b).Set("type_c", x.c);
    e.Set("compute_type", x.compute - 64).Set("scale_type", x.scale);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemmEx(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const ExCase& x = NextExCase();
    const auto ta = Op(0), tb = Op(1);
    const I m = Dim<I>(10), n = Dim<I>(20), k = Dim<I>(30);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000);
    const TypedScalar alpha(x.scale, true), beta(x.scale, c.beta_nz);
    const auto s = fn(h_, ta, tb, m, n, k, alpha.bytes, Ptr<void>(0), x.a, lda, Ptr<void>(1), x.b,
                      ldb, beta.bytes, Out<void>(2), x.c, ldc, x.compute, CUBLAS_GEMM_DEFAULT);
    GemmFields(e, ta, tb, m, n, k, lda, ldb, ldc);
    ExFields(e, x);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemmBatchedEx(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const ExCase& x = NextExCase();
    const auto ta = Op(0), tb = Op(1);
    const I m = Dim<I>(10), n = Dim<I>(20), k = Dim<I>(30);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000), batch = Dim<I>(2);
    const TypedScalar alpha(x.scale, true), beta(x.scale, c.beta_nz);
    const auto s =
        fn(h_, ta, tb, m, n, k, alpha.bytes, Arr<void>(0), x.a, lda, Arr<void>(1), x.b, ldb,
           beta.bytes, OutArr<void>(2), x.c, ldc, batch, x.compute, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
    GemmFields(e, ta, tb, m, n, k, lda, ldb, ldc);
    ExFields(e, x);
    e.Set("batch", batch);
    Scalars(e, c, kLibBatchedPointers);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemmStridedEx(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const ExCase& x = NextExCase();
    const auto ta = Op(0), tb = Op(1);
    const I m = Dim<I>(10), n = Dim<I>(20), k = Dim<I>(30);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000), batch = Dim<I>(2);
    const long long sa = 100000 + i_, sb = 0, sc = 300000 + i_;  // B broadcast, as bmm of expand
    const TypedScalar alpha(x.scale, true), beta(x.scale, c.beta_nz);
    const auto s =
        fn(h_, ta, tb, m, n, k, alpha.bytes, Ptr<void>(0), x.a, lda, sa, Ptr<void>(1), x.b, ldb, sb,
           beta.bytes, Out<void>(2), x.c, ldc, sc, batch, x.compute, CUBLAS_GEMM_DEFAULT);
    GemmFields(e, ta, tb, m, n, k, lda, ldb, ldc);
    ExFields(e, x);
    e.Set("batch", batch).Set("stride_a", sa).Set("stride_b", sb).Set("stride_c", sc);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  // Grouped: host arrays of per-group parameters. Even calls use one shape for every group (an
  // exact record: batch = all problems), odd calls vary m (first group + kLibGrouped).
  template <class I>
  struct Groups {
    int count;
    bool same;
    std::vector<cublasOperation_t> ta, tb;
    std::vector<I> m, n, k, lda, ldb, ldc, size;
  };
  template <class I>
  Groups<I> MakeGroups() {
    Groups<I> g;
    g.count = 1 + i_ % 3;
    g.same = g.count == 1 || i_ % 2 == 0;
    for (int j = 0; j < g.count; ++j) {
      g.ta.push_back(Op(0));
      g.tb.push_back(Op(1));
      g.m.push_back(Dim<I>(10) + (g.same ? 0 : j));
      g.n.push_back(Dim<I>(20));
      g.k.push_back(Dim<I>(30));
      g.lda.push_back(Dim<I>(1000));
      g.ldb.push_back(Dim<I>(2000));
      g.ldc.push_back(Dim<I>(3000));
      g.size.push_back(static_cast<I>(2 + j));
    }
    return g;
  }
  template <class I>
  void GroupFields(Expect& e, const Groups<I>& g, const Call& c) {
    GemmFields(e, g.ta[0], g.tb[0], g.m[0], g.n[0], g.k[0], g.lda[0], g.ldb[0], g.ldc[0]);
    long long problems = 0;
    for (const I s : g.size) problems += s;
    // The first group's beta is the call's beta pattern, the others are zero: groups of one
    // shape still differ when those betas were read and differ.
    const bool same = g.same && (g.count == 1 || !c.host || !c.beta_nz);
    e.Set("batch", same ? problems : g.count);
    // Groups that differ go with the call, each (m = first m + step * j, size 2 + j).
    if (!same) e.Set("groups", g.count).Set("group_m0", g.m[0]).Set("group_m_step", !g.same);
    Scalars(e, c, kLibBatchedPointers | (same ? 0u : kLibGrouped | kLibGroupsFollow));
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemmGrouped(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const Groups<I> g = MakeGroups<I>();
    std::vector<T1> alpha(g.count, *HostScalar<T1>(true));
    std::vector<T1> beta(g.count, *HostScalar<T1>(false));
    beta[0] = *HostScalar<T1>(c.beta_nz);
    const auto s = fn(h_, g.ta.data(), g.tb.data(), g.m.data(), g.n.data(), g.k.data(),
                      alpha.data(), Arr<T1>(0), g.lda.data(), Arr<T1>(1), g.ldb.data(), beta.data(),
                      OutArr<T1>(2), g.ldc.data(), static_cast<I>(g.count), g.size.data());
    GroupFields(e, g, c);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemmGroupedEx(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    static constexpr ExCase kCases[] = {
        {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F},
        {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F},
        {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F}};
    const ExCase& x = kCases[i_ % 3];
    const Groups<I> g = MakeGroups<I>();
    const size_t bytes = x.scale == CUDA_R_64F ? 8 : 4;
    std::vector<unsigned char> alpha(bytes * g.count), beta(bytes * g.count, 0);
    for (int j = 0; j < g.count; ++j) {
      std::memcpy(&alpha[j * bytes], TypedScalar(x.scale, true).bytes, bytes);
    }
    std::memcpy(beta.data(), TypedScalar(x.scale, c.beta_nz).bytes, bytes);
    const auto s =
        fn(h_, g.ta.data(), g.tb.data(), g.m.data(), g.n.data(), g.k.data(), alpha.data(),
           Arr<void>(0), x.a, g.lda.data(), Arr<void>(1), x.b, g.ldb.data(), beta.data(),
           OutArr<void>(2), x.c, g.ldc.data(), static_cast<I>(g.count), g.size.data(), x.compute);
    GroupFields(e, g, c);
    ExFields(e, x);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Trsm(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    const I m = Dim<I>(10), n = Dim<I>(20), lda = Dim<I>(1000), ldb = Dim<I>(2000);
    const auto s = fn(h_, Side(), Fill(), Op(0), Diag(), m, n, HostScalar<T1>(true), Ptr<T1>(0),
                      lda, Out<T1>(1), ldb);
    TriangularFields(e, m, n, lda, ldb);
    Align(e, 0, 1, -1, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void TrsmBatched(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    const I m = Dim<I>(10), n = Dim<I>(20), lda = Dim<I>(1000), ldb = Dim<I>(2000);
    const I batch = Dim<I>(2);
    const auto s = fn(h_, Side(), Fill(), Op(0), Diag(), m, n, HostScalar<T1>(true), Arr<T1>(0),
                      lda, OutArr<T1>(1), ldb, batch);
    TriangularFields(e, m, n, lda, ldb);
    e.Set("batch", batch).Set("flags", kLibBatchedPointers);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Trmm(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    const I m = Dim<I>(10), n = Dim<I>(20), lda = Dim<I>(1000), ldb = Dim<I>(2000);
    const I ldc = Dim<I>(3000);
    const auto s = fn(h_, Side(), Fill(), Op(0), Diag(), m, n, HostScalar<T1>(true), Ptr<T1>(0),
                      lda, Ptr<T1>(1), ldb, Out<T1>(2), ldc);
    TriangularFields(e, m, n, lda, ldb);
    e.Set("ldc", ldc);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Symm(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const I m = Dim<I>(10), n = Dim<I>(20);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000);
    const auto s = fn(h_, Side(), Fill(), m, n, HostScalar<T1>(true), Ptr<T1>(0), lda, Ptr<T1>(1),
                      ldb, HostScalar<T1>(c.beta_nz), Out<T1>(2), ldc);
    e.Set("side", Side()).Set("uplo", Fill()).Set("m", m).Set("n", n);
    e.Set("lda", lda).Set("ldb", ldb).Set("ldc", ldc);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Syrk(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const I n = Dim<I>(20), k = Dim<I>(30), lda = Dim<I>(1000), ldc = Dim<I>(3000);
    const auto s = fn(h_, Fill(), Op(0), n, k, HostScalar<T2>(true), Ptr<T1>(0), lda,
                      HostScalar<T2>(c.beta_nz), Out<T1>(2), ldc);
    RankKFields(e, n, k, lda, ldc);
    Scalars(e, c);
    Align(e, 0, -1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void SyrkEx(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const I n = Dim<I>(20), k = Dim<I>(30), lda = Dim<I>(1000), ldc = Dim<I>(3000);
    const cudaDataType ta = i_ % 2 == 0 ? CUDA_C_32F : CUDA_C_8I, tc = CUDA_C_32F;
    const auto s = fn(h_, Fill(), Op(0), n, k, HostScalar<T1>(true), Ptr<void>(0), ta, lda,
                      HostScalar<T1>(c.beta_nz), Out<void>(2), tc, ldc);
    RankKFields(e, n, k, lda, ldc);
    e.Set("type_a", ta).Set("type_c", tc);
    Scalars(e, c);
    Align(e, 0, -1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Syr2k(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const I n = Dim<I>(20), k = Dim<I>(30), lda = Dim<I>(1000), ldb = Dim<I>(2000);
    const I ldc = Dim<I>(3000);
    const auto s = fn(h_, Fill(), Op(0), n, k, HostScalar<T1>(true), Ptr<T1>(0), lda, Ptr<T1>(1),
                      ldb, HostScalar<T2>(c.beta_nz), Out<T1>(2), ldc);
    RankKFields(e, n, k, lda, ldc);
    e.Set("ldb", ldb);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  // --- Level 2 -------------------------------------------------------------------------------
  template <class I, class T1, class T2, class T3, class Fn>
  void Gemv(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const I m = Dim<I>(10), n = Dim<I>(20), lda = Dim<I>(1000), incx = Dim<I>(1), incy = Dim<I>(2);
    const auto s = fn(h_, Op(0), m, n, HostScalar<T1>(true), Ptr<T1>(0), lda, Ptr<T1>(1), incx,
                      HostScalar<T1>(c.beta_nz), Out<T1>(2), incy);
    GemvFields(e, m, n, lda, incx, incy);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemvBatched(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const I m = Dim<I>(10), n = Dim<I>(20), lda = Dim<I>(1000), incx = Dim<I>(1), incy = Dim<I>(2);
    const I batch = Dim<I>(2);
    const auto s = fn(h_, Op(0), m, n, HostScalar<T3>(true), Arr<T1>(0), lda, Arr<T1>(1), incx,
                      HostScalar<T3>(c.beta_nz), OutArr<T2>(2), incy, batch);
    GemvFields(e, m, n, lda, incx, incy);
    e.Set("batch", batch);
    Scalars(e, c, kLibBatchedPointers);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void GemvStrided(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, true);
    const I m = Dim<I>(10), n = Dim<I>(20), lda = Dim<I>(1000), incx = Dim<I>(1), incy = Dim<I>(2);
    const I batch = Dim<I>(2);
    const long long sa = 100000 + i_, sx = 200000 + i_, sy = 300000 + i_;
    const auto s = fn(h_, Op(0), m, n, HostScalar<T3>(true), Ptr<T1>(0), lda, sa, Ptr<T1>(1), incx,
                      sx, HostScalar<T3>(c.beta_nz), Out<T2>(2), incy, sy, batch);
    GemvFields(e, m, n, lda, incx, incy);
    e.Set("batch", batch).Set("stride_a", sa).Set("stride_b", sx).Set("stride_c", sy);
    Scalars(e, c);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Ger(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    const I m = Dim<I>(10), n = Dim<I>(20), incx = Dim<I>(1), incy = Dim<I>(2);
    const I lda = Dim<I>(1000);
    const auto s =
        fn(h_, m, n, HostScalar<T1>(true), Ptr<T1>(1), incx, Ptr<T1>(2), incy, Out<T1>(0), lda);
    e.Set("m", m).Set("n", n).Set("lda", lda).Set("ldb", incx).Set("ldc", incy);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  // --- Level 1: x in A, y in B, result in C, execution type in D ------------------------------
  template <class I, class T1, class T2, class T3, class Fn>
  void Dot(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    const I n = Dim<I>(20), incx = Dim<I>(1), incy = Dim<I>(2);
    const auto s = fn(h_, n, Ptr<T1>(0), incx, Ptr<T1>(1), incy, Out<T1>(2));
    e.Set("n", n).Set("lda", incx).Set("ldb", incy);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void DotEx(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    static constexpr cudaDataType kCases[][4] = {{CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F},
                                                 {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F},
                                                 {CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F}};
    const cudaDataType* t = kCases[i_ % 3];
    const I n = Dim<I>(20), incx = Dim<I>(1), incy = Dim<I>(2);
    const auto s =
        fn(h_, n, Ptr<void>(0), t[0], incx, Ptr<void>(1), t[1], incy, Out<void>(2), t[2], t[3]);
    e.Set("n", n).Set("lda", incx).Set("ldb", incy);
    e.Set("type_a", t[0]).Set("type_b", t[1]).Set("type_c", t[2]).Set("type_d", t[3]);
    Align(e, 0, 1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Axpy(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    const I n = Dim<I>(20), incx = Dim<I>(1), incy = Dim<I>(2);
    const auto s = fn(h_, n, HostScalar<T1>(true), Ptr<T1>(0), incx, Out<T1>(1), incy);
    e.Set("n", n).Set("lda", incx).Set("ldb", incy);
    Align(e, 0, 1, -1, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void AxpyEx(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    static constexpr cudaDataType kCases[][4] = {{CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F},
                                                 {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F}};
    const cudaDataType* t = kCases[i_ % 2];
    const I n = Dim<I>(20), incx = Dim<I>(1), incy = Dim<I>(2);
    const TypedScalar alpha(t[0], true);
    const auto s =
        fn(h_, n, alpha.bytes, t[0], Ptr<void>(0), t[1], incx, Out<void>(1), t[2], incy, t[3]);
    e.Set("n", n).Set("lda", incx).Set("ldb", incy);
    e.Set("scale_type", t[0]).Set("type_a", t[1]).Set("type_b", t[2]).Set("type_d", t[3]);
    Align(e, 0, 1, -1, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Scal(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    const I n = Dim<I>(20), incx = Dim<I>(1);
    const auto s = fn(h_, n, HostScalar<T2>(true), Out<T1>(0), incx);
    e.Set("n", n).Set("lda", incx);
    Align(e, 0, -1, -1, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void ScalEx(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    static constexpr cudaDataType kCases[][3] = {{CUDA_R_32F, CUDA_R_16BF, CUDA_R_32F},
                                                 {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F}};
    const cudaDataType* t = kCases[i_ % 2];
    const I n = Dim<I>(20), incx = Dim<I>(1);
    const TypedScalar alpha(t[0], true);
    const auto s = fn(h_, n, alpha.bytes, t[0], Out<void>(0), t[1], incx, t[2]);
    e.Set("n", n).Set("lda", incx);
    e.Set("scale_type", t[0]).Set("type_a", t[1]).Set("type_d", t[2]);
    Align(e, 0, -1, -1, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Nrm2(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    const I n = Dim<I>(20), incx = Dim<I>(1);
    const auto s = fn(h_, n, Ptr<T1>(0), incx, Out<T2>(2));
    e.Set("n", n).Set("lda", incx);
    Align(e, 0, -1, 2, -1);
    End(name, e, s);
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void Nrm2Ex(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, true);
    static constexpr cudaDataType kCases[][3] = {{CUDA_R_16F, CUDA_R_16F, CUDA_R_32F},
                                                 {CUDA_C_32F, CUDA_R_32F, CUDA_R_32F}};
    const cudaDataType* t = kCases[i_ % 2];
    const I n = Dim<I>(20), incx = Dim<I>(1);
    const auto s = fn(h_, n, Ptr<void>(0), t[0], incx, Out<void>(2), t[1], t[2]);
    e.Set("n", n).Set("lda", incx);
    e.Set("type_a", t[0]).Set("type_c", t[1]).Set("type_d", t[2]);
    Align(e, 0, -1, 2, -1);
    End(name, e, s);
  }

  // --- Legacy API: no handle, scalars by value, char options, errors in cublasGetError() -------
  template <class I, class T1, class T2, class T3, class Fn>
  void LGemm(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I m = Dim<I>(10), n = Dim<I>(20), k = Dim<I>(30);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000);
    fn(OpChar(0), OpChar(1), m, n, k, *HostScalar<T1>(true), Ptr<T1>(0), lda, Ptr<T1>(1), ldb,
       *HostScalar<T1>(c.beta_nz), Out<T1>(2), ldc);
    GemmFields(e, Op(0), Op(1), m, n, k, lda, ldb, ldc);
    LegacyScalars(e, c, true);
    Align(e, 0, 1, 2, -1);
    EndLegacy(name, e, "");
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LGemv(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I m = Dim<I>(10), n = Dim<I>(20), lda = Dim<I>(1000), incx = Dim<I>(1), incy = Dim<I>(2);
    fn(OpChar(0), m, n, *HostScalar<T1>(true), Ptr<T1>(0), lda, Ptr<T1>(1), incx,
       *HostScalar<T1>(c.beta_nz), Out<T1>(2), incy);
    GemvFields(e, m, n, lda, incx, incy);
    LegacyScalars(e, c, true);
    Align(e, 0, 1, 2, -1);
    EndLegacy(name, e, "");
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LGer(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I m = Dim<I>(10), n = Dim<I>(20), incx = Dim<I>(1), incy = Dim<I>(2);
    const I lda = Dim<I>(1000);
    fn(m, n, *HostScalar<T1>(true), Ptr<T1>(1), incx, Ptr<T1>(2), incy, Out<T1>(0), lda);
    e.Set("m", m).Set("n", n).Set("lda", lda).Set("ldb", incx).Set("ldc", incy);
    LegacyScalars(e, c, false);
    Align(e, 0, 1, 2, -1);
    EndLegacy(name, e, "");
  }

  // ?trsm and ?trmm (in place: the output C is B).
  template <class I, class T1, class T2, class T3, class Fn>
  void LTrsm(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I m = Dim<I>(10), n = Dim<I>(20), lda = Dim<I>(1000), ldb = Dim<I>(2000);
    fn(SideChar(), FillChar(), OpChar(0), DiagChar(), m, n, *HostScalar<T1>(true), Ptr<T1>(0), lda,
       Out<T1>(1), ldb);
    TriangularFields(e, m, n, lda, ldb);
    LegacyScalars(e, c, false);
    const bool trmm = std::strstr(name, "trmm") != nullptr;
    if (trmm) e.Set("ldc", ldb);
    Align(e, 0, 1, trmm ? 1 : -1, -1);
    EndLegacy(name, e, "");
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LSymm(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I m = Dim<I>(10), n = Dim<I>(20);
    const I lda = Dim<I>(1000), ldb = Dim<I>(2000), ldc = Dim<I>(3000);
    fn(SideChar(), FillChar(), m, n, *HostScalar<T1>(true), Ptr<T1>(0), lda, Ptr<T1>(1), ldb,
       *HostScalar<T1>(c.beta_nz), Out<T1>(2), ldc);
    e.Set("side", Side()).Set("uplo", Fill()).Set("m", m).Set("n", n);
    e.Set("lda", lda).Set("ldb", ldb).Set("ldc", ldc);
    LegacyScalars(e, c, true);
    Align(e, 0, 1, 2, -1);
    EndLegacy(name, e, "");
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LSyrk(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I n = Dim<I>(20), k = Dim<I>(30), lda = Dim<I>(1000), ldc = Dim<I>(3000);
    fn(FillChar(), OpChar(0), n, k, *HostScalar<T2>(true), Ptr<T1>(0), lda,
       *HostScalar<T2>(c.beta_nz), Out<T1>(2), ldc);
    RankKFields(e, n, k, lda, ldc);
    LegacyScalars(e, c, true);
    Align(e, 0, -1, 2, -1);
    EndLegacy(name, e, "");
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LSyr2k(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I n = Dim<I>(20), k = Dim<I>(30), lda = Dim<I>(1000), ldb = Dim<I>(2000);
    const I ldc = Dim<I>(3000);
    fn(FillChar(), OpChar(0), n, k, *HostScalar<T1>(true), Ptr<T1>(0), lda, Ptr<T1>(1), ldb,
       *HostScalar<T2>(c.beta_nz), Out<T1>(2), ldc);
    RankKFields(e, n, k, lda, ldc);
    e.Set("ldb", ldb);
    LegacyScalars(e, c, true);
    Align(e, 0, 1, 2, -1);
    EndLegacy(name, e, "");
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LDot(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, false);
    const I n = Dim<I>(20), incx = Dim<I>(1), incy = Dim<I>(2);
    const T1 v = fn(n, Ptr<T1>(0), incx, Ptr<T1>(1), incy);
    e.Set("n", n).Set("lda", incx).Set("ldb", incy);
    Align(e, 0, 1, -1, -1);
    EndLegacy(name, e, ValueText(v));
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LAxpy(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I n = Dim<I>(20), incx = Dim<I>(1), incy = Dim<I>(2);
    fn(n, *HostScalar<T1>(true), Ptr<T1>(0), incx, Out<T1>(1), incy);
    e.Set("n", n).Set("lda", incx).Set("ldb", incy);
    LegacyScalars(e, c, false);
    Align(e, 0, 1, -1, -1);
    EndLegacy(name, e, "");
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LScal(const char* name, Fn fn) {
    Expect e(name);
    const auto c = Begin(e, false);
    const I n = Dim<I>(20), incx = Dim<I>(1);
    fn(n, *HostScalar<T2>(true), Out<T1>(0), incx);
    e.Set("n", n).Set("lda", incx);
    LegacyScalars(e, c, false);
    Align(e, 0, -1, -1, -1);
    EndLegacy(name, e, "");
  }

  template <class I, class T1, class T2, class T3, class Fn>
  void LNrm2(const char* name, Fn fn) {
    Expect e(name);
    Begin(e, false);
    const I n = Dim<I>(20), incx = Dim<I>(1);
    const T2 v = fn(n, Ptr<T1>(0), incx);
    e.Set("n", n).Set("lda", incx);
    Align(e, 0, -1, -1, -1);
    EndLegacy(name, e, ValueText(v));
  }

  // The legacy stream changed by the program: flopspy cannot tell it any more.
  void LegacyAfterSetKernelStream() {
    const cublasStatus_t s = cublasSetKernelStream(reinterpret_cast<cudaStream_t>(0x5000));
    sink_.Print("cublasSetKernelStream", "status=" + std::to_string(s));
    legacy_stream_set_ = s == CUBLAS_STATUS_SUCCESS;
    LGemm<int, float, void, void>("cublasSgemm", &cublasSgemm);
    LDot<int, float, void, void>("cublasSdot", &cublasSdot);
  }

  // --- Arguments flopspy must survive ----------------------------------------------------------
  void InvalidArguments() {
    {  // no handle at all: the handle must not be touched, the error comes back
      Expect e("cublasSgemm_v2");
      flopspy_fake_cublas_set_status(CUBLAS_STATUS_NOT_INITIALIZED);
      const float one = 1;
      const auto s = cublasSgemm_v2(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 4, 5, 6, &one, nullptr, 4,
                                    nullptr, 6, &one, nullptr, 4);
      e.Set("trans_a", 0).Set("trans_b", 0).Set("m", 4).Set("n", 5).Set("k", 6);
      e.Set("lda", 4).Set("ldb", 6).Set("ldc", 4).Set("ptr_align", 0xFFFFFFFF).Set("stream", 0);
      End("cublasSgemm_v2", e, s);
    }
    {  // negative sizes, beta missing in host pointer mode, an operation that does not exist
      Expect e("cublasDgemm_v2");
      flopspy_fake_cublas_set_status(CUBLAS_STATUS_INVALID_VALUE);
      cublasSetPointerMode_v2(h_, CUBLAS_POINTER_MODE_HOST);
      cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH);
      cublasSetStream_v2(h_, reinterpret_cast<cudaStream_t>(0x77000));
      const double one = 1;
      const auto s = cublasDgemm_v2(h_, static_cast<cublasOperation_t>(9), CUBLAS_OP_T, -1, 5, -7,
                                    &one, nullptr, -3, nullptr, 0, nullptr, nullptr, 0);
      e.Set("trans_a", 9).Set("trans_b", 1).Set("m", -1).Set("n", 5).Set("k", -7);
      e.Set("lda", -3).Set("ldb", 0).Set("ldc", 0).Set("ptr_align", 0xFFFFFFFF);
      e.Set("flags", kLibAlphaKnown).Set("stream", 0x77000);
      End("cublasDgemm_v2", e, s);
    }
    {  // GemmEx with a type and a compute type that do not exist
      Expect e("cublasGemmEx");
      flopspy_fake_cublas_set_status(CUBLAS_STATUS_NOT_SUPPORTED);
      const float one = 1;
      const auto s = cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, FakePointer(4),
                                  static_cast<cudaDataType>(200), 8, FakePointer(4), CUDA_R_16F, 8,
                                  &one, const_cast<void*>(FakePointer(4)), CUDA_R_16F, 8,
                                  static_cast<cublasComputeType_t>(999), CUBLAS_GEMM_DEFAULT);
      GemmFields(e, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, 8, 8, 8);
      e.Set("type_a", 200).Set("type_b", CUDA_R_16F).Set("type_c", CUDA_R_16F);
      e.Set("compute_type", 0xFF).Set("scale_type", 0xFF);
      // Host pointer mode, but beta's type is unknown: alpha known, beta not.
      e.Set("flags", kLibAlphaKnown).Set("ptr_align", 0xFF040404).Set("stream", 0x77000);
      End("cublasGemmEx", e, s);
    }
    {  // grouped with no groups and missing arrays
      Expect e("cublasSgemmGroupedBatched");
      flopspy_fake_cublas_set_status(CUBLAS_STATUS_INVALID_VALUE);
      const auto s = cublasSgemmGroupedBatched(h_, nullptr, nullptr, nullptr, nullptr, nullptr,
                                               nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                               nullptr, nullptr, 0, nullptr);
      e.Set("m", -1).Set("n", -1).Set("k", -1).Set("batch", 0);
      e.Set("flags", kLibBatchedPointers | kLibGrouped).Set("stream", 0x77000);
      End("cublasSgemmGroupedBatched", e, s);
    }
    flopspy_fake_cublas_set_status(0);
  }

 private:
  // Per-call settings, all derived from the call index: status, stream, pointer mode, beta, math.
  Call Begin(Expect& e, bool handle_api) {
    Call c{i_ % 2 == 0, (i_ / 2) % 2 == 1, 0};
    c.status = i_ % 11 == 5   ? CUBLAS_STATUS_INVALID_VALUE
               : i_ % 13 == 7 ? CUBLAS_STATUS_EXECUTION_FAILED
                              : CUBLAS_STATUS_SUCCESS;
    flopspy_fake_cublas_set_status(c.status);
    if (handle_api) {
      const uintptr_t stream = 0x10000 + 16 * static_cast<uintptr_t>(i_);
      cublasSetStream_v2(h_, reinterpret_cast<cudaStream_t>(stream));
      cublasSetPointerMode_v2(h_, c.host ? CUBLAS_POINTER_MODE_HOST : CUBLAS_POINTER_MODE_DEVICE);
      const bool tf32 = i_ % 3 == 0;
      cublasMath_t math = tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
      if (i_ % 2 == 0) {
        math = static_cast<cublasMath_t>(math | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
      }
      cublasSetMathMode(h_, math);
      e.Set("stream", static_cast<long long>(stream)).Set("tf32", tf32);
    } else {
      e.Set("stream", 0);
    }
    return c;
  }

  void End(const char* name, Expect& e, cublasStatus_t s) {
    e.Set("status", s);
    sink_.Write(e);
    sink_.Print(name, "status=" + std::to_string(s));
    ++i_;
  }

  // Legacy calls have no status: the record says 0 and that it is unknown, the program reads
  // cublasGetError(). The stream is the legacy default until the program has called
  // cublasSetKernelStream, and unknown after.
  void EndLegacy(const char* name, Expect& e, const std::string& value) {
    uint32_t flags = legacy_flags_ | trace::kLibStatusUnknown;
    if (legacy_stream_set_) flags |= trace::kLibStreamUnknown;
    legacy_flags_ = 0;
    e.Set("status", 0).Set("flags", flags).Set("stream_unknown", legacy_stream_set_);
    sink_.Write(e);
    const int error = cublasGetError();
    sink_.Print(name, value + (value.empty() ? "" : " ") + "error=" + std::to_string(error));
    ++i_;
  }

  template <class I>
  I Dim(int base) const {
    return static_cast<I>((std::is_same_v<I, int64_t> ? kBig : 0) + base + i_);
  }
  int Shift(int slot) const { return 1 + (i_ + 3 * slot) % 9; }
  template <class T>
  const T* Ptr(int slot) const {
    return static_cast<const T*>(FakePointer(Shift(slot)));
  }
  template <class T>
  T* Out(int slot) const {
    return const_cast<T*>(Ptr<T>(slot));
  }
  template <class T>
  const T* const* Arr(int slot) const {
    return static_cast<const T* const*>(FakePointer(Shift(slot)));
  }
  template <class T>
  T* const* OutArr(int slot) const {
    return static_cast<T* const*>(const_cast<void*>(FakePointer(Shift(slot))));
  }
  // ptr_align: log2 alignment of the A, B, C, D pointers, 0xFF where none.
  void Align(Expect& e, int a, int b, int c, int d) const {
    long long packed = 0;
    const int slots[4] = {a, b, c, d};
    for (int j = 0; j < 4; ++j) {
      packed |= static_cast<long long>(slots[j] < 0 ? 0xFF : Shift(slots[j])) << (8 * j);
    }
    e.Set("ptr_align", packed);
  }

  cublasOperation_t Op(int slot) const {
    static constexpr cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
    return kOps[(i_ + slot) % 3];
  }
  cublasSideMode_t Side() const { return i_ % 2 == 0 ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
  cublasFillMode_t Fill() const {
    return (i_ / 2) % 2 == 0 ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  }
  cublasDiagType_t Diag() const {
    return (i_ / 3) % 2 == 0 ? CUBLAS_DIAG_NON_UNIT : CUBLAS_DIAG_UNIT;
  }
  // Legacy options, in either case.
  char Cased(char c) const { return i_ % 2 == 0 ? c : static_cast<char>(c - 'A' + 'a'); }
  char OpChar(int slot) const { return Cased("NTC"[Op(slot)]); }
  char SideChar() const { return Cased("LR"[Side()]); }
  char FillChar() const { return Cased("LU"[Fill()]); }
  char DiagChar() const { return Cased("NU"[Diag()]); }

  void GemmFields(Expect& e, int ta, int tb, long long m, long long n, long long k, long long lda,
                  long long ldb, long long ldc) {
    e.Set("trans_a", ta).Set("trans_b", tb).Set("m", m).Set("n", n).Set("k", k);
    e.Set("lda", lda).Set("ldb", ldb).Set("ldc", ldc);
  }
  void GemvFields(Expect& e, long long m, long long n, long long lda, long long incx,
                  long long incy) {
    e.Set("trans_a", Op(0)).Set("m", m).Set("n", n).Set("lda", lda).Set("ldb", incx);
    e.Set("ldc", incy);
  }
  void TriangularFields(Expect& e, long long m, long long n, long long lda, long long ldb) {
    e.Set("side", Side()).Set("uplo", Fill()).Set("trans_a", Op(0)).Set("diag", Diag());
    e.Set("m", m).Set("n", n).Set("lda", lda).Set("ldb", ldb);
  }
  void RankKFields(Expect& e, long long n, long long k, long long lda, long long ldc) {
    e.Set("uplo", Fill()).Set("trans_a", Op(0)).Set("n", n).Set("k", k);
    e.Set("lda", lda).Set("ldc", ldc);
  }
  // Handle API with a beta: host pointer mode makes alpha and beta known.
  void Scalars(Expect& e, const Call& c, uint32_t extra = 0) {
    uint32_t flags = extra;
    if (c.host) flags |= kLibAlphaKnown | kLibBetaKnown | (c.beta_nz ? kLibBetaNonZero : 0u);
    e.Set("flags", flags);
  }
  // Legacy API: scalars by value, so known (the flags are written by EndLegacy).
  void LegacyScalars(Expect&, const Call& c, bool has_beta) {
    legacy_flags_ = kLibAlphaKnown;
    if (has_beta) legacy_flags_ |= kLibBetaKnown | (c.beta_nz ? kLibBetaNonZero : 0u);
  }

  Sink& sink_;
  cublasHandle_t h_;
  int i_ = 0;
  uint32_t legacy_flags_ = 0;
  bool legacy_stream_set_ = false;
};

}  // namespace

int RunCublasCases(Sink& sink) {
  cublasHandle_t handle = nullptr;
  if (cublasCreate_v2(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  Client client(sink, handle);
#define FLOPSPY_CLIENT_CALL(F, name, I, T1, T2, T3, ...)                                       \
  client.F<I, T1, T2, T3>(                                                                     \
      #name,                                                                                   \
      static_cast<FLOPSPY_CUBLAS_RET(F, T1, T2) (*)(FLOPSPY_CUBLAS_PARAMS(F, I, T1, T2, T3))>( \
          &name));
  FLOPSPY_CUBLAS_V2_LEVEL3(FLOPSPY_CLIENT_CALL)
  FLOPSPY_CUBLAS_V2_LEVEL12(FLOPSPY_CLIENT_CALL)
  FLOPSPY_CUBLAS_LEGACY(FLOPSPY_CLIENT_CALL)
#undef FLOPSPY_CLIENT_CALL
  client.LegacyAfterSetKernelStream();
  client.InvalidArguments();
  cublasDestroy_v2(handle);
  return 0;
}

}  // namespace flopspy::cublas_client
