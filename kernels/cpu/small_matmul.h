// Matrix products too small for a library call: C = alpha (A B) + beta C
// on row-major f32 matrices, computed here in registers.
//
// Why: a product of a few thousand multiply-adds (an MLP's last layer, 256
// inputs to 10 classes) takes oneDNN's dnnl_sgemm about 0.4-0.7 us on this
// project's machines, most of it the call's own dispatch (argument checks,
// the CPU's ISA looked up, a JIT kernel chosen per call) and a kernel made
// for large panels; the arithmetic itself is 2,560 fused multiply-adds, a
// few dozen nanoseconds of AVX-512. Below kSmallMatMulWork multiply-adds
// (where eigen.matmul.f32 would not split its work over threads either),
// eigen.matmul.f32 computes here instead (docs/tensors.md "Small matrix
// products"); larger products stay oneDNN's.
//
// How: C is covered by panels of up to 8 rows of one vector of 16 columns
// (4 rows of two vectors), a masked vector at the right edge (no read or
// write past a row), each panel's sums held in registers over the whole
// inner dimension, with the inner dimension unrolled into independent sums
// when a panel has fewer than 8 (so the multiply-adds do not wait on each
// other), added at the end.
// Sums are in f32, as oneDNN's are; their order differs from oneDNN's, so
// results agree to rounding, not bit for bit (tests compare within 1e-5
// relative; products of small integers are exact either way).
//
// Only on CPUs with AVX-512F (checked once); elsewhere SmallMatMul returns
// false and the caller uses the library.
#ifndef BEF_KERNELS_CPU_SMALL_MATMUL_H_
#define BEF_KERNELS_CPU_SMALL_MATMUL_H_

#include <cstdint>

namespace bef::cpu_kernels {

// The largest product (m * n * k multiply-adds) SmallMatMul is meant for:
// above it the library's call costs little against its arithmetic.
inline constexpr int64_t kSmallMatMulWork = int64_t{1} << 16;

// C[m, n] = alpha * A[m, k] B[k, n] + beta * C (C is not read when beta is
// 0, as BLAS's sgemm); leading dimensions lda >= k, ldb >= n, ldc >= n.
// Returns false, with nothing written, when this CPU has no AVX-512F.
// REQUIRES: m, n, k > 0.
bool SmallMatMul(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace bef::cpu_kernels

#endif  // BEF_KERNELS_CPU_SMALL_MATMUL_H_
