// Grouped GEMMs whose groups differ, on the fake libcublas.so.13: the hand-computed cases of
// cublas_hooks_test.cpp (GroupedGemm*). Prints each call's status (the same with and without
// flopspy).
//   1. cublasGemmGroupedBatchedEx, FP16 A/B/C, FP32 compute, three groups:
//        (m, n, k, size, beta) = (64, 128, 32, 2, 0), (16, 8, 256, 1, 1.5), (100, 10, 10, 3, 0)
//   2. cublasGemmGroupedBatchedEx_64, FP32, 70 groups g = 0..69 of (g + 1, 2, 3, 1, beta 0):
//      more groups than flopspy lists one by one
//   3. cublasSgemmGroupedBatched, two groups, device pointer mode (beta not readable):
//        (m, n, k, size) = (4, 5, 6, 1), (7, 8, 9, 2)
#include <cublas_v2.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

const void* FakeDevicePointer(int i) {
  return reinterpret_cast<const void*>((uintptr_t{1} << 40) + 256 * static_cast<uintptr_t>(i));
}

template <class I>
struct Groups {
  std::vector<cublasOperation_t> ta, tb;
  std::vector<I> m, n, k, lda, ldb, ldc, size;
  void Add(I gm, I gn, I gk, I count) {
    ta.push_back(CUBLAS_OP_N);
    tb.push_back(CUBLAS_OP_T);
    m.push_back(gm), n.push_back(gn), k.push_back(gk);
    lda.push_back(gm), ldb.push_back(gn), ldc.push_back(gm);
    size.push_back(count);
  }
  I count() const { return static_cast<I>(m.size()); }
};

int Run() {
  cublasHandle_t h = nullptr;
  if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  std::vector<const void*> a(80), b(80);
  std::vector<void*> c(80);
  for (int i = 0; i < 80; ++i) {
    a[i] = FakeDevicePointer(i);
    b[i] = FakeDevicePointer(100 + i);
    c[i] = const_cast<void*>(FakeDevicePointer(200 + i));
  }

  Groups<int> g1;
  g1.Add(64, 128, 32, 2);
  g1.Add(16, 8, 256, 1);
  g1.Add(100, 10, 10, 3);
  const float alpha1[3] = {1, 1, 1}, beta1[3] = {0, 1.5f, 0};
  std::printf(
      "grouped fp16 -> %d\n",
      cublasGemmGroupedBatchedEx(h, g1.ta.data(), g1.tb.data(), g1.m.data(), g1.n.data(),
                                 g1.k.data(), alpha1, a.data(), CUDA_R_16F, g1.lda.data(), b.data(),
                                 CUDA_R_16F, g1.ldb.data(), beta1, c.data(), CUDA_R_16F,
                                 g1.ldc.data(), g1.count(), g1.size.data(), CUBLAS_COMPUTE_32F));

  Groups<int64_t> g2;
  for (int64_t g = 0; g < 70; ++g) g2.Add(g + 1, 2, 3, 1);
  const std::vector<float> alpha2(70, 1.f), beta2(70, 0.f);
  std::printf("grouped fp32 70 groups -> %d\n",
              cublasGemmGroupedBatchedEx_64(h, g2.ta.data(), g2.tb.data(), g2.m.data(), g2.n.data(),
                                            g2.k.data(), alpha2.data(), a.data(), CUDA_R_32F,
                                            g2.lda.data(), b.data(), CUDA_R_32F, g2.ldb.data(),
                                            beta2.data(), c.data(), CUDA_R_32F, g2.ldc.data(),
                                            g2.count(), g2.size.data(), CUBLAS_COMPUTE_32F));

  Groups<int> g3;
  g3.Add(4, 5, 6, 1);
  g3.Add(7, 8, 9, 2);
  std::printf("pointer mode device -> %d\n",
              cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_DEVICE));
  const auto* alpha3 = static_cast<const float*>(FakeDevicePointer(300));
  const auto* beta3 = static_cast<const float*>(FakeDevicePointer(301));
  std::printf(
      "grouped sgemm device scalars -> %d\n",
      cublasSgemmGroupedBatched(
          h, g3.ta.data(), g3.tb.data(), g3.m.data(), g3.n.data(), g3.k.data(), alpha3,
          reinterpret_cast<const float* const*>(a.data()), g3.lda.data(),
          reinterpret_cast<const float* const*>(b.data()), g3.ldb.data(), beta3,
          reinterpret_cast<float* const*>(c.data()), g3.ldc.data(), g3.count(), g3.size.data()));
  return cublasDestroy_v2(h) == CUBLAS_STATUS_SUCCESS ? 0 : 2;
}

}  // namespace

int main() {
  return Run();
}
