// Tests of reference/ops/common/gemm_store: store_matrix against Tensor::set element by element for
// every typed path (bf16, fp16, f32, f64) on values that need rounding (ties, overflow, subnormals,
// NaN), into a contiguous tensor and into a row-strided view whose neighbours must stay untouched,
// the generic path (last dimension not contiguous), and the shape check.
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "reference/ops/common/gemm_store.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::gemm {
namespace {

MatD awkward_values(std::mt19937_64& rng, Eigen::Index r, Eigen::Index c) {
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::uniform_int_distribution<int> e(-30, 30);
  MatD m(r, c);
  for (Eigen::Index i = 0; i < r; ++i)
    for (Eigen::Index j = 0; j < c; ++j) m(i, j) = std::ldexp(u(rng), e(rng));
  const double inf = std::numeric_limits<double>::infinity();
  m(0, 0) = 1.0 + 0x1p-8;          // bf16 tie to even
  m(0, 1) = 1.0 + 0x1p-11;         // fp16 tie to even
  m(1, 0) = 1e300;                 // overflows every 16-bit format
  m(1, 1) = -0x1p-140;             // bf16 subnormal range, fp16 underflow
  m(2, 0) = std::nan("");
  m(2, 1) = -inf;
  return m;
}

TEST(GemmStore, StoreMatrixMatchesTensorSetOnEveryTypedPath) {
  auto rng = test::rng_for_current_test();
  for (DType dt : {DType::BF16, DType::F16, DType::F32, DType::F64}) {
    const MatD Y = awkward_values(rng, 300, 260);  // > 2^16 elements: the threaded path
    Tensor got = Tensor::empty(dt, {300, 260}), want = Tensor::empty(dt, {300, 260});
    store_matrix(Y, got);
    for (Eigen::Index i = 0; i < Y.rows(); ++i)
      for (Eigen::Index j = 0; j < Y.cols(); ++j) want.set({i, j}, Y(i, j));
    ASSERT_EQ(got.to_codes(), want.to_codes()) << dtype_name(dt);
  }
}

TEST(GemmStore, RowStridedViewKeepsItsNeighbours) {
  auto rng = test::rng_for_current_test();
  Tensor big = Tensor::empty(DType::BF16, {4, 3, 10});
  big.fill_bytes(0x5A);
  const Tensor before = big.clone();
  Tensor view = big.select(1, 1).slice(1, 2, 6);  // [4, 6], strides [30, 1], offset 12
  const MatD Y = awkward_values(rng, 4, 6);
  store_matrix(Y, view);
  for (std::int64_t a = 0; a < 4; ++a)
    for (std::int64_t h = 0; h < 3; ++h)
      for (std::int64_t d = 0; d < 10; ++d) {
        const bool inside = h == 1 && d >= 2 && d < 8;
        if (!inside) {
          EXPECT_EQ(big.code({a, h, d}), before.code({a, h, d})) << a << "," << h << "," << d;
          continue;
        }
        Tensor one = Tensor::empty(DType::BF16, {1});
        one.set({0}, Y(a, d - 2));
        EXPECT_EQ(big.code({a, h, d}), one.code({0})) << a << "," << h << "," << d;
      }
}

TEST(GemmStore, NonContiguousLastDimensionAndBadShapes) {
  auto rng = test::rng_for_current_test();
  Tensor t = Tensor::empty(DType::F16, {5, 4});
  Tensor tt = t.transpose(0, 1);  // [4, 5], last stride 4
  const MatD Y = awkward_values(rng, 4, 5);
  store_matrix(Y, tt);
  for (Eigen::Index i = 0; i < 4; ++i)
    for (Eigen::Index j = 0; j < 5; ++j) {
      Tensor one = Tensor::empty(DType::F16, {1});
      one.set({0}, Y(i, j));
      EXPECT_EQ(tt.code({i, j}), one.code({0})) << i << "," << j;
    }
  EXPECT_THROW(store_matrix(MatD(4, 4), tt), std::invalid_argument);
  EXPECT_THROW(store_matrix(MatD(4, 5), Tensor::empty(DType::F32, {20})), std::invalid_argument);
}

}  // namespace
}  // namespace dsv4::gemm
