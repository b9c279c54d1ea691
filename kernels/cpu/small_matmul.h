// Matrix products too small for a library call: C = alpha (A B) + beta C
// on row-major f32 matrices, computed here in registers.
//
// Why: a product of a few thousand multiply-adds (an MLP's last layer, 256
// inputs to 10 classes) takes oneDNN's dnnl_sgemm about 0.3-0.6 us on this
// project's machines, most of it the call's own dispatch (argument checks,
// the CPU's ISA looked up, a JIT kernel chosen per call) and a kernel made
// for large panels; the arithmetic is 256 AVX-512 multiply-adds, about
// 0.12 us here. eigen.matmul.f32 computes such products here (docs/
// tensors.md "Small matrix products"), the others with oneDNN.
//
// Which: at most kSmallMatMulVectorWork vector multiply-adds
// (m x ceil(n / 16) x k) and at most kSmallMatMulMaxColumns columns,
// where this was measured faster than dnnl_sgemm on every shape tried
// (0.06-0.95x its time; 1x256x10 0.21-0.23x, 8x256x10 0.59-0.70x, a
// 2x2x2 product 9-24 ns against 291-409). Past those, oneDNN's call costs
// little against its arithmetic, and its kernels stream a wide B better
// (1x512x128: this was 1.01-1.13x oneDNN's time, 1x128x256 1.34x) and
// vectorize a 1-column product along the inner dimension (8x8192x1: 5.3x).
//
// How: C is covered by panels of 8 registers of sums: 8 rows of one
// vector of 16 columns, 4 rows of two, or 2 rows of four (whichever loads
// least for the product's rows and columns; a panel of fewer rows splits
// each sum into independent ones, so the multiply-adds never wait on each
// other), a masked vector at the right edge (no read or write past a row),
// the sums held in registers over the whole inner dimension and added at
// the end.
// Sums are in f32, as oneDNN's are; their order differs from oneDNN's, so
// results agree to rounding, not bit for bit (tests compare within 1e-5
// relative; products of small integers are exact either way).
//
// Only on CPUs with AVX-512F (checked once).
#ifndef BEF_KERNELS_CPU_SMALL_MATMUL_H_
#define BEF_KERNELS_CPU_SMALL_MATMUL_H_

#include <cstdint>

namespace bef::cpu_kernels {

// The most vector multiply-adds (m x ceil(n / 16) x k) and columns a
// product computed here has (see "Which" above).
inline constexpr int64_t kSmallMatMulVectorWork = 4096;
inline constexpr int64_t kSmallMatMulMaxColumns = 64;

// C[m, n] = alpha * A[m, k] B[k, n] + beta * C (C is not read when beta is
// 0, as BLAS's sgemm); leading dimensions lda >= k, ldb >= n, ldc >= n.
// Returns false, with nothing written, when the product is larger than
// the limits above or this CPU has no AVX-512F: the caller then uses the
// library. REQUIRES: m, n, k > 0.
bool SmallMatMul(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace bef::cpu_kernels

#endif  // BEF_KERNELS_CPU_SMALL_MATMUL_H_
