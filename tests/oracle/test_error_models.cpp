// Error-model building blocks against hand-derived values.
#include <gtest/gtest.h>

#include <cmath>

#include "oracle/error_models.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

TEST(ErrorModels, GammaAndUlp) {
  EXPECT_DOUBLE_EQ(gamma_n(1024, 0x1p-24), 1024.0 * 0x1p-24 / (1 - 1024.0 * 0x1p-24));
  EXPECT_TRUE(std::isinf(gamma_n(1 << 24, 0x1p-24)));
  EXPECT_EQ(ulp_at(DType::BF16, 1.0), 0x1p-7);
  EXPECT_EQ(ulp_at(DType::BF16, 3.0), 0x1p-6);
  EXPECT_EQ(ulp_at(DType::BF16, -0.75), 0x1p-8);
  EXPECT_EQ(ulp_at(DType::BF16, 0.0), 0x1p-133);  // subnormal spacing 2^(-126-7)
  EXPECT_EQ(ulp_at(DType::F32, 1.0), 0x1p-23);
  EXPECT_EQ(ulp_at(DType::F16, 1.0), 0x1p-10);
  EXPECT_EQ(ulp_at(DType::F16, 1e-7), 0x1p-24);
  EXPECT_EQ(ulp_at(DType::F8_E4M3FN, 1.0), 0x1p-3);
  EXPECT_EQ(ulp_at(DType::F8_E4M3FN, 0.0), 0x1p-9);
  EXPECT_EQ(ulp_at(DType::F8_E4M3FNUZ, 0.0), 0x1p-10);
  EXPECT_EQ(ulp_at(DType::I32, 5.0), 1.0);
  // K = 4096, sum|ab| = 10, exact 2.5 in bf16: gamma*10 + ulp(2.5 + gamma*10) = gamma*10 + 2^-6.
  double g = gamma_n(4096);
  EXPECT_DOUBLE_EQ(dot_product_bound(4096, 10.0, 2.5, DType::BF16), g * 10 + 0x1p-6);
}
