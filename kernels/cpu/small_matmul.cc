// Matrix products too small for a library call (small_matmul.h).
#include "kernels/cpu/small_matmul.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "kernels/cpu/tensor_access.h"

namespace bef::cpu_kernels {
namespace {

constexpr int kLanes = 16;                 // floats in an AVX-512 vector
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

// C[kRows, width] of one panel of kVectors vectors (width <= 16 kVectors:
// the vectors past the width are masked off whole).
template <int kRows, int kVectors>
[[gnu::target("avx512f"), gnu::always_inline]] inline void Panel(int64_t k, float alpha,
                                                                 const float* a, int64_t lda,
                                                                 const float* b, int64_t ldb,
                                                                 float beta, float* c, int64_t ldc,
                                                                 int64_t width) {
  constexpr int kUnroll = Unroll(kRows, kVectors);
  __mmask16 masks[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    const int64_t lanes = std::clamp<int64_t>(width - v * kLanes, 0, kLanes);
    masks[v] = static_cast<__mmask16>((uint32_t{1} << lanes) - 1);
  }
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

// The panel of the `rows` (< kRows) rows left.
template <int kVectors, int kRows>
[[gnu::target("avx512f"), gnu::always_inline]] inline void LastPanel(
    int64_t rows, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
    float beta, float* c, int64_t ldc, int64_t width) {
  if constexpr (kRows > 0) {
    if (rows == kRows) {
      Panel<kRows, kVectors>(k, alpha, a, lda, b, ldb, beta, c, ldc, width);
      return;
    }
    LastPanel<kVectors, kRows - 1>(rows, k, alpha, a, lda, b, ldb, beta, c, ldc, width);
  }
}

// Every row of C in one column panel of `width` columns (at most 16
// kVectors): panels of kMaxPanelSums / kVectors rows, then one of the rows
// left.
template <int kVectors>
[[gnu::target("avx512f")]] void ColumnPanel(int64_t m, int64_t k, float alpha, const float* a,
                                            int64_t lda, const float* b, int64_t ldb, float beta,
                                            float* c, int64_t ldc, int64_t width) {
  constexpr int kRows = kMaxPanelSums / kVectors;
  int64_t i = 0;
  for (; i + kRows <= m; i += kRows) {
    Panel<kRows, kVectors>(k, alpha, a + i * lda, lda, b, ldb, beta, c + i * ldc, ldc, width);
  }
  LastPanel<kVectors, kRows - 1>(m - i, k, alpha, a + i * lda, lda, b, ldb, beta, c + i * ldc, ldc,
                                 width);
}

// The panel shape for m rows and n columns: rows times vectors is
// kMaxPanelSums (8 registers of sums); each step of the inner dimension
// loads a panel's vectors of B and broadcasts one element of A per row,
// so the squarer panel loads less (4x2: 6 loads for 8 multiply-adds; 8x1:
// 9), and a panel has the rows and columns there are: a 1-row product
// (a batch-1 layer) takes up to 4 vectors of a row of B at once (its sums
// then unrolled in two).
int PanelVectors(int64_t m, int64_t n) {
  const int64_t vectors = (n + kLanes - 1) / kLanes;
  const int64_t rows = m >= kMaxPanelSums ? (vectors >= 2 ? 4 : kMaxPanelSums)
                                          : std::bit_floor(static_cast<uint64_t>(m));
  return static_cast<int>(
      std::min<uint64_t>(kMaxPanelSums / rows, std::bit_ceil(static_cast<uint64_t>(vectors))));
}

void SmallMatMulAvx512(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                       const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const int vectors = PanelVectors(m, n);
  const int64_t panel_width = vectors * kLanes;
  // Column panels outside, rows inside: a panel's columns of B (k rows of
  // up to 64 floats) stay in the cache for every row of C.
  for (int64_t j = 0; j < n; j += panel_width) {
    const int64_t width = std::min(panel_width, n - j);
    // The last panel as narrow as its columns allow.
    const int64_t panel_vectors = std::min<int64_t>(
        vectors, std::bit_ceil(static_cast<uint64_t>((width + kLanes - 1) / kLanes)));
    switch (panel_vectors) {
      case 4:
        ColumnPanel<4>(m, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, width);
        break;
      case 2:
        ColumnPanel<2>(m, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, width);
        break;
      default:
        ColumnPanel<1>(m, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, width);
        break;
    }
  }
}

// Panels of 1, 2 and 4 vectors cover every width computed here.
static_assert(kSmallMatMulMaxColumns <= 4 * kLanes && kMaxPanelSums == 8);

}  // namespace

bool SmallMatMul(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  static const bool has_avx512 = __builtin_cpu_supports("avx512f");
  if (!has_avx512 || n > kSmallMatMulMaxColumns ||
      WorkProduct({m, (n + kLanes - 1) / kLanes, k}) > kSmallMatMulVectorWork) {
    return false;
  }
  SmallMatMulAvx512(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return true;
}

}  // namespace bef::cpu_kernels
