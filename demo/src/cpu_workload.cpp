#include "cpu_workload.h"

#include <flopspy/flopspy.h>
#include <fmt/core.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "table.h"

namespace flopspy_demo {
namespace {

using Matrix = std::vector<double>;  // row-major n x n

// Small integers, so every product and sum is exact in fp64 and the two matmuls and the
// closed-form checksum must agree to the last bit.
Matrix MakeA(int n) {
  Matrix a(static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) a[static_cast<std::size_t>(i) * n + k] = (i * 7 + k * 3) % 11 - 5;
  return a;
}

Matrix MakeB(int n) {
  Matrix b(static_cast<std::size_t>(n) * n);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j) b[static_cast<std::size_t>(k) * n + j] = (k * 5 + j * 2) % 13 - 6;
  return b;
}

// sum(C) = sum_k colsum(A)[k] * rowsum(B)[k], in O(n^2).
double ExpectedChecksum(const Matrix& a, const Matrix& b, int n) {
  double total = 0;
  for (int k = 0; k < n; ++k) {
    double col = 0;
    double row = 0;
    for (int i = 0; i < n; ++i) col += a[static_cast<std::size_t>(i) * n + k];
    for (int j = 0; j < n; ++j) row += b[static_cast<std::size_t>(k) * n + j];
    total += col * row;
  }
  return total;
}

double Checksum(const Matrix& c) {
  double total = 0;
  for (double v : c) total += v;
  return total;
}

// i-j-k order: the inner loop walks B down a column, one cache line per multiply-add.
void NaiveMatmul(const Matrix& a, const Matrix& b, Matrix& c, int n) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int k = 0; k < n; ++k) {
        sum += a[static_cast<std::size_t>(i) * n + k] * b[static_cast<std::size_t>(k) * n + j];
      }
      c[static_cast<std::size_t>(i) * n + j] = sum;
    }
  }
}

// Tiles that fit in L1/L2 and a unit-stride, vectorisable inner loop: same FLOPs, far fewer
// bytes from memory per FLOP.
void BlockedMatmul(const Matrix& a, const Matrix& b, Matrix& c, int n) {
  constexpr int kTile = 64;
  std::fill(c.begin(), c.end(), 0.0);
  for (int ii = 0; ii < n; ii += kTile) {
    const int i_end = std::min(ii + kTile, n);
    for (int kk = 0; kk < n; kk += kTile) {
      const int k_end = std::min(kk + kTile, n);
      for (int jj = 0; jj < n; jj += kTile) {
        const int j_end = std::min(jj + kTile, n);
        for (int i = ii; i < i_end; ++i) {
          double* c_row = &c[static_cast<std::size_t>(i) * n];
          for (int k = kk; k < k_end; ++k) {
            const double a_ik = a[static_cast<std::size_t>(i) * n + k];
            const double* b_row = &b[static_cast<std::size_t>(k) * n];
            for (int j = jj; j < j_end; ++j) c_row[j] += a_ik * b_row[j];
          }
        }
      }
    }
  }
}

const char* CheckWord(bool ok) {
  return ok ? "ok" : "FAIL";
}

void ReportFailure(const char* what, double got, double expected) {
  fmt::print(stderr, "flopspy-demo: CHECK FAILED: {}: got {}, expected {}\n", what, got, expected);
}

template <class Fn>
std::vector<double> TimeCalls(int calls, Fn&& fn) {
  std::vector<double> seconds;
  for (int call = 0; call < calls; ++call) {
    const double start = NowSeconds();
    fn();
    seconds.push_back(NowSeconds() - start);
  }
  return seconds;
}

bool RunMatmuls(const CpuConfig& config) {
  const int n = config.n;
  const Matrix a = MakeA(n);
  const Matrix b = MakeB(n);
  const double expected = ExpectedChecksum(a, b, n);
  const double n3 = static_cast<double>(n) * n * n;
  // Compulsory traffic: A and B read once, C written once.
  const double bytes = 3.0 * sizeof(double) * n * n;
  Matrix naive(a.size());
  Matrix blocked(a.size());

  Row naive_row(fmt::format("naive matmul n={}", n), bytes, 2 * n3);
  flopspy_region_begin("cpu naive matmul");
  SetTimes(naive_row, TimeCalls(config.naive_repeats, [&] { NaiveMatmul(a, b, naive, n); }));
  flopspy_region_end("cpu naive matmul");
  const double naive_sum = Checksum(naive);
  const bool naive_ok = naive_sum == expected;
  if (!naive_ok) ReportFailure("cpu naive matmul checksum", naive_sum, expected);
  naive_row.check = CheckWord(naive_ok);
  PrintRow(naive_row);

  Row blocked_row(fmt::format("blocked matmul n={}", n), bytes, 2 * n3);
  flopspy_region_begin("cpu blocked matmul");
  SetTimes(blocked_row,
           TimeCalls(config.blocked_repeats, [&] { BlockedMatmul(a, b, blocked, n); }));
  flopspy_region_end("cpu blocked matmul");
  const double blocked_sum = Checksum(blocked);
  // Every value is an exact integer, so the two orders must agree exactly.
  const bool blocked_ok = blocked_sum == expected && blocked == naive;
  if (!blocked_ok) ReportFailure("cpu blocked matmul checksum", blocked_sum, expected);
  blocked_row.check = CheckWord(blocked_ok);
  PrintRow(blocked_row);
  return naive_ok && blocked_ok;
}

// STREAM triad a = b + s * c over arrays larger than the last-level cache: about 2 FLOPs per
// 24 bytes, so memory bandwidth sets its speed.
bool RunTriad(const CpuConfig& config) {
  const std::size_t count = std::max<std::size_t>(1, config.triad_bytes_per_array / sizeof(double));
  constexpr double kScalar = 3.0;
  // Written here so page faults land outside the timed region.
  std::vector<double> a(count, 0.0);
  const std::vector<double> b(count, 1.0);
  const std::vector<double> c(count, 2.0);

  // STREAM's convention: two arrays read, one written, write-allocate not counted.
  Row row(fmt::format("stream triad 3 x {} MiB", config.triad_bytes_per_array >> 20),
          3.0 * sizeof(double) * count, 2.0 * count);
  flopspy_region_begin("cpu stream triad");
  SetTimes(row, TimeCalls(config.triad_passes, [&] {
             for (std::size_t i = 0; i < count; ++i) a[i] = b[i] + kScalar * c[i];
           }));
  flopspy_region_end("cpu stream triad");
  const double expected = 7.0 * static_cast<double>(count);
  const double sum = Checksum(a);
  const bool ok = sum == expected;
  if (!ok) ReportFailure("cpu stream triad checksum", sum, expected);
  row.check = CheckWord(ok);
  PrintRow(row);
  return ok;
}

}  // namespace

bool RunCpuWorkload(const CpuConfig& config) {
  PrintHeader("CPU, fp64, one thread");
  const bool matmul_ok = RunMatmuls(config);
  const bool triad_ok = RunTriad(config);
  return matmul_ok && triad_ok;
}

}  // namespace flopspy_demo
