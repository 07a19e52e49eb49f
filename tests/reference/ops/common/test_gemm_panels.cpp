// Tests of reference/ops/common/gemm_panels (products against panel-decoded operands): against a naive
// long-double loop on the exactly decoded values, for shapes that straddle the panel edges in both
// directions (m and k one past, and short of, multiples of kPanelRows / kPanelCols), strided and
// offset operands, beta, A of one row, calls from inside an OpenMP region, and the shape check.
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "reference/ops/common/gemm_panels.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::gemm {
namespace {

// A bf16 tensor [r, c] of random non-zero values in ±[0.25, 2).
Tensor random_bf16(std::mt19937_64& rng, std::int64_t r, std::int64_t c) {
  std::uniform_real_distribution<double> u(0.25, 2.0);
  std::bernoulli_distribution neg(0.5);
  Tensor t = Tensor::empty(DType::BF16, {r, c});
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set_linear(i, neg(rng) ? -u(rng) : u(rng));
  return t;
}

MatD random_matrix(std::mt19937_64& rng, std::int64_t r, std::int64_t c) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  MatD m(r, c);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) m(i, j) = u(rng) + (u(rng) > 0 ? 0.5 : -0.5);  // |m| >= 0.5-ish, never 0
  return m;
}

// Expects C == beta0·C0 + A·Bᵀ with B read element by element through Tensor::get, within k·2^-52·Σ|a||b|.
void expect_product(const MatD& C, const MatD& A, const Tensor& b, const MatD& C0, double beta0) {
  ASSERT_EQ(C.rows(), A.rows());
  ASSERT_EQ(C.cols(), b.size(0));
  const double k = static_cast<double>(A.cols());
  for (Eigen::Index i = 0; i < C.rows(); ++i)
    for (Eigen::Index j = 0; j < C.cols(); ++j) {
      long double s = 0, mag = 0;
      for (Eigen::Index t = 0; t < A.cols(); ++t) {
        const long double p = static_cast<long double>(A(i, t)) * b.get({j, t});
        s += p;
        mag += std::fabs(p);
      }
      if (beta0 != 0) s += static_cast<long double>(beta0) * C0(i, j), mag += std::fabs(beta0 * C0(i, j));
      ASSERT_LE(std::fabs(C(i, j) - static_cast<double>(s)), (k + 2) * std::ldexp(1.0, -52) * static_cast<double>(mag))
          << "C(" << i << ", " << j << ") of [" << C.rows() << ", " << C.cols() << "], k = " << A.cols();
    }
}

TEST(GemmPanels, MatchesNaiveLoopAcrossPanelEdges) {
  auto rng = test::rng_for_current_test();
  const std::int64_t R = kPanelRows, K = kPanelCols;
  for (auto [n, m, k] : {std::array<std::int64_t, 3>{1, 2 * R + 1, 2 * K + 1}, {3, R - 1, K - 1}, {9, R + 37, 2 * K + 40},
                         {4, 5, 7}, {17, 3 * R, K}}) {
    const MatD A = random_matrix(rng, n, k);
    const Tensor b = random_bf16(rng, m, k);
    MatD C(n, m);
    product_nt_panels(A, m, tensor_rows(b), C);
    expect_product(C, A, b, C, 0.0);
  }
}

TEST(GemmPanels, StridedOffsetOperandAndBetaAccumulate) {
  auto rng = test::rng_for_current_test();
  // b is columns [3, 3+k) of a wider tensor, transposed twice over: rows have stride 1, columns stride m0.
  const std::int64_t m = kPanelRows + 9, k = kPanelCols + 70;
  const Tensor wide = random_bf16(rng, k + 5, m);      // [k+5, m]
  const Tensor b = wide.slice(0, 3, k).transpose(0, 1);  // [m, k], strides [1, m]
  ASSERT_FALSE(b.is_contiguous());
  const MatD A = random_matrix(rng, 6, k);
  MatD C = random_matrix(rng, 6, m);
  const MatD C0 = C;
  product_nt_panels(A, m, tensor_rows(b), C, 0.5);
  expect_product(C, A, b, C0, 0.5);
}

TEST(GemmPanels, InsideAnOpenMpRegionEachCallerGetsItsProduct) {
  auto rng = test::rng_for_current_test();
  const MatD A = random_matrix(rng, 5, 600);
  const Tensor b = random_bf16(rng, 2 * kPanelRows + 3, 600);
  std::vector<MatD> got(4, MatD(5, b.size(0)));
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 4; ++i) product_nt_panels(A, b.size(0), tensor_rows(b), got[i]);
  for (const MatD& g : got) expect_product(g, A, b, g, 0.0);
}

TEST(GemmPanels, ZeroDepthAndDisagreeingShapes) {
  const Tensor b = Tensor::empty(DType::BF16, {7, 0});
  MatD C = MatD::Constant(2, 7, std::nan(""));
  product_nt_panels(MatD(2, 0), 7, tensor_rows(b), C);
  EXPECT_TRUE((C.array() == 0.0).all());  // beta = 0 never reads C
  MatD wrong(2, 6);
  EXPECT_THROW(product_nt_panels(MatD(2, 0), 7, tensor_rows(b), wrong), std::invalid_argument);
  EXPECT_THROW(tensor_rows(Tensor::empty(DType::BF16, {7})), std::invalid_argument);
}

}  // namespace
}  // namespace dsv4::gemm
