// Tests of reference/ops/common/gemm_smallrow (the fused-decode product for few rows of A), at every SIMD
// level this CPU has, the portable fallback included: against a naive long-double loop on the exactly
// decoded values over random n, k, m (k not a multiple of any vector width, k longer than one k chunk,
// m past the tile and task edges), bf16 and fp16 with subnormal codes, strided and offset operands, and
// block-scaled fp8 (e4m3fn, e4m3fnuz; scales per 1 or 128 rows x 128 columns) against its dequantization;
// Inf/NaN propagation; calls from inside an OpenMP region; and the argument checks.
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include "reference/ops/common/gemm_blockscaled.hpp"
#include "reference/ops/common/gemm_smallrow.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::gemm {
namespace {

// Columns [2, 2+c) of a random [r, c+5] tensor (row stride c+5, offset 2): values ±[0.25, 2), and one
// in ten tiny (bf16 ~2^-130, fp16 ~2^-20: subnormal codes of each format). Never zero.
Tensor random_codes(std::mt19937_64& rng, DType t, std::int64_t r, std::int64_t c) {
  std::uniform_real_distribution<double> u(0.25, 2.0);
  std::bernoulli_distribution neg(0.5), tiny(0.1);
  const double small = t == DType::BF16 ? std::ldexp(1.0, -130) : std::ldexp(1.0, -20);
  Tensor wide = Tensor::empty(t, {r, c + 5});
  for (std::int64_t i = 0; i < wide.numel(); ++i) {
    const double v = (tiny(rng) ? small : 1.0) * u(rng);
    wide.set_linear(i, neg(rng) ? -v : v);
  }
  return wide.slice(1, 2, c);
}

// A [n, k] inside a wider [n, k+3] matrix: random doubles in ±[0.5, 2.5), never zero.
MatD random_a(std::mt19937_64& rng, std::int64_t n, std::int64_t k) {
  std::uniform_real_distribution<double> u(0.5, 2.5);
  std::bernoulli_distribution neg(0.5);
  MatD m(n, k + 3);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = neg(rng) ? -u(rng) : u(rng);
  return m;
}

// A·Bᵀ in long double from B's values read one by one through Tensor::get, with Σ|a·b| per element.
struct Naive {
  MatD sum, mag;
};
Naive naive_of(const MatD& Aw, std::int64_t k, const MatD& B) {
  const std::int64_t m = B.rows();
  Naive r{MatD(Aw.rows(), m), MatD(Aw.rows(), m)};
  for (Eigen::Index i = 0; i < Aw.rows(); ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      long double s = 0, mag = 0;
      for (std::int64_t t = 0; t < k; ++t) {
        const long double p = static_cast<long double>(Aw(i, t)) * B(j, t);
        s += p;
        mag += std::fabs(p);
      }
      r.sum(i, j) = static_cast<double>(s);
      r.mag(i, j) = static_cast<double>(mag);
    }
  return r;
}
Naive naive(const MatD& Aw, std::int64_t k, const Tensor& b) {
  MatD B(b.size(0), k);
  for (std::int64_t j = 0; j < b.size(0); ++j)
    for (std::int64_t t = 0; t < k; ++t) B(j, t) = b.get({j, t});
  return naive_of(Aw, k, B);
}

// Expects C[:, :m] == the naive product within (k+2)·2^-52·Σ|a·b| per element.
void expect_product(const MatD& Cw, const Naive& want, std::int64_t k, const std::string& what) {
  for (Eigen::Index i = 0; i < want.sum.rows(); ++i)
    for (Eigen::Index j = 0; j < want.sum.cols(); ++j)
      ASSERT_LE(std::fabs(Cw(i, j) - want.sum(i, j)), (static_cast<double>(k) + 2) * std::ldexp(1.0, -52) * want.mag(i, j))
          << what << ": C(" << i << ", " << j << ") = " << Cw(i, j) << ", want " << want.sum(i, j);
}

TEST(GemmSmallRow, MatchesNaiveLoopAtEveryLevelOverRandomShapes) {
  auto rng = test::rng_for_current_test();
  const auto levels = simd_levels_available();
  ASSERT_EQ(levels.front(), SimdLevel::portable);
  for (SimdLevel level : levels) std::printf("[ smallrow ] testing level %s\n", simd_level_name(level));
  std::uniform_int_distribution<std::int64_t> dk(1, 1200), dm(1, 230);
  for (int rep = 0; rep <= 34; ++rep) {  // n = 1..34 once each (every tile width and remainder), then k > n = 1's chunk
    const std::int64_t n = rep < 34 ? rep + 1 : 1, k = rep < 34 ? dk(rng) : 33000, m = rep < 34 ? dm(rng) : 7;
    const DType t = rep % 2 ? DType::F16 : DType::BF16;
    const Tensor b = random_codes(rng, t, m, k);
    const MatD Aw = random_a(rng, n, k);
    const Naive want = naive(Aw, k, b);
    for (SimdLevel level : levels) {
      MatD Cw = MatD::Constant(Aw.rows(), m + 2, 7.0);  // C [n, m] inside [n, m+2]: the extra columns stay 7
      const std::string what = fmt::format("{} {} n={} k={} m={}", simd_level_name(level), dtype_name(t), Aw.rows(), k, m);
      product_nt_smallrow(Aw.leftCols(k), b, Cw.leftCols(m), level);
      expect_product(Cw, want, k, what);
      for (Eigen::Index i = 0; i < Cw.rows(); ++i) ASSERT_TRUE(Cw(i, m) == 7.0 && Cw(i, m + 1) == 7.0) << what;
    }
  }
}

// Random fp8 codes [r, c] (never NaN; zero and subnormal codes included) and F32 block scales for
// row_block rows x 128 columns, in ±[0.5, 2) times 2^[-3, 3].
std::pair<Tensor, Tensor> random_fp8(std::mt19937_64& rng, DType t, std::int64_t r, std::int64_t c, std::int64_t rb) {
  std::uniform_int_distribution<int> code(0, 255), ex(-3, 3);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  Tensor q = Tensor::empty(t, {r, c});
  for (std::int64_t i = 0; i < q.numel(); ++i) {
    int v = code(rng);
    while ((t == DType::F8_E4M3FN && (v & 0x7F) == 0x7F) || (t == DType::F8_E4M3FNUZ && v == 0x80)) v = code(rng);
    q.set_code_linear(i, static_cast<std::uint32_t>(v));
  }
  Tensor sf = Tensor::empty(DType::F32, {(r + rb - 1) / rb, (c + 127) / 128});
  for (std::int64_t i = 0; i < sf.numel(); ++i) sf.set_linear(i, std::ldexp(u(rng), ex(rng)));
  return {q, sf};
}

TEST(GemmSmallRow, BlockScaledFp8MatchesDequantizedLoopAtEveryLevel) {
  auto rng = test::rng_for_current_test();
  std::uniform_int_distribution<std::int64_t> dn(1, 34), dk(1, 1400), dm(1, 300);
  for (int rep = 0; rep < 16; ++rep) {
    const std::int64_t n = dn(rng), k = rep == 0 ? 20000 : dk(rng), m = rep == 0 ? 5 : dm(rng), rb = rep % 3 ? 128 : 1;
    const DType t = rep % 2 ? DType::F8_E4M3FNUZ : DType::F8_E4M3FN;
    const auto [q, sf] = random_fp8(rng, t, m, k, rb);
    const MatD Aw = random_a(rng, n, k);
    const Naive want = naive_of(Aw, k, dequantize_blockscaled(q, sf, rb));
    for (SimdLevel level : simd_levels_available()) {
      MatD Cw = MatD::Constant(n, m + 2, 7.0);
      const std::string what = fmt::format("fp8 {} {} n={} k={} m={} row_block={}", simd_level_name(level), dtype_name(t), n, k, m, rb);
      product_nt_smallrow_blockscaled(Aw.leftCols(k), q, sf, rb, Cw.leftCols(m), level);
      expect_product(Cw, want, k, what);
      for (Eigen::Index i = 0; i < n; ++i) ASSERT_TRUE(Cw(i, m) == 7.0 && Cw(i, m + 1) == 7.0) << what;
    }
  }
}

TEST(GemmSmallRow, BlockScaledFp8WithNanCodesTakesTheTableAtEveryLevel) {
  auto rng = test::rng_for_current_test();
  for (DType t : {DType::F8_E4M3FN, DType::F8_E4M3FNUZ})
    for (SimdLevel level : simd_levels_available()) {
      const std::int64_t n = 5, k = 300, m = 7;
      auto [q, sf] = random_fp8(rng, t, m, k, 128);
      const MatD A = random_a(rng, n, k).leftCols(k);
      const Naive want = naive_of(A, k, dequantize_blockscaled(q, sf, 128));  // before the NaN codes
      const std::uint32_t nan = t == DType::F8_E4M3FN ? 0x7F : 0x80;
      q.set_code({1, 5}, nan);    // in the vector loop
      q.set_code({3, 299}, nan);  // in the k tail
      MatD C(n, m);
      product_nt_smallrow_blockscaled(A, q, sf, 128, C, level);
      const std::string what = fmt::format("{} {}", simd_level_name(level), dtype_name(t));
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < m; ++j) {
          if (j == 1 || j == 3) {
            EXPECT_TRUE(std::isnan(C(i, j))) << what << " C(" << i << ", " << j << ")";
          } else {
            ASSERT_LE(std::fabs(C(i, j) - want.sum(i, j)), (k + 2) * std::ldexp(1.0, -52) * want.mag(i, j)) << what;
          }
        }
    }
}

TEST(GemmSmallRow, InfAndNanPropagate) {
  auto rng = test::rng_for_current_test();
  for (SimdLevel level : simd_levels_available()) {
    Tensor b = random_codes(rng, DType::BF16, 5, 40);
    b.set({1, 17}, std::numeric_limits<double>::infinity());
    b.set({3, 39}, std::numeric_limits<double>::quiet_NaN());  // in the k tail of every vector width
    const MatD A = random_a(rng, 2, 40).leftCols(40);
    MatD C(2, 5);
    product_nt_smallrow(A, b, C, level);
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(std::isinf(C(i, 1))) << simd_level_name(level);
      EXPECT_TRUE(std::isnan(C(i, 3))) << simd_level_name(level);
      EXPECT_TRUE(std::isfinite(C(i, 0)) && std::isfinite(C(i, 2)) && std::isfinite(C(i, 4))) << simd_level_name(level);
    }
  }
}

TEST(GemmSmallRow, InsideAParallelRegionEachCallIsWhole) {
  auto rng = test::rng_for_current_test();
  const Tensor b = random_codes(rng, DType::F16, 300, 136);
  const MatD A = random_a(rng, 5, 136).leftCols(136);
  std::vector<MatD> C(4, MatD(5, 300));
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 4; ++i) product_nt_smallrow(A, b, C[i]);
  const Naive want = naive(A, 136, b);
  for (int i = 0; i < 4; ++i) expect_product(C[i], want, 136, "in parallel");
}

TEST(GemmSmallRow, BadArgumentsAreRejected) {
  const MatD A = MatD::Ones(2, 16);
  MatD C(2, 3);
  EXPECT_THROW(product_nt_smallrow(A, Tensor::empty(DType::F32, {3, 16}), C), std::invalid_argument);
  EXPECT_THROW(product_nt_smallrow(A, Tensor::empty(DType::BF16, {3, 8}), C), std::invalid_argument);
  EXPECT_THROW(product_nt_smallrow(A, Tensor::empty(DType::BF16, {16, 3}).transpose(0, 1), C), std::invalid_argument);
  MatD C2(2, 4);
  EXPECT_THROW(product_nt_smallrow(A, Tensor::empty(DType::BF16, {3, 16}), C2), std::invalid_argument);
}

}  // namespace
}  // namespace dsv4::gemm
