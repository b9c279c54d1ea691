#include "kernels/cpu/small_matmul.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace bef::cpu_kernels {
namespace {

bool HasAvx512() { return __builtin_cpu_supports("avx512f"); }

// alpha * A B + beta * C in double (C not read when beta is 0).
std::vector<double> Reference(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                              int64_t lda, const float* b, int64_t ldb, float beta, const float* c,
                              int64_t ldc) {
  std::vector<double> out(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += double{a[i * lda + p]} * b[p * ldb + j];
      out[i * n + j] = alpha * sum + (beta != 0.0f ? beta * double{c[i * ldc + j]} : 0.0);
    }
  }
  return out;
}

struct Shape {
  int64_t m, n, k;
  int64_t pad;  // extra elements at the end of every row of A, B and C
  float alpha, beta;
};

void ExpectMatchesReference(const Shape& shape, std::mt19937& random) {
  const int64_t lda = shape.k + shape.pad, ldb = shape.n + shape.pad, ldc = shape.n + shape.pad;
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(shape.m * lda), b(shape.k * ldb), c(shape.m * ldc);
  for (float& x : a) x = uniform(random);
  for (float& x : b) x = uniform(random);
  for (float& x : c) x = uniform(random);
  if (shape.beta == 0.0f) {
    // Never read: a NaN would show in the result if it were.
    for (float& x : c) x = std::numeric_limits<float>::quiet_NaN();
  }
  const std::vector<float> before = c;
  const std::vector<double> expected =
      Reference(shape.m, shape.n, shape.k, shape.alpha, a.data(), lda, b.data(), ldb, shape.beta,
                before.data(), ldc);
  ASSERT_TRUE(SmallMatMul(shape.m, shape.n, shape.k, shape.alpha, a.data(), lda, b.data(), ldb,
                          shape.beta, c.data(), ldc));
  for (int64_t i = 0; i < shape.m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const float got = c[i * ldc + j];
      if (j >= shape.n) {
        // Padding past a row is never written.
        EXPECT_TRUE(std::isnan(got) ? std::isnan(before[i * ldc + j]) : got == before[i * ldc + j])
            << "padding written at row " << i << " column " << j;
        continue;
      }
      const double want = expected[i * shape.n + j];
      // f32 sums of k products of magnitude <= 1.
      const double tolerance = 1e-6 * (shape.k + 2) * (std::fabs(shape.alpha) + 1);
      EXPECT_NEAR(got, want, tolerance) << "m " << shape.m << " n " << shape.n << " k " << shape.k
                                        << " at (" << i << ", " << j << ")";
    }
  }
}

TEST(SmallMatMul, EveryPanelShapeMatchesTheSumsInDouble) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512F: eigen.matmul.f32 uses oneDNN for every size";
  std::mt19937 random(7);
  // Rows 1-17 cover every panel shape (1 row of up to 4 vectors, 2 of 4, 4
  // of 2, 8 of 1) and the rows left after full panels; columns up to 64
  // cover full and masked vectors, vectors masked off whole in a panel
  // (50 columns: 4 vectors for 1 row), and several column panels; inner
  // sizes cover the unrolled loop and its remainder.
  for (int64_t m : {1, 2, 3, 4, 5, 7, 8, 9, 17}) {
    for (int64_t n : {1, 2, 10, 15, 16, 17, 31, 32, 33, 48, 50, 64}) {
      for (int64_t k : {1, 2, 3, 4, 5, 13, 24}) {
        ExpectMatchesReference({m, n, k, /*pad=*/0, 1.0f, 0.0f}, random);
      }
    }
  }
}

TEST(SmallMatMul, LeavesLargerProductsToTheLibrary) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512F";
  std::vector<float> a(8 * 8192, 1.0f), b(8192 * 65, 1.0f), c(8 * 65, 5.0f);
  // More than 64 columns; more vector multiply-adds than the limit (a
  // 1-column product counts a vector per column).
  EXPECT_FALSE(SmallMatMul(1, 65, 1, 1.0f, a.data(), 1, b.data(), 65, 0.0f, c.data(), 65));
  EXPECT_FALSE(SmallMatMul(8, 1, 8192, 1.0f, a.data(), 8192, b.data(), 1, 0.0f, c.data(), 1));
  EXPECT_FALSE(SmallMatMul(2, 64, 513, 1.0f, a.data(), 513, b.data(), 64, 0.0f, c.data(), 64));
  for (float x : c) EXPECT_EQ(x, 5.0f) << "written though refused";
  EXPECT_TRUE(SmallMatMul(2, 64, 512, 1.0f, a.data(), 512, b.data(), 64, 0.0f, c.data(), 64));
}

TEST(SmallMatMul, AlphaBetaAndLeadingDimensions) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512F";
  std::mt19937 random(11);
  for (const Shape& shape : std::vector<Shape>{{1, 10, 256, 0, 1.0f, 1.0f},
                                               {8, 10, 256, 3, 1.0f, 0.5f},
                                               {3, 33, 17, 5, 2.0f, 0.0f},
                                               {5, 20, 9, 1, -0.5f, -2.0f},
                                               {4, 16, 4, 16, 1.0f, 1.0f}}) {
    ExpectMatchesReference(shape, random);
  }
}

TEST(SmallMatMul, ProductsOfSmallIntegersAreExact) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512F";
  // What the eigen.matmul.f32 lit tests print: exact either way.
  const int64_t m = 3, n = 5, k = 7;
  std::vector<float> a(m * k), b(k * n), c(m * n, 1.0f);
  for (int64_t i = 0; i < m * k; ++i) a[i] = static_cast<float>(i % 5) - 2;
  for (int64_t i = 0; i < k * n; ++i) b[i] = static_cast<float>(i % 7) - 3;
  ASSERT_TRUE(SmallMatMul(m, n, k, 1.0f, a.data(), k, b.data(), n, 1.0f, c.data(), n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = 1;
      for (int64_t p = 0; p < k; ++p) {
        sum += static_cast<int64_t>(a[i * k + p]) * static_cast<int64_t>(b[p * n + j]);
      }
      EXPECT_EQ(c[i * n + j], static_cast<float>(sum));
    }
  }
}

// `floats` floats that end right before a page no access is allowed to.
class GuardedFloats {
 public:
  explicit GuardedFloats(size_t floats) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_ = ((floats * sizeof(float) + page - 1) / page + 1) * page;
    base_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(base_, MAP_FAILED);
    char* guard = static_cast<char*>(base_) + size_ - page;
    EXPECT_EQ(mprotect(guard, page, PROT_NONE), 0);
    data_ = reinterpret_cast<float*>(guard) - floats;
  }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  ~GuardedFloats() { munmap(base_, size_); }
  float* data() const { return data_; }

 private:
  void* base_;
  size_t size_;
  float* data_;
};

TEST(SmallMatMul, NoReadOrWritePastTheMatrices) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512F";
  // A masked vector at a row's right edge that touched a lane past the
  // last element of a matrix would fault on the page after it.
  const int64_t m = 3, n = 10, k = 7;
  GuardedFloats a(m * k), b(k * n), c(m * n);
  for (int64_t i = 0; i < m * k; ++i) a.data()[i] = 1.0f;
  for (int64_t i = 0; i < k * n; ++i) b.data()[i] = 2.0f;
  for (int64_t i = 0; i < m * n; ++i) c.data()[i] = 1.0f;
  ASSERT_TRUE(SmallMatMul(m, n, k, 1.0f, a.data(), k, b.data(), n, 1.0f, c.data(), n));
  for (int64_t i = 0; i < m * n; ++i) EXPECT_EQ(c.data()[i], 2.0f * k + 1.0f);
}

}  // namespace
}  // namespace bef::cpu_kernels
