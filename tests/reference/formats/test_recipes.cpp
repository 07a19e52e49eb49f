// Scale recipes (formats.md §5) against hand-derived scales/bytes (each computed by hand from the
// recipe's formula in float32), and the 2-D per-token-group / per-block tiling.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "reference/formats/recipes.hpp"

using namespace dsv4::formats;

namespace {
std::vector<float> block_with_amax(float amax, std::size_t n = 128) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = amax * static_cast<float>((i % 7) + 1) / 8.0f * ((i % 2) ? -1.0f : 1.0f);
  x[n / 2] = -amax;
  return x;
}
}  // namespace

TEST(Recipes, NamesRoundTrip) {
  for (Recipe r : kAllRecipes) EXPECT_EQ(parse_recipe(recipe_name(r)), r);
  EXPECT_FALSE(parse_recipe("dg-floor").has_value());
  EXPECT_EQ(recipe_name(Recipe::vllm_v4_invrope), "vllm-v4-invrope");
}

TEST(Recipes, DgCeilScaleBytes) {
  // amax 448: sf = 1.0 exactly -> byte 0x7F.  amax 449: sf = 449/448 has a mantissa -> ceil -> 2^1.
  EXPECT_EQ(compute_scale(Recipe::dg_ceil, 448.0f, Format::e4m3fn).e8m0, 0x7F);
  const BlockScale s = compute_scale(Recipe::dg_ceil, 449.0f, Format::e4m3fn);
  EXPECT_EQ(s.e8m0, 0x80);
  EXPECT_EQ(s.scale, 2.0f);
  // amax 0 -> clamp 1e-4: 1e-4/448 = 0x346FACAD in [2^-23, 2^-22) -> ceil 2^-22 -> byte 105.
  EXPECT_EQ(compute_scale(Recipe::dg_ceil, 0.0f, Format::e4m3fn).e8m0, 105);
  // 3e38/448 ~ 1.5*2^119 -> byte 127+120; the [1, 254] clamp: an Inf amax cannot reach 0xFF.
  EXPECT_EQ(compute_scale(Recipe::dg_ceil, 3.0e38f, Format::e4m3fn).e8m0, 247);
  EXPECT_EQ(compute_scale(Recipe::dg_ceil, INFINITY, Format::e4m3fn).e8m0, 254);
}

TEST(Recipes, DgCeilQuantizesWithTheReciprocal) {
  std::vector<float> x = {449.0f, -449.0f, 1.0f, 0.0f, 224.5f};
  const QuantResult q = quantize_block(Recipe::dg_ceil, x, Format::e4m3fn);
  // scale 2: 449 -> 224.5 -> RNE between 224 (0x76) and 240 (0x77) -> 0x76; 1 -> 0.5 -> 0x30.
  EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0x76, 0xF6, 0x30, 0x00, 0x6E}));  // 112.25 -> 112 = 2^6*1.75 = 0x6E
  EXPECT_EQ(q.amax, 449.0f);
  EXPECT_EQ(q.clamped, 0u);
}

TEST(Recipes, Dsv4ActClampsAndUsesTheReciprocalOf448) {
  // 448*fl(1/448) is exactly 1.0f; 448*(1-2^-24) times fl(1/448) rounds to 1.0f too: both byte 0x7F.
  EXPECT_EQ(compute_scale(Recipe::dsv4_act, 448.0f, Format::e4m3fn).e8m0, 0x7F);
  EXPECT_EQ(compute_scale(Recipe::dsv4_act, std::bit_cast<float>(0x43DFFFFFu), Format::e4m3fn).e8m0, 0x7F);
  EXPECT_EQ(compute_scale(Recipe::dsv4_act, 896.0f, Format::e4m3fn).e8m0, 0x80);
  const QuantResult q = quantize_block(Recipe::dsv4_act, block_with_amax(900.0f), Format::e4m3fn);
  EXPECT_EQ(q.scale.e8m0, 0x81);  // 900/448 > 2 -> 2^2
  EXPECT_EQ(q.scale.scale, 4.0f);
  EXPECT_EQ(q.codes[64], 0xF6);   // -900/4 = -225 -> 224 (0x76) with sign
}

TEST(Recipes, MxFloorClampsNormalsAboveMax) {
  // e4m3: emax 8. amax 500: floor(log2 500) = 8 -> X = 2^0; 500 is clamped to 448.
  std::vector<float> x(32, 1.0f);
  x[3] = 500.0f;
  const QuantResult q = quantize_block(Recipe::mx_floor, x, Format::e4m3fn);
  EXPECT_EQ(q.scale.e8m0, 0x7F);
  EXPECT_EQ(q.codes[3], 0x7E);
  EXPECT_EQ(q.clamped, 1u);
  // e2m1: emax 2. amax 7: floor(log2 7) = 2 -> X = 1; 7 -> 6.
  std::vector<float> y(32, 0.5f);
  y[0] = 7.0f;
  const QuantResult qf = quantize_block(Recipe::mx_floor, y, Format::e2m1fn);
  EXPECT_EQ(qf.scale.e8m0, 0x7F);
  EXPECT_EQ(qf.codes[0], 0x7);
  EXPECT_EQ(qf.codes[1], 0x1);
  // amax 0 -> log2(FP32_MIN_NORMAL) = -126, minus 8 -> clipped to -127: byte 0x00.
  EXPECT_EQ(compute_scale(Recipe::mx_floor, 0.0f, Format::e4m3fn).e8m0, 0x00);
  // Inf in the block -> NaN scale (0xFF).
  EXPECT_EQ(compute_scale(Recipe::mx_floor, INFINITY, Format::e4m3fn).e8m0, 0xFF);
  // "nearest" (ties away) vs "even": 2.5 -> 3 vs 2 in e2m1 with X = 1 (amax 4).
  std::vector<float> z = {4.0f, 2.5f};
  RecipeOptions away;
  away.mx_ties_away = true;
  EXPECT_EQ(quantize_block(Recipe::mx_floor, z, Format::e2m1fn).codes[1], 0x4);
  EXPECT_EQ(quantize_block(Recipe::mx_floor, z, Format::e2m1fn, away).codes[1], 0x5);
}

TEST(Recipes, Fp4RecipesDifferInTiesAndFloors) {
  std::vector<float> x = {6.0f, 0.75f, 1.75f, 3.5f, -0.25f};
  const QuantResult dg = quantize_block(Recipe::dg_fp4, x, Format::e2m1fn);
  EXPECT_EQ(dg.scale.e8m0, 0x7F);
  EXPECT_EQ(dg.codes, (std::vector<std::uint8_t>{0x7, 0x1, 0x3, 0x5, 0x0}));  // ties toward zero
  const QuantResult v4 = quantize_block(Recipe::dsv4_fp4, x, Format::e2m1fn);
  EXPECT_EQ(v4.scale.e8m0, 0x7F);
  EXPECT_EQ(v4.codes, (std::vector<std::uint8_t>{0x7, 0x2, 0x4, 0x6, 0x8}));  // RNE
  // Tiny blocks: dsv4-fp4 floors amax at 6*2^-126 -> 2^-126 (byte 1); dg-fp4 at 1e-4 -> 1e-4/6 in [2^-16, 2^-15) -> 2^-15.
  EXPECT_EQ(compute_scale(Recipe::dsv4_fp4, 0.0f, Format::e2m1fn).e8m0, 0x01);
  EXPECT_EQ(compute_scale(Recipe::dg_fp4, 0.0f, Format::e2m1fn).e8m0, 127 - 15);
  EXPECT_THROW(quantize_block(Recipe::dg_fp4, x, Format::e4m3fn), std::invalid_argument);
}

TEST(Recipes, TkCeilBitTrick) {
  EXPECT_EQ(compute_scale(Recipe::tk_ceil, 448.0f, Format::e4m3fn).scale, 1.0f);
  EXPECT_EQ(compute_scale(Recipe::tk_ceil, 449.0f, Format::e4m3fn).scale, 2.0f);
  EXPECT_EQ(compute_scale(Recipe::tk_ceil, 6.0f, Format::e2m1fn).scale, 1.0f);
}

TEST(Recipes, ClampSiteDiffersForTinyBlocks) {
  // formats.md §5 difference 4: floor on amax vs on the scale.
  EXPECT_EQ(compute_scale(Recipe::flashmla_kv_test, 0.0f, Format::e4m3fn).e8m0, 127 - 13);  // log2(1e-4) = -13.29
  EXPECT_EQ(compute_scale(Recipe::vllm_v4_kv, 0.0f, Format::e4m3fn).e8m0, 127 - 22);        // log2(1e-4/448) = -22.1
  EXPECT_EQ(compute_scale(Recipe::v3_triton, 0.0f, Format::e4m3fn).e8m0, 127 - 42);         // log2(1e-10/448) = -42.03
  EXPECT_EQ(compute_scale(Recipe::vllm_v4_invrope, 0.0f, Format::e4m3fn).e8m0, 127 - 42);
}

TEST(Recipes, VllmFnuzUses224AndClamps) {
  std::vector<float> x = {224.0f, 230.0f, -1.0f};
  RecipeOptions o;
  const QuantResult q = quantize_block(Recipe::v3_triton, x, Format::e4m3fnuz, o);
  EXPECT_EQ(q.scale.scale, 2.0f);  // 230/224 > 1 -> 2^1
  EXPECT_EQ(q.codes[0], 0x76);     // 112 in fnuz = 2^6 * 1.75
  o.elem_max = 240.0;
  EXPECT_EQ(quantize_block(Recipe::v3_triton, x, Format::e4m3fnuz, o).scale.scale, 1.0f);  // 230/240 < 1
}

TEST(Recipes, VllmV4KvStoresInfAsByte255) {
  std::vector<float> x = {1.0f, INFINITY};
  const QuantResult q = quantize_block(Recipe::vllm_v4_kv, x, Format::e4m3fn);
  EXPECT_EQ(q.scale.e8m0, 0xFF);  // exponent+127 clamped to [0, 255]: the shift23 hazard of known-bugs.md
}

TEST(Recipes, PlainFp32DivideVersusReciprocal) {
  std::vector<float> x = {300.0f, 1.0f};
  const QuantResult q = quantize_block(Recipe::plain_fp32, x, Format::e4m3fn);
  EXPECT_EQ(q.scale.scale, 300.0f / 448.0f);
  EXPECT_FALSE(q.scale.e8m0.has_value());
  EXPECT_EQ(q.codes[0], 0x7E);  // 300 / fl(300/448) = 448.0f
  RecipeOptions o;
  o.apply = ScaleApply::multiply_reciprocal;
  EXPECT_EQ(quantize_block(Recipe::plain_fp32, x, Format::e4m3fn, o).codes[0], 0x7E);
}

TEST(Recipes, NanInBlockGivesNanAmax) {
  std::vector<float> x = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
  const QuantResult q = quantize_block(Recipe::dg_ceil, x, Format::e4m3fn);
  EXPECT_TRUE(std::isnan(q.amax));
}

TEST(Recipes, PerBlockAndPerTokenGroupTiling) {
  const std::int64_t rows = 130, cols = 260;
  std::vector<float> x(rows * cols);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) x[i * cols + j] = static_cast<float>((i + 1) * 0.5 + j * 0.25);
  const Quantized2D b = quantize_per_block(Recipe::dg_ceil, x, rows, cols, 128, Format::e4m3fn);
  EXPECT_EQ(b.scale_rows, 2);
  EXPECT_EQ(b.scale_cols, 3);
  ASSERT_EQ(b.scale_e8m0.size(), 6u);
  // Tile (1, 2): rows 128..129, cols 256..259: amax = 130*0.5 + 259*0.25 = 129.75 -> /448 < 1 -> 2^-1 (0x7E).
  EXPECT_EQ(b.scale_e8m0[1 * 3 + 2], 0x7E);
  // Tile (0, 1): amax = 128*0.5 + 255*0.25 = 127.75 -> 2^-1.
  EXPECT_EQ(b.scales[1], 0.5f);
  const std::vector<float> back = dequantize_2d(b, Format::e4m3fn);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(back[i], x[i], std::fabs(x[i]) / 16 + 1e-6) << i;
  const Quantized2D g = quantize_per_token_group(Recipe::dsv4_act, x, rows, cols, 128, Format::e4m3fn);
  EXPECT_EQ(g.scale_rows, 130);
  EXPECT_EQ(g.scale_cols, 3);
  EXPECT_THROW(quantize_2d(Recipe::dg_ceil, x, rows, cols + 1, 1, 128, Format::e4m3fn), std::invalid_argument);
}
