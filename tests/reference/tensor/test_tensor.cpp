// Tests of the Tensor type: strides, views, exact decode and once-rounded stores.
#include <gtest/gtest.h>

#include <cmath>

#include "reference/tensor/tensor.hpp"

using namespace dsv4;

TEST(Tensor, ContiguousLayoutAndViews) {
  Tensor t = Tensor::empty(DType::F32, {2, 3, 4});
  EXPECT_EQ(t.strides(), (Shape{12, 4, 1}));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set_linear(i, 1.5 * i + 1);
  Tensor tt = t.transpose(0, 2);
  EXPECT_FALSE(tt.is_contiguous());
  EXPECT_EQ(tt.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(tt.get({3, 2, 1}), t.get({1, 2, 3}));
  Tensor s = t.slice(1, 1, 2);
  EXPECT_EQ(s.get({1, 0, 2}), t.get({1, 1, 2}));
  Tensor c = tt.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.to_f64(), tt.to_f64());
  EXPECT_EQ(t.select(0, 1).get({0, 0}), t.get({1, 0, 0}));
}

TEST(Tensor, Bf16StoreRoundsOnceToNearestEven) {
  Tensor t = Tensor::empty(DType::BF16, {4});
  // 1 + 2^-8 is the midpoint between 1 and 1+2^-7: ties to even -> 1.0
  t.set({0}, 1.0 + std::ldexp(1.0, -8));
  EXPECT_EQ(t.code({0}), 0x3F80u);
  // just above the midpoint rounds up (a double value that float conversion would first round)
  t.set({1}, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40));
  EXPECT_EQ(t.code({1}), 0x3F81u);
  t.set({2}, -INFINITY);
  EXPECT_EQ(t.code({2}), 0xFF80u);
  t.set({3}, 1e39);  // above bf16 max: overflows to +inf
  EXPECT_EQ(t.code({3}), 0x7F80u);
}

TEST(Tensor, Fp8NeedsExplicitMode) {
  Tensor t = Tensor::empty(DType::F8_E4M3FNUZ, {2});
  EXPECT_THROW(t.set({0}, 1.0), std::invalid_argument);
  t.set_code({0}, 0x80);
  EXPECT_TRUE(std::isnan(t.get({0})));
  t.set_code({1}, 0x7F);
  EXPECT_EQ(t.get({1}), 240.0);
}

TEST(Tensor, AsStridedRejectsViewsPastStorage) {
  Tensor t = Tensor::empty(DType::BF16, {4, 8});
  EXPECT_NO_THROW(t.as_strided({3, 4}, {8, 1}, 4));
  EXPECT_THROW(t.as_strided({4, 4}, {8, 1}, 5), std::out_of_range);
}

TEST(Tensor, FillRoundsOnceAndWritesOnlyTheView) {
  // 1 + 3·2^-8 ties between 0x3F81 and 0x3F82: RNE gives the even 0x3F82 in every element.
  Tensor t = Tensor::empty(DType::BF16, {3, 5});
  t.fill_bytes(0xAB);
  t.fill(1.0 + 3 * std::ldexp(1.0, -8));
  for (std::int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(t.code_linear(i), 0x3F82u) << i;
  // A strided view (column 1..2 of each row) is filled; the columns around it keep their codes.
  t.slice(1, 1, 2).fill(-2.5);
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t c = 0; c < 5; ++c) EXPECT_EQ(t.code({r, c}), c == 1 || c == 2 ? 0xC020u : 0x3F82u) << r << "," << c;
  Tensor f = Tensor::empty(DType::F32, {4});
  f.fill(-INFINITY);
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(f.get({i}), -INFINITY);
}
