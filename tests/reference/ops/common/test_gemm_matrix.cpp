// Tests of reference/ops/common/gemm_matrix's decode_block: every dtype path (bf16 bit shift, fp16 and
// fp8 tables, f32, f64) against Tensor::get, on a strided, offset view and a sub-block with a leading
// dimension wider than the block (the padding is never written), and the range check.
#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "reference/ops/common/gemm_matrix.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::gemm {
namespace {

TEST(GemmMatrix, DecodeBlockMatchesGetForEveryPath) {
  auto rng = test::rng_for_current_test();
  for (DType dt : {DType::BF16, DType::F16, DType::F8_E4M3FN, DType::F8_E4M3FNUZ, DType::F32, DType::F64}) {
    Tensor t = Tensor::empty(dt, {9, 12});
    const std::uint64_t mask = (element_size(dt) >= 8) ? ~0ull : ((1ull << (8 * element_size(dt))) - 1);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
      std::uint64_t code = rng() & mask;
      if (dt == DType::F64) code = std::bit_cast<std::uint64_t>(std::ldexp(1.0 + (code >> 12) * 0x1p-52, static_cast<int>(code % 64) - 32));
      t.set_code_linear(i, code);  // every code, NaN and Inf included
    }
    const Tensor v = t.slice(0, 1, 7).slice(1, 2, 9).transpose(0, 1);  // [7, 7], strides [1, 12]
    const std::int64_t ld = 5;
    std::vector<double> dst(4 * ld, -1234.5);
    decode_block(v, 2, 4, 1, 3, dst.data(), ld);
    for (std::int64_t i = 0; i < 4; ++i)
      for (std::int64_t j = 0; j < ld; ++j) {
        const double got = dst[i * ld + j];
        if (j >= 3) {
          EXPECT_EQ(got, -1234.5) << dtype_name(dt) << " padding (" << i << ", " << j << ") was written";
          continue;
        }
        const double want = v.get({2 + i, 1 + j});
        if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << dtype_name(dt) << " (" << i << ", " << j << ")";
        else EXPECT_EQ(got, want) << dtype_name(dt) << " (" << i << ", " << j << ")";
      }
  }
}

TEST(GemmMatrix, DecodeBlockRejectsRangesOutsideTheTensor) {
  const Tensor t = Tensor::empty(DType::BF16, {4, 8});
  std::vector<double> dst(64);
  EXPECT_THROW(decode_block(t, 3, 2, 0, 8, dst.data(), 8), std::out_of_range);
  EXPECT_THROW(decode_block(t, 0, 4, 1, 8, dst.data(), 8), std::out_of_range);
  EXPECT_THROW(decode_block(t, 0, 4, 0, 8, dst.data(), 7), std::out_of_range);
  EXPECT_THROW(decode_block(Tensor::empty(DType::BF16, {8}), 0, 1, 0, 1, dst.data(), 1), std::invalid_argument);
}

}  // namespace
}  // namespace dsv4::gemm
