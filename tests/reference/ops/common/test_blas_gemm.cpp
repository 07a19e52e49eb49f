// Tests of reference/ops/common/blas_gemm (the references' float64 products on OpenBLAS): against a naive
// triple loop in long double on random non-zero operands, for shapes that split across threads (columns
// not a multiple of the 64-column split, one column, k = 0), strided blocks, beta, calls from inside an
// OpenMP region, and the shape check.
#include <array>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <omp.h>

#include "reference/ops/common/blas_gemm.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::gemm {
namespace {

MatD random_matrix(std::mt19937_64& rng, Eigen::Index r, Eigen::Index c) {
  std::uniform_real_distribution<double> u(0.25, 2.0);
  std::bernoulli_distribution neg(0.5);
  MatD m(r, c);
  for (Eigen::Index i = 0; i < r; ++i)
    for (Eigen::Index j = 0; j < c; ++j) m(i, j) = neg(rng) ? -u(rng) : u(rng);
  return m;
}

// C = A·op(B) by a naive loop in long double (64-bit significand: well inside the tolerance below).
MatD naive(const MatD& A, const MatD& B, bool b_transposed) {
  const Eigen::Index n = A.rows(), k = A.cols(), m = b_transposed ? B.rows() : B.cols();
  MatD C(n, m);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < m; ++j) {
      long double s = 0;
      for (Eigen::Index t = 0; t < k; ++t) s += static_cast<long double>(A(i, t)) * (b_transposed ? B(j, t) : B(t, j));
      C(i, j) = static_cast<double>(s);
    }
  return C;
}

// |C - ref| <= k·2^-52·Σ|a||b| elementwise (the float64 dot-product bound with margin).
void expect_close(const MatD& C, const MatD& ref, const MatD& A, const MatD& B, bool b_transposed) {
  ASSERT_EQ(C.rows(), ref.rows());
  ASSERT_EQ(C.cols(), ref.cols());
  const MatD absA = A.cwiseAbs(), absB = B.cwiseAbs();
  const MatD mag = b_transposed ? naive(absA, absB, true) : naive(absA, absB, false);
  const double k = static_cast<double>(A.cols());
  for (Eigen::Index i = 0; i < C.rows(); ++i)
    for (Eigen::Index j = 0; j < C.cols(); ++j) {
      ASSERT_FALSE(std::isnan(C(i, j))) << i << "," << j;
      ASSERT_LE(std::fabs(C(i, j) - ref(i, j)), (k + 1) * std::ldexp(1.0, -52) * mag(i, j)) << i << "," << j;
    }
}

TEST(BlasGemm, ProductNtMatchesNaiveLoopAcrossSplits) {
  auto rng = test::rng_for_current_test();
  for (auto [n, k, m] : {std::array<Eigen::Index, 3>{1, 7, 1}, {3, 64, 200}, {16, 300, 129}, {64, 1024, 517}, {128, 96, 64}}) {
    const MatD A = random_matrix(rng, n, k), B = random_matrix(rng, m, k);
    expect_close(product_nt(A, B), naive(A, B, true), A, B, true);
  }
}

TEST(BlasGemm, ProductNnMatchesNaiveLoopAcrossSplits) {
  auto rng = test::rng_for_current_test();
  for (auto [n, k, m] : {std::array<Eigen::Index, 3>{1, 5, 3}, {8, 512, 300}, {64, 200, 193}}) {
    const MatD A = random_matrix(rng, n, k), B = random_matrix(rng, k, m);
    expect_close(product_nn(A, B), naive(A, B, false), A, B, false);
  }
}

TEST(BlasGemm, StridedBlocksAndBetaAccumulate) {
  auto rng = test::rng_for_current_test();
  const MatD bigA = random_matrix(rng, 40, 300), bigB = random_matrix(rng, 260, 300);
  const MatD A = bigA.middleCols(10, 200), B = bigB.block(3, 10, 250, 200);
  MatD Cbig = random_matrix(rng, 50, 260);
  const MatD before = Cbig;
  const MatD C0 = Cbig.block(5, 4, 40, 250);
  product_nt(bigA.middleCols(10, 200), bigB.block(3, 10, 250, 200), Cbig.block(5, 4, 40, 250), 0.5);
  const MatD want = naive(A, B, true) + 0.5 * C0;
  const MatD got = Cbig.block(5, 4, 40, 250);
  expect_close(got, want, A, B, true);
  EXPECT_TRUE(Cbig.topRows(5) == before.topRows(5));       // outside the block: untouched
  EXPECT_TRUE(Cbig.leftCols(4) == before.leftCols(4));
  EXPECT_TRUE(Cbig.rightCols(6) == before.rightCols(6));
}

TEST(BlasGemm, ZeroDepthGivesZeroOrBetaC) {
  const MatD A(4, 0), B(130, 0);
  MatD C = MatD::Constant(4, 130, std::nan(""));
  product_nt(A, B, C, 0.0);
  EXPECT_TRUE((C.array() == 0.0).all());  // beta = 0 never reads C (NaN there must not survive)
  C.setConstant(3.0);
  product_nt(A, B, C, 2.0);
  EXPECT_TRUE((C.array() == 6.0).all());
}

TEST(BlasGemm, InsideAnOpenMpRegionEachThreadGetsItsOwnProduct) {
  auto rng = test::rng_for_current_test();
  const MatD A = random_matrix(rng, 32, 256), B = random_matrix(rng, 300, 256);
  const MatD want = naive(A, B, true);
  std::vector<MatD> got(4);
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 4; ++i) got[i] = product_nt(A, B);
  for (const MatD& g : got) expect_close(g, want, A, B, true);
}

TEST(BlasGemm, DisagreeingShapesAreAnError) {
  const MatD A = MatD::Ones(3, 4), B = MatD::Ones(5, 6);
  MatD C(3, 5);
  EXPECT_THROW(product_nt(A, B, C), std::invalid_argument);
  EXPECT_THROW(product_nn(A, B), std::invalid_argument);
}

}  // namespace
}  // namespace dsv4::gemm
