// Tests of reference/ops/common/gemm_blockscaled's panel source (blockscaled_rows): every element of
// windows that cross 128-column scale groups, row blocks and gemm_panels' panel edges equals
// decode(q)·scale_at(sf, row / row_block, col / 128) exactly, for F32, F8_E8M0 and packed-UE8M0 scales,
// row blocks of 1 and 128, the one-pass fp8 path (unit column stride) and the general path (a transposed
// view); and dequantize_blockscaled agrees with it.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "reference/ops/common/gemm_blockscaled.hpp"
#include "reference/ops/common/quant_scale_layout.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::gemm {
namespace {

Tensor random_fp8(std::mt19937_64& rng, std::int64_t r, std::int64_t c) {
  Tensor t = Tensor::empty(DType::F8_E4M3FN, {r, c});
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    std::uint64_t code;
    do code = rng() & 0xFF;
    while ((code & 0x7F) == 0 || (code & 0x7F) == 0x7F);  // no zeros, no NaN
    t.set_code_linear(i, code);
  }
  return t;
}

Tensor random_scales(std::mt19937_64& rng, DType dt, std::int64_t rows, std::int64_t groups) {
  const std::int64_t cols = dt == DType::I32 ? (groups + 3) / 4 : groups;
  Tensor s = Tensor::empty(dt, {rows, cols});
  std::uniform_real_distribution<double> u(0.01, 3.0);
  for (std::int64_t i = 0; i < s.numel(); ++i) {
    if (dt == DType::F32) s.set_linear(i, u(rng));
    else if (dt == DType::F8_E8M0) s.set_code_linear(i, 120 + rng() % 15);
    else s.set_code_linear(i, (120 + rng() % 15) | (120 + rng() % 15) << 8 | (120 + rng() % 15) << 16 | (120 + rng() % 15) << 24);
  }
  return s;
}

void expect_window(const PanelSource& src, const Tensor& q, const Tensor& sf, std::int64_t rb, std::int64_t j0,
                   std::int64_t n, std::int64_t k0, std::int64_t w, const char* what) {
  std::vector<double> dst(static_cast<std::size_t>(n * w), -1.0);
  src(j0, n, k0, w, dst.data());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < w; ++k) {
      const double want = q.get({j0 + i, k0 + k}) * quant::scale_at(sf, (j0 + i) / rb, (k0 + k) / kScaleGroup);
      ASSERT_EQ(dst[i * w + k], want) << what << " row " << j0 + i << " col " << k0 + k << " (window at " << j0 << ", "
                                      << k0 << ")";
    }
}

TEST(GemmBlockscaled, PanelSourceEqualsDecodeTimesScaleAcrossEdges) {
  auto rng = test::rng_for_current_test();
  const std::int64_t N = kPanelRows + 45, K = 2 * kPanelCols + 70;  // 301 rows, 1094 columns (9 groups)
  const Tensor q = random_fp8(rng, N, K);
  // The same values through a transposed view: column stride != 1 takes the general path.
  const Tensor qt_store = q.transpose(0, 1).contiguous();
  const Tensor q_strided = qt_store.transpose(0, 1);
  ASSERT_NE(q_strided.stride(1), 1);
  for (const std::int64_t rb : {std::int64_t{1}, std::int64_t{128}})
    for (const DType sdt : {DType::F32, DType::F8_E8M0, DType::I32}) {
      const Tensor sf = random_scales(rng, sdt, (N + rb - 1) / rb, (K + 127) / 128);
      for (const Tensor* qq : {&q, &q_strided}) {
        const PanelSource src = blockscaled_rows(*qq, sf, rb);
        const char* what = qq == &q ? "one-pass" : "general";
        expect_window(src, *qq, sf, rb, 0, kPanelRows, 0, kPanelCols, what);
        expect_window(src, *qq, sf, rb, kPanelRows, N - kPanelRows, kPanelCols, kPanelCols, what);
        expect_window(src, *qq, sf, rb, 100, 60, 2 * kPanelCols, K - 2 * kPanelCols, what);  // the ragged last block
        expect_window(src, *qq, sf, rb, 127, 3, 100, 60, what);  // across a row block and a group edge
      }
      const MatD m = dequantize_blockscaled(q, sf, rb);
      for (std::int64_t i = 0; i < N; i += 37)
        for (std::int64_t k = 0; k < K; k += 11)
          ASSERT_EQ(m(i, k), q.get({i, k}) * quant::scale_at(sf, i / rb, k / kScaleGroup)) << i << "," << k;
    }
}

}  // namespace
}  // namespace dsv4::gemm
