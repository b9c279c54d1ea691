// Matrix products too small for a library call (small_matmul.h).
#include "kernels/cpu/small_matmul.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace bef::cpu_kernels {
namespace {

constexpr int kLanes = 16;                 // floats in an AVX-512 vector
constexpr int kMaxPanelVectors = 2;        // vectors of columns per panel
constexpr int kMaxPanelSums = 8;           // rows times vectors of a panel
constexpr int kWantedIndependentSums = 8;  // FMA latency (4) times its throughput (2)

// How many independent sums a panel keeps per element: enough that
// kWantedIndependentSums multiply-adds are in flight.
constexpr int Unroll(int rows, int vectors) {
  const int sums = rows * vectors;
  return sums >= kWantedIndependentSums ? 1 : (kWantedIndependentSums + sums - 1) / sums;
}

// One step of the inner dimension: column `a` of the panel's rows of A
// times the row `b` of B, into `sums`. (A function, not a lambda: a
// lambda would not inherit the target.)
template <int kRows, int kVectors>
[[gnu::target("avx512f"), gnu::always_inline]] inline void Step(__m512 (&sums)[kRows][kVectors],
                                                                const __mmask16 (&masks)[kVectors],
                                                                const float* a, int64_t lda,
                                                                const float* b) {
  __m512 row[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) row[v] = _mm512_maskz_loadu_ps(masks[v], b + v * kLanes);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    const __m512 x = _mm512_set1_ps(a[r * lda]);
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) sums[r][v] = _mm512_fmadd_ps(x, row[v], sums[r][v]);
  }
}

// C[kRows, columns] of one panel: `last` masks the columns of its last
// vector (all 16 for a full one).
template <int kRows, int kVectors>
[[gnu::target("avx512f"), gnu::always_inline]] inline void Panel(int64_t k, float alpha,
                                                                 const float* a, int64_t lda,
                                                                 const float* b, int64_t ldb,
                                                                 float beta, float* c, int64_t ldc,
                                                                 __mmask16 last) {
  constexpr int kUnroll = Unroll(kRows, kVectors);
  __mmask16 masks[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) masks[v] = v + 1 == kVectors ? last : __mmask16{0xFFFF};
  __m512 sums[kUnroll][kRows][kVectors];
#pragma GCC unroll 8
  for (int u = 0; u < kUnroll; ++u) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) sums[u][r][v] = _mm512_setzero_ps();
    }
  }
  int64_t p = 0;
  for (; p + kUnroll <= k; p += kUnroll) {
#pragma GCC unroll 8
    for (int u = 0; u < kUnroll; ++u) {
      Step<kRows, kVectors>(sums[u], masks, a + p + u, lda, b + (p + u) * ldb);
    }
  }
  for (; p < k; ++p) Step<kRows, kVectors>(sums[0], masks, a + p, lda, b + p * ldb);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      __m512 total = sums[0][r][v];
#pragma GCC unroll 8
      for (int u = 1; u < kUnroll; ++u) total = _mm512_add_ps(total, sums[u][r][v]);
      __m512 result = _mm512_mul_ps(_mm512_set1_ps(alpha), total);
      float* out = c + r * ldc + v * kLanes;
      if (beta != 0.0f) {
        // BLAS's sgemm: C is read only when beta is not 0.
        result =
            _mm512_fmadd_ps(_mm512_set1_ps(beta), _mm512_maskz_loadu_ps(masks[v], out), result);
      }
      _mm512_mask_storeu_ps(out, masks[v], result);
    }
  }
}

// The panels of `rows` (< kRows) rows: the one of exactly that height.
template <int kVectors, int kRows>
[[gnu::target("avx512f"), gnu::always_inline]] inline void LastPanel(
    int64_t rows, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
    float beta, float* c, int64_t ldc, __mmask16 last) {
  if constexpr (kRows > 0) {
    if (rows == kRows) {
      Panel<kRows, kVectors>(k, alpha, a, lda, b, ldb, beta, c, ldc, last);
      return;
    }
    LastPanel<kVectors, kRows - 1>(rows, k, alpha, a, lda, b, ldb, beta, c, ldc, last);
  }
}

// Every row of C in one column panel of kVectors vectors: panels as tall
// as kMaxPanelSums registers of sums allow (8 rows of one vector, 4 of
// two), then one for the rows left.
template <int kVectors>
[[gnu::target("avx512f"), gnu::always_inline]] inline void ColumnPanel(
    int64_t m, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
    float beta, float* c, int64_t ldc, __mmask16 last) {
  constexpr int kRows = kMaxPanelSums / kVectors;
  int64_t i = 0;
  for (; i + kRows <= m; i += kRows) {
    Panel<kRows, kVectors>(k, alpha, a + i * lda, lda, b, ldb, beta, c + i * ldc, ldc, last);
  }
  LastPanel<kVectors, kRows - 1>(m - i, k, alpha, a + i * lda, lda, b, ldb, beta, c + i * ldc, ldc,
                                 last);
}

[[gnu::target("avx512f")]] void SmallMatMulAvx512(int64_t m, int64_t n, int64_t k, float alpha,
                                                  const float* a, int64_t lda, const float* b,
                                                  int64_t ldb, float beta, float* c, int64_t ldc) {
  constexpr int64_t kPanelWidth = kMaxPanelVectors * kLanes;
  // Column panels outside, rows inside: a panel's columns of B (k x 32
  // floats) stay in the cache for every row of C.
  for (int64_t j = 0; j < n; j += kPanelWidth) {
    const int64_t width = std::min(kPanelWidth, n - j);
    const int last_width = static_cast<int>(width > kLanes ? width - kLanes : width);
    const __mmask16 last = static_cast<__mmask16>((1u << last_width) - 1);
    if (width > kLanes) {
      ColumnPanel<2>(m, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, last);
    } else {
      ColumnPanel<1>(m, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, last);
    }
  }
}

static_assert(kMaxPanelVectors == 2, "SmallMatMulAvx512 covers panels of one and two vectors");

}  // namespace

bool SmallMatMul(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  static const bool kHasAvx512 = __builtin_cpu_supports("avx512f");
  if (!kHasAvx512) return false;
  SmallMatMulAvx512(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return true;
}

}  // namespace bef::cpu_kernels
